// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <linux/if_link.h>

#include "log.h"
#include "precheck.h"

bool cni_link_speaks_arp(const struct cni_netconf *c)
{
	return c->mode == CNI_MODE_MACVLAN || c->ipvlan_mode == IPVLAN_MODE_L2;
}

int cni_find_conflict(struct cni_prober *p, const struct cni_attachment *a,
		      const struct cni_probe_opts *o, int *which, uint8_t who[6],
		      struct cni_err *err)
{
	struct cni_probe t[2];
	struct rn_error e = { 0 };
	int rc;

	memset(t, 0, sizeof(t));
	for (unsigned int i = 0; i < a->n_addrs; i++)
		t[i].target = a->addrs[i].address.addr;
	rc = cni_probe_run(p, t, a->n_addrs, o, CNI_PROBE_ANY_ANSWER, &e);
	if (rc < 0)
		return cni_fail_rn(err, RN_CNI_ERR_INTERNAL, &e, "conflict check");
	for (unsigned int i = 0; i < a->n_addrs; i++) {
		if (t[i].answered) {
			*which = (int)i;
			memcpy(who, t[i].who, 6);
			return 1;
		}
	}
	return 0;
}

int cni_check_gateways(struct cni_prober *p, const struct cni_attachment *a,
		       const struct cni_probe_opts *o, struct cni_err *err)
{
	const struct rn_ipam_address *owner[2];
	struct cni_probe t[2];
	struct rn_error e = { 0 };
	char gw[RN_ADDR_STRLEN];
	unsigned int n = 0;

	memset(t, 0, sizeof(t));
	for (unsigned int i = 0; i < a->n_addrs; i++) {
		const struct rn_ipam_address *ad = &a->addrs[i];

		if (!ad->has_gateway)
			continue;
		t[n].target = ad->gateway;
		/* known free by now, the address may speak for itself: some routers
		 * ignore ARP probes from 0.0.0.0 */
		t[n].sender = ad->address.addr;
		owner[n++] = ad;
	}
	if (!n)
		return 0;
	if (cni_probe_run(p, t, n, o, CNI_PROBE_ALL_ANSWERED, &e) < 0)
		return cni_fail_rn(err, RN_CNI_ERR_INTERNAL, &e, "gateway check");
	for (unsigned int i = 0; i < n; i++)
		if (!t[i].answered)
			return cni_fail(err, RN_CNI_ERR_GATEWAY, "gateway %s of pool \"%s\" "
					"does not answer %s on %s within %u ms",
					rn_addr_format(&owner[i]->gateway, gw), owner[i]->pool,
					owner[i]->gateway.family == AF_INET ? "ARP" : "NDP",
					a->master, o->timeout_ms);
	return 0;
}

void cni_announce(struct cni_prober *p, const struct cni_attachment *a)
{
	struct rn_error e = { 0 };

	for (unsigned int i = 0; i < a->n_addrs; i++)
		if (cni_probe_announce(p, &a->addrs[i].address.addr, &e))
			rn_warn("%s", e.msg);
}
