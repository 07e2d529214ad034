// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ADD: check (with "dra", the device from the pod's claim: dra_claim.h), lock the attachment, record, create the link in the pod netns
 * and set its sysctls (while the record is synced), allocate, probe, address, route, register,
 * record the pod's network data for its claim (dra_network.h), record
 * again, answer. Any failure undoes all
 * of it (teardown.h) before the error is reported. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <netlink/socket.h>

#include "addr.h"
#include "cmd.h"
#include "dra_claim.h"
#include "dra_network.h"
#include "fault.h"
#include "link.h"
#include "log.h"
#include "master_pick.h"
#include "netns.h"
#include "node_config.h"
#include "pod_datapath.h"
#include "pod_sysctl.h"
#include "precheck.h"
#include "record.h"
#include "result.h"
#include "route_plan.h"
#include "routing.h"
#include "teardown.h"
#include "vf.h"

#define CONFLICT_ATTEMPTS 3

struct add {
	struct cni_req *r;
	struct rn_config cfg;
	struct rn_ipam *ipam;
	struct cni_netns ns;
	struct nl_sock *host, *pod;
	struct rn_netdev master;
	struct cni_attachment att;
	struct cni_record rec;
	char tmpname[RN_IFNAMSIZ];
	char alias[CNI_ALIAS_MAX];
	struct cni_prober prober;
	struct cni_prechecked pre;	/* rdmanetd's pre-checked addresses */
	int lock_fd;			/* the attachment's lock (record.h) */
	int slot;			/* the data-path registration's slot, -1 if none */
	bool recorded;
	bool networked;			/* the DRA network data recorded (dra_network.h) */
	struct cni_record_pending first;	/* the first record's sync */
	struct cni_vf vf;		/* mode sriov */
};

static int open_netns(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_error e = { 0 };
	int rc = cni_netns_open(&a->ns, r->env.netns, &e);

	if (rc == -ENOENT)
		return cni_fail(&r->err, CNI_ERR_NO_CONTAINER, "CNI_NETNS %s does not exist",
				r->env.netns);
	if (rc == -EINVAL)
		return cni_fail(&r->err, CNI_ERR_ENV, "CNI_NETNS: %s", e.msg);
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "CNI_NETNS");
	a->host = cni_nl_open(NULL, &e);
	a->pod = a->host ? cni_nl_open(&a->ns, &e) : NULL;
	if (!a->pod)
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "netlink");
	return 0;
}

static int open_store(struct add *a)
{
	return a->ipam ? 0 : cni_ipam_open(&a->cfg, &a->ipam, &a->r->err);
}

static int prepare(struct add *a)
{
	struct cni_req *r = a->r;
	struct cni_link_info li;
	struct rn_error e = { 0 };
	int rc;

	if (cni_node_load(r, &a->cfg) || cni_node_check_dscp(r, &a->cfg) ||
	    cni_dra_take(r, &a->cfg) || open_netns(a))
		return -1;
	rc = cni_link_get(a->pod, r->env.ifname, &li, &e);
	if (!rc)
		return cni_fail(&r->err, RN_CNI_ERR_IFNAME_EXISTS, "interface %s already exists in "
				"%s", r->env.ifname, r->env.netns);
	if (rc != -ENODEV)
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "look up %s", r->env.ifname);
	/* sriov: the VF's PF is the master */
	if (r->conf.mode == CNI_MODE_SRIOV && cni_vf_prepare(r, &a->cfg, &a->vf, &a->master))
		return -1;
	/* the store is opened later, while the first record is synced, unless
	 * the master is to be found there */
	rc = r->conf.mode == CNI_MODE_SRIOV ? 0 :
		cni_master_pick(&r->conf, &a->cfg, NULL, &a->master, &r->err);
	if (rc == 1 && (open_store(a) ||
			cni_master_pick(&r->conf, &a->cfg, a->ipam, &a->master, &r->err)))
		return -1;
	if (rc < 0)
		return -1;
	snprintf(a->att.ifname, sizeof(a->att.ifname), "%s", r->env.ifname);
	snprintf(a->att.master, sizeof(a->att.master), "%s", a->master.ifname);
	a->att.sandbox = r->env.netns;
	cni_link_tmp_name(r->env.container_id, r->env.ifname, a->tmpname);
	cni_link_alias(r->env.container_id, a->alias);
	return 0;
}

/* Held until ADD answers: GC leaves an attachment alone while its ADD runs
 * (waiting for the store, probing), however long that takes. */
static int lock_attachment(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_error e = { 0 };

	a->lock_fd = cni_record_lock(r->conf.state_dir, r->conf.name, r->env.container_id,
				     r->env.ifname, true, &e);
	if (a->lock_fd < 0)
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "stateDir");
	return 0;
}

static int write_record(struct add *a, bool complete)
{
	struct cni_record *rec = &a->rec;
	struct rn_error e = { 0 };
	int rc;

	memset(rec, 0, sizeof(*rec));
	snprintf(rec->network, sizeof(rec->network), "%s", a->r->conf.name);
	snprintf(rec->container_id, sizeof(rec->container_id), "%s", a->r->env.container_id);
	snprintf(rec->ifname, sizeof(rec->ifname), "%s", a->r->env.ifname);
	snprintf(rec->netns, sizeof(rec->netns), "%s", a->r->env.netns);
	snprintf(rec->master, sizeof(rec->master), "%s", a->master.ifname);
	rec->complete = complete;
	rec->n_addrs = a->att.n_addrs;
	for (unsigned int i = 0; i < a->att.n_addrs; i++)
		rec->addrs[i] = a->att.addrs[i].address;
	rec->table = a->att.table;
	/* the first record's sync runs on while ADD creates the link
	 * (record_durable waits for it) */
	rc = complete ? cni_record_write(a->r->conf.state_dir, rec, &e) :
			cni_record_begin(a->r->conf.state_dir, rec, &a->first, &e);
	if (rc)
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_STATE, &e, "stateDir");
	a->recorded = true;
	return 0;
}

/* Nothing a crash would leave behind (an allocation, a VF taken from the
 * host) comes before the first record is on disk. */
static int record_durable(struct add *a)
{
	struct rn_error e = { 0 };

	if (cni_record_wait(&a->first, &e))
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_STATE, &e, "stateDir");
	return 0;
}

static int allocate(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_ipam_request req = {
		.container_id = r->env.container_id,
		.ifname = r->env.ifname,
		.pod_namespace = r->env.pod_namespace[0] ? r->env.pod_namespace : NULL,
		.pod_name = r->env.pod_name[0] ? r->env.pod_name : NULL,
		.master = a->master.ifname,
		.ipv4_pools = r->conf.ipv4_pools,
		.n_ipv4_pools = r->conf.n_ipv4_pools,
		.ipv6_pools = r->conf.ipv6_pools,
		.n_ipv6_pools = r->conf.n_ipv6_pools,
	};
	struct rn_ipam_result res;
	struct rn_error e = { 0 };

	if (rn_ipam_allocate(a->ipam, &req, &res, &e))
		return cni_fail_rn(&r->err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				   "IPAM");
	for (unsigned int i = 0; i < res.n; i++) {
		if (res.addrs[i].vlan)
			return cni_fail(&r->err, CNI_ERR_CONFIG, "pool \"%s\" is on VLAN %u: VLAN "
					"pools are not supported by shared-mode attachments",
					res.addrs[i].pool, res.addrs[i].vlan);
		a->att.addrs[i] = res.addrs[i];
	}
	a->att.n_addrs = res.n;
	return 0;
}

static int release(struct add *a)
{
	struct rn_error e = { 0 };

	if (rn_ipam_release(a->ipam, a->r->env.container_id, a->r->env.ifname, &e) < 0)
		return cni_fail_rn(&a->r->err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				   "IPAM release");
	return 0;
}

static bool has_family(const struct cni_attachment *att, int family)
{
	for (unsigned int i = 0; i < att->n_addrs; i++)
		if (att->addrs[i].address.addr.family == family)
			return true;
	return false;
}

static int create_link(struct add *a)
{
	struct cni_req *r = a->r;
	struct cni_link_spec spec = {
		.mode = r->conf.mode,
		.submode = r->conf.mode == CNI_MODE_IPVLAN ? r->conf.ipvlan_mode :
							     r->conf.macvlan_mode,
		.master_ifindex = a->master.ifindex,
		.mtu = r->conf.mtu,
	};
	struct cni_link_info li;
	struct rn_error e = { 0 };
	bool stale;
	int rc;

	/* a kill -9 between creation and rename left one: it is ours to reuse */
	if (cni_link_delete_ours(a->pod, a->tmpname, "", &stale, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "leftover");
	if (cni_link_create(a->host, &spec, a->tmpname, a->ns.pod_fd, &e))
		return cni_fail_rn(&r->err, e.code == -ENODEV ? RN_CNI_ERR_MASTER :
				   RN_CNI_ERR_NETLINK, &e, "master %s", a->master.ifname);
	cni_fault_point("created");
	if (cni_link_get(a->pod, a->tmpname, &li, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "new link");
	rc = cni_link_rename(a->pod, li.ifindex, r->env.ifname, a->alias, &e);
	if (rc)
		return cni_fail_rn(&r->err, rc == -EEXIST ? RN_CNI_ERR_IFNAME_EXISTS :
				   RN_CNI_ERR_NETLINK, &e, "in %s", r->env.netns);
	a->att.ifindex = li.ifindex;
	a->att.mtu = li.mtu;
	memcpy(a->att.mac, li.mac, 6);
	return 0;
}

/* sriov: the VF itself goes into the pod (vf.h) */
static int take_vf(struct add *a)
{
	return cni_vf_attach(a->r, &a->vf, a->host, &a->ns, &a->att.ifindex, a->att.mac,
			     &a->att.mtu);
}

static int link_up(struct add *a)
{
	struct cni_link_info li;
	struct rn_error e = { 0 };

	if (cni_link_set_up(a->pod, a->att.ifindex, &e))
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_NETLINK, &e, "link up");
	/* a RTM_GETLINK for the device runs its pending link-watch event now
	 * (operstate up, and with it the IPv6 link-local address the NDP probes
	 * need) instead of whenever the kernel's workqueue gets to it */
	if (cni_link_get(a->pod, a->att.ifname, &li, &e))
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_NETLINK, &e, "new link");
	return 0;
}

/* The checks need the link up before any address is on it; without them
 * the link comes up with its addresses, like the reference plugins. */
static bool wants_probes(const struct cni_netconf *c)
{
	return cni_link_speaks_arp(c) && (c->conflict_check.enabled || c->gateway_check.enabled);
}

static const struct cni_probe_opts *conflict_opts(const struct cni_netconf *c)
{
	return c->conflict_check.enabled ? &c->conflict_check : NULL;
}

static const struct cni_probe_opts *gateway_opts(const struct cni_netconf *c)
{
	return c->gateway_check.enabled ? &c->gateway_check : NULL;
}

/* The link's sysctls, all of which must be set before it comes up, in one
 * visit to the pod netns. A shared-mode link gets them while the first
 * record is synced (they live and die with the link, in the pod's netns);
 * the families are the config's, as the allocation will give them.
 *  - addr_gen_mode 0: the link-local address the kernel gives the
 *    interface when it comes up is EUI-64 whatever the pod's defaults say
 *    (a host with net.core.devconf_inherit_init_net can hand pods
 *    stable-privacy or random): in enforce, a pod may claim only the
 *    link-local address of its own MAC (bpf/neigh_claims.h), so any other
 *    would have its own neighbour discovery refused. No IPv6 in the pod:
 *    nothing to set.
 *  - with the checks: accept_dad 0, the plugin runs its own duplicate
 *    detection, and the NDP probes need the link-local address at once,
 *    not after the kernel's DAD second;
 *  - without them: arp_notify / ndisc_notify, the kernel announces the
 *    addresses when the link comes up (no packet socket, whose close waits
 *    for an RCU grace period). */
static int link_settings(struct add *a)
{
	const struct cni_netconf *c = &a->r->conf;
	bool v4 = c->n_ipv4_pools > 0, v6 = c->n_ipv6_pools > 0;
	struct cni_sysctl v[3] = { { AF_INET6, "addr_gen_mode", "0", true } };
	struct rn_error e = { 0 };
	int n = 1;

	if (wants_probes(c) && v6) {
		v[n++] = (struct cni_sysctl){ AF_INET6, "accept_dad", "0", false };
	} else if (!wants_probes(c) && cni_link_speaks_arp(c)) {
		if (v4)
			v[n++] = (struct cni_sysctl){ AF_INET, "arp_notify", "1", false };
		if (v6)
			v[n++] = (struct cni_sysctl){ AF_INET6, "ndisc_notify", "1", false };
	}
	if (cni_pod_sysctls(&a->ns, a->att.ifname, v, n, &e))
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_NETLINK, &e, "sysctl");
	return 0;
}

/* With the conflict check on, the allocator takes an address rdmanetd
 * found free moments ago if it has one (precheck.h). */
static void prefer_prechecked(struct add *a)
{
	struct cni_req *r = a->r;

	if (wants_probes(&r->conf) && conflict_opts(&r->conf))
		cni_prechecked_prefer(&a->pre, r->conf.state_dir, a->master.ifname);
}

/* The conflict check's window, unless every address was pre-checked within
 * the table's max age: then only the gateway is asked, from the address,
 * and answers as soon as it replies. */
static const struct cni_probe_opts *conflict_window(struct add *a)
{
	const struct cni_probe_opts *o = conflict_opts(&a->r->conf);

	return o && cni_prechecked_all(&a->pre, &a->att) ? NULL : o;
}

/* The duplicate and gateway checks, in one window (cni_run_checks). A taken
 * address is given back and another one asked for: the allocator hands out
 * addresses round-robin, so the next one is a different address and the
 * taken one is not reused until the pool wraps around. */
static int run_checks(struct add *a)
{
	struct cni_req *r = a->r;
	char addr[RN_ADDR_STRLEN], mac[RN_MAC_STRLEN];
	struct rn_addr taken[CONFLICT_ATTEMPTS];
	uint8_t who[6];
	int which;

	/* the pools this ADD checks get pre-checks from now on */
	if (conflict_opts(&r->conf))
		cni_prechecked_want(r->conf.state_dir, &a->att);
	for (int attempt = 0; attempt < CONFLICT_ATTEMPTS; attempt++) {
		int rc = cni_run_checks(&a->prober, &a->att, conflict_window(a),
					gateway_opts(&r->conf), &which, who, &r->err);

		if (rc <= 0)
			return rc;
		taken[attempt] = a->att.addrs[which].address.addr;
		rn_addr_format(&taken[attempt], addr);
		rn_mac_format(who, mac);
		rn_warn("%s/%s: %s (pool \"%s\") is in use on the wire by %s; not using it",
			r->env.container_id, r->env.ifname, addr, a->att.addrs[which].pool, mac);
		if (release(a) || allocate(a))
			return -1;
		for (int k = 0; k <= attempt; k++)
			if (rn_addr_equal(&a->att.addrs[which].address.addr, &taken[k]))
				return cni_fail(&r->err, RN_CNI_ERR_IP_CONFLICT,
						"%s of pool \"%s\" is in use on the wire (by %s) "
						"and the pool has no other free address", addr,
						a->att.addrs[which].pool, mac);
	}
	return cni_fail(&r->err, RN_CNI_ERR_IP_CONFLICT, "%d addresses in a row from pool \"%s\" "
			"are in use on the wire (last: %s by %s)", CONFLICT_ATTEMPTS,
			a->att.addrs[which].pool, addr, mac);
}

/* ipvlan children share the master's MAC and the master hands a child only
 * the frames for addresses the child already has: answers to probes for an
 * address it does not have yet (or from 0.0.0.0) go to the master. So an
 * ipvlan attachment probes through the master, in the host netns, while a
 * macvlan one probes through its own link in the pod netns. */
static int open_prober(struct add *a)
{
	bool on_master = a->r->conf.mode == CNI_MODE_IPVLAN;
	const struct rn_netdev *m = &a->master;
	struct rn_error e = { 0 };
	int rc;

	if (!on_master && cni_netns_enter(&a->ns, &e))
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_INTERNAL, &e, "probes");
	rc = cni_prober_open(&a->prober, on_master ? m->ifindex : a->att.ifindex,
			     on_master ? m->ifname : a->att.ifname, on_master ? m->mac : a->att.mac,
			     has_family(&a->att, AF_INET), has_family(&a->att, AF_INET6), &e);
	if (!on_master)
		cni_netns_leave(&a->ns);
	if (rc)
		return cni_fail_rn(&a->r->err, RN_CNI_ERR_INTERNAL, &e, "probes");
	return 0;
}

static int probe(struct add *a)
{
	struct cni_req *r = a->r;

	if (!cni_link_speaks_arp(&r->conf))
		rn_debug("ipvlan %s mode does no ARP/NDP: no conflict or gateway check",
			 cni_submode_name(&r->conf));
	if (!wants_probes(&r->conf))
		return 0;
	if (link_up(a) || open_prober(a))
		return -1;
	return run_checks(a);
}

static int configure(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_error e = { 0 };

	for (unsigned int i = 0; i < a->att.n_addrs; i++)
		if (cni_addr_add(a->pod, a->att.ifindex, &a->att.addrs[i].address, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "%s", a->att.ifname);
	/* without the checks, the kernel announces the addresses when the link
	 * comes up (link_settings) */
	if (wants_probes(&r->conf))
		cni_announce(&a->prober, &a->att);
	else if (link_up(a))
		return -1;
	cni_fault_point("addressed");
	if (r->conf.policy.enabled &&
	    cni_table_pick(a->pod, r->conf.policy.table_base, &a->att.table, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "policy routing");
	if (cni_plan_routes(&r->conf, &a->att, &r->err))
		return -1;
	for (unsigned int i = 0; i < a->att.n_routes; i++)
		if (cni_route_add(a->pod, a->att.ifindex, &a->att.routes[i], &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "%s", a->att.ifname);
	for (unsigned int i = 0; a->att.table && i < a->att.n_addrs; i++)
		if (cni_rule_add(a->pod, &a->att.addrs[i].address.addr, a->att.table,
				 r->conf.policy.rule_priority, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "%s", a->att.ifname);
	return 0;
}

static int do_register(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_pod_spec s = {
		.dscp = r->conf.dscp,
		.ip_keyed = r->conf.mode == CNI_MODE_IPVLAN,
	};
	struct rn_error e = { 0 };
	int rc;

	snprintf(s.ns, sizeof(s.ns), "%s", r->env.pod_namespace);
	snprintf(s.name, sizeof(s.name), "%s", r->env.pod_name);
	snprintf(s.container_id, sizeof(s.container_id), "%s", r->env.container_id);
	snprintf(s.ifname, sizeof(s.ifname), "%s", r->env.ifname);
	snprintf(s.master, sizeof(s.master), "%s", a->master.ifname);
	memcpy(s.mac, a->att.mac, 6);
	for (unsigned int i = 0; i < a->att.n_addrs; i++)
		s.ips[s.n_ips++] = a->att.addrs[i].address.addr;
	rc = cni_datapath_register(a->cfg.bpf.pin_dir, &s, &a->slot, &e);
	if (rc < 0)
		return cni_fail_rn(&r->err, RN_CNI_ERR_DATAPATH, &e, "data-path registration");
	if (rc == 1)
		rn_warn("%s/%s: %s: attached without per-pod accounting, marking or policy "
			"(degraded)", r->env.container_id, r->env.ifname, e.msg);
	return 0;
}

/* The master's tc_mode (auto for a discovered master). */
static enum rn_tc_mode master_tc_mode(const struct add *a)
{
	for (int i = 0; i < a->cfg.n_masters; i++)
		if (!strcmp(a->cfg.masters[i].ifname, a->master.ifname))
			return a->cfg.masters[i].tc_mode;
	return RN_TC_MODE_AUTO;
}

/* The per-pod program on the pod's own interface: the source policy where
 * the pod cannot walk around it (forged MACs, frames macvlan or ipvlan
 * hand to siblings without passing the master). */
static int guard(struct add *a)
{
	struct cni_req *r = a->r;
	struct rn_error e = { 0 };
	int rc = cni_datapath_guard(a->cfg.bpf.pin_dir, &a->ns, a->pod, a->slot, a->att.ifindex,
				    master_tc_mode(a), &e);

	if (rc < 0)
		return cni_fail_rn(&r->err, RN_CNI_ERR_DATAPATH, &e, "per-pod program");
	if (rc == 1)
		rn_warn("%s/%s: no per-pod program: %s (the master's programs police alone)",
			r->env.container_id, r->env.ifname, e.msg);
	return 0;
}

/* with a device from a claim: what the pod got, for the claim's status */
static int record_network(struct add *a)
{
	if (cni_dra_network_record(a->r, &a->cfg, &a->att))
		return -1;
	a->networked = a->r->conf.dra_claim_uid[0] != '\0';
	return 0;
}

static void forget_network(struct add *a)
{
	struct rn_error e = { 0 };

	if (a->networked && cni_dra_network_forget(&a->cfg, a->r->conf.name,
						   a->r->env.container_id, a->r->env.ifname, &e))
		rn_warn("rollback: %s", e.msg);
}

static void rollback(struct add *a)
{
	struct cni_req *r = a->r;
	struct cni_teardown t = {
		.network = r->conf.name, .container_id = r->env.container_id,
		.ifname = r->env.ifname, .netns = r->env.netns, .pin_dir = a->cfg.bpf.pin_dir,
		.state_dir = r->conf.state_dir, .ipam = a->ipam,
	};
	struct cni_err later = { 0 };
	struct rn_error e = { 0 };

	cni_record_wait(&a->first, &e);	/* its thread writes nothing once joined */
	forget_network(a);
	for (unsigned int i = 0; i < a->att.n_addrs; i++)
		cni_teardown_add_addr(&t, &a->att.addrs[i].address.addr);
	if (a->pod && cni_teardown_pod(a->pod, &t, &e))
		rn_warn("rollback: %s", e.msg);
	if (!a->recorded)
		return;		/* nothing was created before the record */
	if (!a->ipam) {
		/* the store never opened: nothing was allocated, nothing
		 * registered; only the record is to go */
		if (cni_record_remove(r->conf.state_dir, r->conf.name, r->env.container_id,
				      r->env.ifname, &e))
			rn_warn("rollback: %s", e.msg);
		return;
	}
	if (a->vf.held &&
	    cni_vf_restore(&a->cfg, r->conf.state_dir, &a->vf.hold, r->env.netns, true, &e)) {
		/* the record stays: DEL or GC restores the VF from its hold */
		rn_warn("rollback incomplete (DEL or GC will finish it): VF %s: %s",
			a->vf.hold.pci, e.msg);
		if (r->err.code == CNI_ERR_NO_CONTAINER)
			r->err.code = RN_CNI_ERR_NETLINK;
		return;
	}
	if (cni_teardown_host(&t, &later)) {
		rn_warn("rollback incomplete (DEL or GC will finish it): %s", later.msg);
		/* the runtime must call DEL: do not answer "nothing to clean up" */
		if (r->err.code == CNI_ERR_NO_CONTAINER)
			r->err.code = later.code;
	}
}

static void cleanup(struct add *a)
{
	struct rn_error e = { 0 };

	cni_record_wait(&a->first, &e);
	cni_record_unlock(a->r->conf.state_dir, a->r->conf.name, a->r->env.container_id,
			  a->r->env.ifname, a->lock_fd);
	cni_vf_unlock(&a->vf);
	cni_prober_close(&a->prober);
	cni_prechecked_free(&a->pre);
	if (a->host)
		nl_socket_free(a->host);
	if (a->pod)
		nl_socket_free(a->pod);
	if (a->ns.pod_fd >= 0 || a->ns.host_fd >= 0)
		cni_netns_close(&a->ns);
	rn_ipam_close(a->ipam);
	rn_config_free(&a->cfg);
}

int cni_cmd_add(struct cni_req *r, json_t **result)
{
	struct add a = { .r = r, .ns = { .host_fd = -1, .pod_fd = -1 },
			 .prober = { .arp_fd = -1, .nd_fd = -1 }, .lock_fd = -1, .slot = -1,
			 .vf = { .lock_fd = -1 }, .first = { .fd = -1 } };
	int rc = -1;

	*result = NULL;
	rn_config_defaults(&a.cfg);
	cni_fault_point("start");
	if (prepare(&a) || lock_attachment(&a))
		goto out;
	cni_fault_point("prepared");
	if (write_record(&a, false))
		goto fail;
	/* while the record is synced: opening the store, and the link and its
	 * sysctls (in the pod's netns, they go with the netns); a VF (host
	 * state) and an allocation after */
	if (open_store(&a) ||
	    (r->conf.mode != CNI_MODE_SRIOV && (create_link(&a) || link_settings(&a))))
		goto fail;
	if (record_durable(&a))
		goto fail;
	cni_fault_point("recorded");
	prefer_prechecked(&a);
	if (allocate(&a))
		goto fail;
	cni_fault_point("allocated");
	if (r->conf.mode == CNI_MODE_SRIOV && (take_vf(&a) || link_settings(&a)))
		goto fail;
	cni_fault_point("renamed");
	if (probe(&a))
		goto fail;
	cni_fault_point("checked");
	if (configure(&a))
		goto fail;
	cni_fault_point("routed");
	if (do_register(&a))
		goto fail;
	cni_fault_point("registered");
	if (guard(&a))
		goto fail;
	cni_fault_point("guarded");
	if (record_network(&a))
		goto fail;
	cni_fault_point("networked");
	/* the runtime may have deleted the netns meanwhile: our fd kept it alive,
	 * but nobody can reach what we built there */
	if (!cni_netns_still_there(&a.ns)) {
		cni_fail(&r->err, CNI_ERR_NO_CONTAINER, "CNI_NETNS %s vanished during ADD; "
			 "everything was rolled back", r->env.netns);
		goto fail;
	}
	if (r->conf.mode == CNI_MODE_SRIOV && cni_vf_commit(r, &a.vf))
		goto fail;
	if (write_record(&a, true))
		goto fail;
	*result = cni_result_build(&r->conf, &a.att, &r->err);
	if (!*result)
		goto fail;
	rc = 0;
	goto out;
fail:
	rollback(&a);
out:
	cleanup(&a);
	return rc;
}
