// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>
#include <linux/if_link.h>

#include "log.h"
#include "precheck.h"
#include "monotonic.h"

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
	int64_t t0 = rn_monotonic_ms(), left;
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
	left = (int64_t)gateway->timeout_ms - (rn_monotonic_ms() - t0);
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

void cni_prechecked_prefer(struct cni_prechecked *pc, const char *state_dir, const char *master)
{
	struct rn_error e = { 0 };
	int64_t now = rn_precheck_now_ms();

	memset(pc, 0, sizeof(*pc));
	if (rn_precheck_load(state_dir, &pc->table, &e)) {
		rn_debug("pre-checked addresses: %s", e.msg);
		return;
	}
	if (e.msg[0])
		rn_debug("pre-checked addresses: %s: none used", e.msg);
	if (!pc->table.n)
		return;
	pc->prefer = calloc(pc->table.n, sizeof(*pc->prefer));
	if (!pc->prefer)
		return;
	for (unsigned int i = 0; i < pc->table.n; i++) {
		const struct rn_precheck_entry *x = &pc->table.e[i];

		if (strcmp(x->master, master) || !rn_precheck_fresh(&pc->table, x, now))
			continue;
		pc->prefer[pc->n_prefer].pool = x->pool;
		pc->prefer[pc->n_prefer++].addr = rn_addr_to_u128(&x->addr);
	}
	rn_alloc_prefer_set(pc->prefer, pc->n_prefer);
}

bool cni_prechecked_all(const struct cni_prechecked *pc, const struct cni_attachment *a)
{
	int64_t now = rn_precheck_now_ms();
	char buf[RN_ADDR_STRLEN];
	bool all = a->n_addrs > 0;

	for (unsigned int i = 0; i < a->n_addrs; i++) {
		const struct rn_ipam_address *ad = &a->addrs[i];
		const struct rn_precheck_entry *x =
			rn_precheck_find(&pc->table, ad->pool, a->master, &ad->address.addr, now);

		rn_addr_format(&ad->address.addr, buf);
		if (x)
			rn_debug("conflict check: %s (pool \"%s\") pre-checked on %s %lld ms ago: "
				 "no probe window", buf, ad->pool, a->master,
				 (long long)(now - x->checked_ms));
		else
			rn_debug("conflict check: %s (pool \"%s\") not pre-checked on %s: probing",
				 buf, ad->pool, a->master);
		all &= x != NULL;
	}
	return all;
}

void cni_prechecked_want(const char *state_dir, const struct cni_attachment *a)
{
	struct rn_error e = { 0 };

	for (unsigned int i = 0; i < a->n_addrs; i++)
		if (rn_precheck_want(state_dir, a->addrs[i].pool, a->master, &e))
			rn_warn("pre-checks for pool \"%s\": %s", a->addrs[i].pool, e.msg);
}

void cni_prechecked_free(struct cni_prechecked *pc)
{
	rn_alloc_prefer_set(NULL, 0);
	free(pc->prefer);
	pc->prefer = NULL;
	pc->n_prefer = 0;
	rn_precheck_free(&pc->table);
}
