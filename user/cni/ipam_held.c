// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "ipam/ipam_settings.h"
#include "ipam_held.h"

static void fill(struct rn_ipam_address *out, const struct rn_ipam_allocation *a,
		 const struct rn_pool *p)
{
	memset(out, 0, sizeof(*out));
	out->address.addr = a->addr;
	out->address.len = p->subnet.len;
	out->has_gateway = p->has_gateway;
	out->gateway = p->gateway;
	out->n_routes = p->n_routes;
	memcpy(out->routes, p->routes, sizeof(out->routes));
	snprintf(out->pool, sizeof(out->pool), "%s", p->name);
	out->vlan = p->vlan;
}

int cni_ipam_held(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		  struct rn_ipam_address out[2], struct cni_err *err)
{
	struct rn_ipam_allocation allocs[2];
	struct rn_error e = { 0 };
	int n = rn_ipam_lookup_owner(ipam, container_id, ifname, allocs, 2, &e);

	if (n < 0)
		return cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e, "IPAM");
	if (n > 2)
		n = 2;
	/* IPv4 first, as ADD orders them */
	if (n == 2 && allocs[0].addr.family == AF_INET6) {
		struct rn_ipam_allocation t = allocs[0];

		allocs[0] = allocs[1];
		allocs[1] = t;
	}
	for (int i = 0; i < n; i++) {
		struct rn_ipam_pool_info info;

		if (rn_ipam_pool_get(ipam, allocs[i].pool, &info, &e))
			return cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
					   "IPAM pool \"%s\"", allocs[i].pool);
		fill(&out[i], &allocs[i], &info.pool);
		rn_pool_free(&info.pool);
	}
	return n;
}
