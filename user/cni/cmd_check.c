// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CHECK: the attachment is still what ADD made of it — link, type, mode,
 * master, MAC, addresses (and the store still holds them for it), the
 * routes and rules ADD planned, and its data-path registration. Routes
 * other plugins of the chain added are not ours to judge. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/socket.h>

#include "addr.h"
#include "attachment.h"
#include "cmd.h"
#include "vf.h"
#include "pod_datapath.h"
#include "link.h"
#include "log.h"
#include "dra_claim.h"
#include "master_pick.h"
#include "netns.h"
#include "node_config.h"
#include "prev_result.h"
#include "route_plan.h"
#include "routing.h"

struct check {
	struct cni_req *r;
	struct cni_prev *prev;
	int idx;			/* our interface in prev */
	struct rn_config cfg;
	struct rn_ipam *ipam;
	struct rn_netdev master;
	struct cni_netns ns;
	struct nl_sock *pod;
	struct cni_link_info li;
	struct cni_attachment att;
	struct rn_sriov_hold hold;	/* mode sriov */
};

#define MISMATCH(r, ...) cni_fail(&(r)->err, RN_CNI_ERR_CHECK, __VA_ARGS__)

/* sriov: the VF netdev is the pod interface (physical, our alias, the
 * VF's own bus address, the network's MTU), the VF's RDMA device is in the
 * pod's netns on that interface and not in the host's, and its settings
 * through the PF are what the network asks. */
static int check_vf(struct check *c)
{
	struct cni_req *r = c->r;
	const struct cni_prev_if *pi = &c->prev->ifs[c->idx];
	const struct rn_sriov_hold *h = &c->hold;
	char alias[CNI_ALIAS_MAX], why[256];
	struct rn_vf_admin now;
	struct rn_error e = { 0 };
	int rc = cni_link_get(c->pod, r->env.ifname, &c->li, &e);

	if (rc == -ENODEV)
		return MISMATCH(r, "%s is missing from %s", r->env.ifname, r->env.netns);
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
	cni_link_alias(r->env.container_id, alias);
	if (c->li.kind[0] || strcmp(c->li.alias, alias))
		return MISMATCH(r, "%s is not the VF %s this attachment took", r->env.ifname,
				h->pci);
	if (pi->has_mac && memcmp(pi->mac, c->li.mac, 6))
		return MISMATCH(r, "%s's MAC differs from the one ADD reported", r->env.ifname);
	if (!c->li.up)
		return MISMATCH(r, "%s is down", r->env.ifname);
	if (r->conf.mtu && c->li.mtu != r->conf.mtu)
		return MISMATCH(r, "%s's MTU is %u, the network asks %u", r->env.ifname, c->li.mtu,
				r->conf.mtu);
	if (!h->complete)
		return MISMATCH(r, "VF %s: its ADD never finished", h->pci);
	if (cni_vf_in_pod(&c->ns, h, r->env.ifname, why, sizeof(why), &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
	if (why[0])
		return MISMATCH(r, "%s", why);
	if (rn_sriov_vf_admin_get(h->pf_ifname, h->vf, &now, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
	if (r->conf.has_mac && memcmp(now.mac, r->conf.vf_mac, 6))
		return MISMATCH(r, "VF %s: admin MAC differs from the network's", h->pci);
	if (r->conf.has_vlan && (now.vlan != r->conf.vlan || now.qos != r->conf.vlan_qos ||
				 (r->conf.vlan && now.vlan_proto != r->conf.vlan_proto)))
		return MISMATCH(r, "VF %s: vlan %u qos %u, the network asks vlan %u qos %u", h->pci,
				now.vlan, now.qos, r->conf.vlan, r->conf.vlan_qos);
	if (r->conf.has_spoofchk && now.spoofchk >= 0 && now.spoofchk != r->conf.spoofchk)
		return MISMATCH(r, "VF %s: spoofchk differs from the network's", h->pci);
	if (r->conf.has_trust && now.trust >= 0 && now.trust != r->conf.trust)
		return MISMATCH(r, "VF %s: trust differs from the network's", h->pci);
	if (r->conf.has_link_state && now.link_state >= 0 && now.link_state != r->conf.link_state)
		return MISMATCH(r, "VF %s: link_state differs from the network's", h->pci);
	if (r->conf.has_rate && (now.min_tx_rate != r->conf.min_tx_rate ||
				 now.max_tx_rate != r->conf.max_tx_rate))
		return MISMATCH(r, "VF %s: tx rates differ from the network's", h->pci);
	return 0;
}

static int check_link(struct check *c)
{
	struct cni_req *r = c->r;
	const struct cni_prev_if *pi = &c->prev->ifs[c->idx];
	int want = r->conf.mode == CNI_MODE_IPVLAN ? r->conf.ipvlan_mode : r->conf.macvlan_mode;
	struct rn_error e = { 0 };
	int rc;

	if (r->conf.mode == CNI_MODE_SRIOV)
		return check_vf(c);
	rc = cni_link_get(c->pod, r->env.ifname, &c->li, &e);
	if (rc == -ENODEV)
		return MISMATCH(r, "%s is missing from %s", r->env.ifname, r->env.netns);
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
	if (strcmp(c->li.kind, cni_mode_names[r->conf.mode]))
		return MISMATCH(r, "%s is a %s link, not %s", r->env.ifname,
				c->li.kind[0] ? c->li.kind : "physical",
				cni_mode_names[r->conf.mode]);
	if (c->li.submode != want)
		return MISMATCH(r, "%s is not in %s mode %s", r->env.ifname,
				cni_mode_names[r->conf.mode], cni_submode_name(&r->conf));
	if (c->li.parent_ifindex != c->master.ifindex)
		return MISMATCH(r, "%s is not a child of %s", r->env.ifname, c->master.ifname);
	if (pi->has_mac && memcmp(pi->mac, c->li.mac, 6))
		return MISMATCH(r, "%s's MAC differs from the one ADD reported", r->env.ifname);
	if (!c->li.up)
		return MISMATCH(r, "%s is down", r->env.ifname);
	return 0;
}

static bool prev_has(const struct check *c, const struct rn_prefix *p)
{
	for (unsigned int i = 0; i < c->prev->n_ips; i++) {
		const struct cni_prev_ip *ip = &c->prev->ips[i];

		if (ip->iface == c->idx && ip->address.len == p->len &&
		    rn_addr_equal(&ip->address.addr, &p->addr))
			return true;
	}
	return false;
}

static int check_addresses(struct check *c)
{
	struct cni_req *r = c->r;
	char buf[RN_PREFIX_STRLEN];
	struct rn_ipam_result held;
	struct rn_error e = { 0 };
	unsigned int in_prev = 0;

	if (rn_ipam_held(c->ipam, r->env.container_id, r->env.ifname, &held, &e))
		return cni_fail_rn(&r->err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e, "IPAM");
	memcpy(c->att.addrs, held.addrs, sizeof(held.addrs));
	c->att.n_addrs = held.n;
	for (unsigned int i = 0; i < c->prev->n_ips; i++)
		in_prev += c->prev->ips[i].iface == c->idx;
	if (in_prev != c->att.n_addrs)
		return MISMATCH(r, "prevResult lists %u addresses on %s, the IPAM store holds %u "
				"for it", in_prev, r->env.ifname, c->att.n_addrs);
	for (unsigned int i = 0; i < c->att.n_addrs; i++) {
		const struct rn_prefix *p = &c->att.addrs[i].address;
		bool found;

		rn_prefix_format(p, buf);
		if (!prev_has(c, p))
			return MISMATCH(r, "the IPAM store holds %s for %s, prevResult does "
					"not list it", buf, r->env.ifname);
		if (cni_addr_present(c->pod, c->li.ifindex, p, &found, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
		if (!found)
			return MISMATCH(r, "%s is missing from %s", buf, r->env.ifname);
	}
	return 0;
}

static int check_routing(struct check *c)
{
	struct cni_req *r = c->r;
	char buf[RN_PREFIX_STRLEN];
	struct rn_error e = { 0 };

	for (unsigned int i = 0; r->conf.policy.enabled && i < c->att.n_addrs; i++) {
		const struct rn_addr *a = &c->att.addrs[i].address.addr;
		uint32_t t;

		if (cni_rule_table_of(c->pod, a, &t, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
		if (!t)
			return MISMATCH(r, "no policy rule from %s", rn_addr_format(a, buf));
		if (c->att.table && t != c->att.table)
			return MISMATCH(r, "the rules of %s's addresses look up different tables",
					r->env.ifname);
		c->att.table = t;
	}
	if (cni_plan_routes(&r->conf, &c->att, &r->err))
		return -1;
	for (unsigned int i = 0; i < c->att.n_routes; i++) {
		const struct cni_att_route *rt = &c->att.routes[i];
		bool found;

		if (cni_route_present(c->pod, c->li.ifindex, rt, &found, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "CHECK");
		if (!found)
			return MISMATCH(r, "route %s in table %u via %s is missing",
					rn_prefix_format(&rt->dst, buf),
					rt->table ? rt->table : 254, r->env.ifname);
	}
	return 0;
}

static bool pod_has_ip(const struct rn_pod *p, const struct rn_addr *a)
{
	for (int i = 0; i < p->n_ipv4 && i < RN_POD_MAX_IPV4 && a->family == AF_INET; i++)
		if (!memcmp(&p->ipv4[i], a->b, 4))
			return true;
	for (int i = 0; i < p->n_ipv6 && i < RN_POD_MAX_IPV6 && a->family == AF_INET6; i++)
		if (!memcmp(p->ipv6[i], a->b, 16))
			return true;
	return false;
}

static int check_registration(struct check *c)
{
	struct cni_req *r = c->r;
	struct rn_pod_entry ent;
	struct rn_error e = { 0 };
	int rc;

	if (!cni_datapath_master_attached(c->cfg.bpf.pin_dir, c->master.ifname)) {
		rn_warn("CHECK: rdmanetd's data path is not on %s (maps at %s): not registered "
			"(degraded)", c->master.ifname, c->cfg.bpf.pin_dir);
		return 0;
	}
	rc = cni_datapath_lookup(c->cfg.bpf.pin_dir, r->env.container_id, r->env.ifname, &ent, &e);
	if (rc == -ENOENT)
		return MISMATCH(r, "%s/%s is not registered in the data path", r->env.container_id,
				r->env.ifname);
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_DATAPATH, &e, "CHECK");
	if (strcmp(ent.master, c->master.ifname))
		return MISMATCH(r, "registered on master %s, not %s", ent.master, c->master.ifname);
	if (!(ent.pod.flags & RN_POD_F_IP_KEYED) && memcmp(ent.pod.mac, c->li.mac, 6))
		return MISMATCH(r, "registered with another MAC than %s's", r->env.ifname);
	if ((unsigned int)(ent.pod.n_ipv4 + ent.pod.n_ipv6) != c->att.n_addrs)
		return MISMATCH(r, "registered with %d addresses, holds %u",
				ent.pod.n_ipv4 + ent.pod.n_ipv6, c->att.n_addrs);
	for (unsigned int i = 0; i < c->att.n_addrs; i++)
		if (!pod_has_ip(&ent.pod, &c->att.addrs[i].address.addr))
			return MISMATCH(r, "registered without one of its addresses");
	return 0;
}

static int prepare(struct check *c)
{
	struct cni_req *r = c->r;
	struct rn_error e = { 0 };
	int rc;

	if (!r->conf.prev_result)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: CHECK needs prevResult");
	c->prev = calloc(1, sizeof(*c->prev));
	if (!c->prev)
		return cni_fail(&r->err, RN_CNI_ERR_INTERNAL, "out of memory");
	if (cni_prev_parse(r->conf.prev_result, c->prev, &r->err))
		return -1;
	c->idx = cni_prev_find_if(c->prev, r->env.ifname, r->env.netns);
	if (c->idx < 0)
		return MISMATCH(r, "prevResult has no interface %s in %s", r->env.ifname,
				r->env.netns);
	/* the node config names the state dir the VF holds are in */
	if (cni_node_load(r, &c->cfg) || cni_dra_take(r, &c->cfg))
		return -1;
	if (r->conf.mode == CNI_MODE_SRIOV) {
		if (!cni_vf_find_hold(r->conf.state_dir, r->env.container_id, r->env.ifname,
				      &c->hold))
			return MISMATCH(r, "no VF is held for %s/%s", r->env.container_id,
					r->env.ifname);
		if (rn_netdev_get(c->hold.pf_ifname, 0, &c->master, &e))
			return cni_fail_rn(&r->err, RN_CNI_ERR_MASTER, &e, "PF");
	}
	if (cni_ipam_open(&c->cfg, &c->ipam, &r->err) ||
	    (r->conf.mode != CNI_MODE_SRIOV &&
	     cni_master_pick(&r->conf, &c->cfg, c->ipam, &c->master, &r->err)))
		return -1;
	rc = cni_netns_open(&c->ns, r->env.netns, &e);
	if (rc == -ENOENT)
		return cni_fail(&r->err, CNI_ERR_NO_CONTAINER, "CNI_NETNS %s does not exist",
				r->env.netns);
	if (rc)
		return cni_fail_rn(&r->err, CNI_ERR_ENV, &e, "CNI_NETNS");
	c->pod = cni_nl_open(&c->ns, &e);
	if (!c->pod)
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "netlink");
	return 0;
}

int cni_cmd_check(struct cni_req *r)
{
	struct check c = { .r = r, .ns = { .host_fd = -1, .pod_fd = -1 } };
	int rc;

	rn_config_defaults(&c.cfg);
	rc = prepare(&c) || check_link(&c) || check_addresses(&c) || check_routing(&c) ||
	     check_registration(&c) ? -1 : 0;
	if (c.pod)
		nl_socket_free(c.pod);
	if (c.ns.pod_fd >= 0 || c.ns.host_fd >= 0)
		cni_netns_close(&c.ns);
	rn_ipam_close(c.ipam);
	rn_config_free(&c.cfg);
	free(c.prev);
	return rc;
}
