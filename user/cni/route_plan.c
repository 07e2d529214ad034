// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "route_plan.h"

static bool prefix_equal(const struct rn_prefix *a, const struct rn_prefix *b)
{
	return a->len == b->len && rn_addr_equal(&a->addr, &b->addr);
}

static int add_route(struct cni_attachment *a, const struct rn_prefix *dst,
		     const struct rn_addr *gw, const struct rn_addr *src, uint32_t table,
		     struct cni_err *err)
{
	struct cni_att_route *r;

	for (unsigned int i = 0; i < a->n_routes; i++)
		if (a->routes[i].table == table && prefix_equal(&a->routes[i].dst, dst))
			return 0;
	if (a->n_routes == CNI_ATT_MAX_ROUTES)
		return cni_fail(err, CNI_ERR_CONFIG, "config: more than %d routes for one "
				"interface", CNI_ATT_MAX_ROUTES);
	r = &a->routes[a->n_routes++];
	memset(r, 0, sizeof(*r));
	r->dst = *dst;
	r->has_gw = gw != NULL;
	if (gw)
		r->gw = *gw;
	r->table = table;
	r->link_scope = !gw;
	r->src = *src;
	return 0;
}

static void subnet_of(const struct rn_prefix *addr, struct rn_prefix *out)
{
	*out = *addr;
	for (unsigned int bit = addr->len; bit < rn_addr_len(&addr->addr) * 8; bit++)
		out->addr.b[bit / 8] &= (uint8_t)~(0x80u >> (bit % 8));
}

static int plan_one(const struct cni_netconf *c, struct cni_attachment *a,
		    const struct rn_ipam_address *ad, struct cni_err *err)
{
	const struct rn_addr *src = &ad->address.addr, *via = ad->has_gateway ? &ad->gateway : NULL;
	int family = src->family;
	struct rn_prefix p;

	if (a->table) {
		subnet_of(&ad->address, &p);
		if (add_route(a, &p, NULL, src, a->table, err))
			return -1;
		if (via) {
			memset(&p, 0, sizeof(p));
			p.addr.family = family;
			if (add_route(a, &p, via, src, a->table, err))
				return -1;
		}
	}
	for (unsigned int i = 0; i < ad->n_routes; i++) {
		const struct rn_pool_route *r = &ad->routes[i];

		if (add_route(a, &r->dst, r->has_gw ? &r->gw : via, src, a->table, err))
			return -1;
	}
	for (unsigned int i = 0; i < c->n_routes; i++) {
		const struct cni_route *r = &c->routes[i];

		if (r->dst.addr.family != family)
			continue;
		if (add_route(a, &r->dst, r->has_gw ? &r->gw : via, src, a->table, err))
			return -1;
	}
	return 0;
}

int cni_plan_routes(const struct cni_netconf *c, struct cni_attachment *a, struct cni_err *err)
{
	a->n_routes = 0;
	for (unsigned int i = 0; i < a->n_addrs; i++)
		if (plan_one(c, a, &a->addrs[i], err))
			return -1;
	return 0;
}
