// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <linux/if_link.h>

#include "log.h"
#include "precheck.h"

bool cni_link_speaks_arp(const struct cni_netconf *c)
{
	return c->mode == CNI_MODE_MACVLAN || c->ipvlan_mode == IPVLAN_MODE_L2;
}

/* The targets: a->addrs (conflict) first, then the gateways; gw[k] is the
 * address whose gateway target k + n_addrs is. */
static unsigned int targets(const struct cni_attachment *a, bool conflict, bool gateway,
			    struct cni_probe *t, const struct rn_ipam_address **gw,
			    unsigned int *n_conf)
{
	unsigned int n = 0;

	memset(t, 0, 4 * sizeof(*t));
	for (unsigned int i = 0; conflict && i < a->n_addrs; i++) {
		t[n].target = a->addrs[i].address.addr;
		t[n++].stop = true;
	}
	*n_conf = n;
	for (unsigned int i = 0; gateway && i < a->n_addrs; i++) {
		if (!a->addrs[i].has_gateway)
			continue;
		gw[n - *n_conf] = &a->addrs[i];
		/* without a duplicate check there is nothing to wait for: ask
		 * from the address at once (some routers ignore 0.0.0.0) */
		if (!conflict)
			t[n].sender = a->addrs[i].address.addr;
		t[n++].target = a->addrs[i].gateway;
	}
	return n;
}

static int gateway_silent(const struct cni_attachment *a, const struct rn_ipam_address *ad,
			  const struct cni_probe_opts *o, struct cni_err *err)
{
	char gw[RN_ADDR_STRLEN];

	return cni_fail(err, RN_CNI_ERR_GATEWAY, "gateway %s of pool \"%s\" does not answer %s "
			"on %s within %u ms", rn_addr_format(&ad->gateway, gw), ad->pool,
			ad->gateway.family == AF_INET ? "ARP" : "NDP", a->master, o->timeout_ms);
}

int cni_run_checks(struct cni_prober *p, const struct cni_attachment *a,
		   const struct cni_probe_opts *conflict, const struct cni_probe_opts *gateway,
		   int *which, uint8_t who[6], struct cni_err *err)
{
	const struct rn_ipam_address *gw[2];
	struct cni_probe t[4], late[2];
	struct rn_error e = { 0 };
	struct cni_probe_opts rest;
	unsigned int n_conf, n, n_late = 0;
	int64_t t0 = cni_now_ms(), left;
	const struct rn_ipam_address *late_gw[2];

	n = targets(a, conflict, gateway, t, gw, &n_conf);
	if (!n)
		return 0;
	/* the duplicate check's window, or the gateways' own run without it */
	if (cni_probe_run(p, t, n, conflict ? conflict : gateway,
			  conflict ? CNI_PROBE_ANY_STOP : CNI_PROBE_ALL_ANSWERED, &e) < 0)
		return cni_fail_rn(err, RN_CNI_ERR_INTERNAL, &e, "%s check",
				   conflict ? "conflict" : "gateway");
	for (unsigned int i = 0; i < n_conf; i++) {
		if (t[i].answered) {
			*which = (int)i;
			memcpy(who, t[i].who, 6);
			return 1;
		}
	}
	for (unsigned int i = n_conf; i < n; i++) {
		if (t[i].answered)
			continue;
		if (!conflict)
			return gateway_silent(a, gw[i - n_conf], gateway, err);
		memset(&late[n_late], 0, sizeof(late[n_late]));
		late[n_late].target = t[i].target;
		/* known free by now, the address may speak for itself */
		late[n_late].sender = gw[i - n_conf]->address.addr;
		late_gw[n_late++] = gw[i - n_conf];
	}
	if (!n_late)
		return 0;
	left = (int64_t)gateway->timeout_ms - (cni_now_ms() - t0);
	rest = *gateway;
	rest.timeout_ms = left > 1 ? (unsigned int)left : 1;
	if (cni_probe_run(p, late, n_late, &rest, CNI_PROBE_ALL_ANSWERED, &e) < 0)
		return cni_fail_rn(err, RN_CNI_ERR_INTERNAL, &e, "gateway check");
	for (unsigned int i = 0; i < n_late; i++)
		if (!late[i].answered)
			return gateway_silent(a, late_gw[i], gateway, err);
	return 0;
}

void cni_announce(struct cni_prober *p, const struct cni_attachment *a)
{
	struct rn_error e = { 0 };

	for (unsigned int i = 0; i < a->n_addrs; i++)
		if (cni_probe_announce(p, &a->addrs[i].address.addr, &e))
			rn_warn("%s", e.msg);
}
