// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "datapath/datapath.h"
#include "discover.h"
#include "log.h"
#include "masters.h"
#include "netdev.h"

static int pick_slot(const struct rn_maps *m, const char *ifname)
{
	struct rn_master ms;
	int free_slot = -1;

	for (__u32 s = 0; s < RN_MAX_MASTERS; s++) {
		if (rn_master_get(m, s, &ms))
			continue;
		if ((ms.flags & RN_MASTER_F_IN_USE) && !strncmp(ms.ifname, ifname, RN_IFNAMSIZ))
			return (int)s;
		if (!(ms.flags & RN_MASTER_F_IN_USE) && free_slot < 0)
			free_slot = (int)s;
	}
	return free_slot >= 0 ? free_slot : -ENOSPC;
}

/* auto means native XDP where the driver has it, skb mode otherwise; but
 * on veth both native and generic XDP copy every GSO skb into an XDP
 * buffer (halving TCP throughput on the benchmark), so there the rx
 * accounting is left to tc ingress, which sees the skb as it is. An
 * explicit "native" or "skb" still attaches XDP to a veth. */
static enum rn_xdp_mode effective_xdp_mode(const struct rn_master_config *mc,
					   const struct rn_netdev *nd)
{
	if (mc->xdp_mode == RN_XDP_MODE_AUTO && !strcmp(nd->kind, "veth"))
		return RN_XDP_MODE_OFF;
	return mc->xdp_mode;
}

static void detach_all(const struct rn_config *c, const struct rn_master *ms)
{
	struct rn_netdev nd;
	struct rn_error e = { 0 };

	/* a vanished device took its attachments with it */
	if (rn_netdev_get(NULL, (int)ms->ifindex, &nd, NULL) || strcmp(nd.ifname, ms->ifname)) {
		rn_tc_detach(c->bpf.pin_dir, (int)ms->ifindex, false, NULL);
		return;
	}
	if (rn_xdp_detach((int)ms->ifindex, &e))
		rn_warn("%s: %s", ms->ifname, e.msg);
	if (rn_tc_detach(c->bpf.pin_dir, (int)ms->ifindex, ms->flags & RN_MASTER_F_OWN_QDISC, &e))
		rn_warn("%s: %s", ms->ifname, e.msg);
}

static int setup_one(const struct rn_config *c, const struct rn_maps *m,
		     const struct rn_master_config *mc)
{
	enum rn_tc_state tc_e = RN_TC_NONE, tc_i = RN_TC_NONE;
	enum rn_xdp_state xdp = RN_XDP_NONE;
	struct rn_master ms, old;
	struct rn_error e = { 0 };
	struct rn_netdev nd;
	enum rn_xdp_mode xdp_mode;
	bool own_qdisc = false;
	int slot;
	__u32 key;

	if (rn_netdev_get(mc->ifname, 0, &nd, &e)) {
		rn_warn("master %s: %s", mc->ifname, e.msg);
		return -ENODEV;
	}
	slot = pick_slot(m, mc->ifname);
	if (slot < 0) {
		rn_err("master %s: all %d master slots are in use", mc->ifname, RN_MAX_MASTERS);
		return slot;
	}
	key = (__u32)slot;
	if (rn_master_get(m, key, &old))
		memset(&old, 0, sizeof(old));
	if ((old.flags & RN_MASTER_F_IN_USE) && old.ifindex != (__u32)nd.ifindex) {
		rn_info("master %s: ifindex changed %u -> %d, reattaching", mc->ifname,
			old.ifindex, nd.ifindex);
		rn_tc_detach(c->bpf.pin_dir, (int)old.ifindex, false, NULL);
		old.flags &= (__u8)~RN_MASTER_F_OWN_QDISC;
		old.xdp = old.tc = 0;
	}

	memset(&ms, 0, sizeof(ms));
	ms.ifindex = (__u32)nd.ifindex;
	ms.mtu = nd.mtu;
	ms.policy = (__u8)mc->policy;
	ms.ecn = (__u8)c->qos.ecn;
	ms.dscp_roce = (__u8)c->qos.roce_dscp;
	ms.dscp_cnp = (__u8)c->qos.cnp_dscp;
	ms.xdp = old.xdp;
	ms.tc = old.tc;
	ms.xdp_gen = old.xdp_gen;
	ms.flags = (__u8)(RN_MASTER_F_IN_USE | (old.flags & (RN_MASTER_F_IP_KEYED | RN_MASTER_F_OWN_QDISC)));
	memcpy(ms.ifname, nd.ifname, sizeof(ms.ifname));
	/* config first: the programs read it from their first packet on */
	if (bpf_map_update_elem(m->masters, &key, &ms, BPF_ANY)) {
		rn_err("master %s: write config: %s", mc->ifname, strerror(errno));
		return -errno;
	}

	if (rn_tc_attach(c->bpf.pin_dir, nd.ifindex, key, false, mc->tc_mode, &tc_e, &own_qdisc, &e))
		rn_err("master %s: tc egress: %s", mc->ifname, e.msg);
	if (rn_tc_attach(c->bpf.pin_dir, nd.ifindex, key, true, mc->tc_mode, &tc_i, &own_qdisc, &e))
		rn_err("master %s: tc ingress: %s", mc->ifname, e.msg);
	xdp_mode = effective_xdp_mode(mc, &nd);
	if (xdp_mode == RN_XDP_MODE_OFF) {
		/* rx accounting moves to tc ingress; ours must not count twice */
		if (rn_xdp_detach(nd.ifindex, &e))
			rn_err("master %s: %s", mc->ifname, e.msg);
	} else if (rn_xdp_attach(c->bpf.pin_dir, nd.ifindex, key, xdp_mode, &ms.xdp_gen,
					&xdp, &e)) {
		rn_err("master %s: %s", mc->ifname, e.msg);
	}

	ms.xdp = (__u8)xdp;
	ms.tc = (__u8)(tc_e == tc_i ? tc_e : RN_TC_NONE);
	if (tc_e != tc_i)
		rn_warn("master %s: tc egress and ingress attached differently", mc->ifname);
	if (own_qdisc)
		ms.flags |= RN_MASTER_F_OWN_QDISC;
	if (memcmp(&ms, &old, sizeof(ms)))
		rn_info("master %s (ifindex %d, slot %d): xdp %s, tc %s, policy %s, mtu %u",
			ms.ifname, nd.ifindex, slot, xdp == RN_XDP_NATIVE ? "native" :
			xdp == RN_XDP_SKB ? "skb" : xdp_mode == RN_XDP_MODE_OFF &&
			mc->xdp_mode == RN_XDP_MODE_AUTO ? "none (veth: rx counted in tc ingress)" :
			"none", tc_e == RN_TC_TCX ? "tcx" :
			tc_e == RN_TC_CLSACT ? "clsact" : "none", rn_policy_names[mc->policy], nd.mtu);
	if (bpf_map_update_elem(m->masters, &key, &ms, BPF_ANY))
		return -errno;
	return xdp != RN_XDP_NONE || tc_e != RN_TC_NONE ? 0 : -EIO;
}

static void drop_pods_of(const struct rn_maps *m, __u32 mslot)
{
	struct rn_pod_entry *ents;
	int n;

	if (rn_registry_list(m, &ents, &n, NULL))
		return;
	for (int i = 0; i < n; i++) {
		if (ents[i].pod.master != mslot)
			continue;
		rn_info("unregistering %s/%s %s: its master %s is gone from the config",
			ents[i].meta.ns, ents[i].meta.name, ents[i].meta.ifname, ents[i].master);
		rn_registry_remove_slot(m, ents[i].slot);
	}
	free(ents);
}

static void reset_counters(const struct rn_maps *m, __u32 slot)
{
	struct rn_master_retired ret;
	void *zero = calloc((size_t)m->ncpus, sizeof(struct rn_master_counters));

	memset(&ret, 0, sizeof(ret));
	bpf_map_update_elem(m->mst_ret, &slot, &ret, BPF_ANY);
	if (zero)
		bpf_map_update_elem(m->mst_ctr, &slot, zero, BPF_ANY);
	free(zero);
}

static void release_slot(const struct rn_config *c, const struct rn_maps *m, __u32 slot,
			 const struct rn_master *ms)
{
	struct rn_master zero;
	int lock;

	detach_all(c, ms);
	/* under the registry lock: a CNI ADD must not register a pod on this
	 * slot between the listing and the reset */
	lock = rn_pin_lock_registry(c->bpf.pin_dir, NULL);
	drop_pods_of(m, slot);
	memset(&zero, 0, sizeof(zero));
	bpf_map_update_elem(m->masters, &slot, &zero, BPF_ANY);
	/* a master that takes this slot later starts from zero */
	reset_counters(m, slot);
	rn_pin_unlock(lock);
}

int rn_masters_reconcile(const struct rn_config *c, const struct rn_maps *m)
{
	return rn_masters_reconcile_counted(c, m, NULL);
}

int rn_masters_reconcile_counted(const struct rn_config *c, const struct rn_maps *m, int *n_wanted)
{
	struct rn_master_config auto_cfg[RN_MAX_MASTERS];
	const struct rn_master_config *list = c->masters;
	char names[RN_MAX_MASTERS][RN_IFNAMSIZ];
	struct rn_master ms;
	int n = c->n_masters, ok = 0;
	bool discovered = n == 0;

	if (discovered) {
		n = rn_discover_roce_netdevs_config(c, names, RN_MAX_MASTERS);
		if (n < 0)	/* discover.c logged why; keep the masters as they are */
			n = 0;
		for (int i = 0; i < n; i++) {
			memset(&auto_cfg[i], 0, sizeof(auto_cfg[i]));
			memcpy(auto_cfg[i].ifname, names[i], RN_IFNAMSIZ);
			auto_cfg[i].policy = c->default_policy;
			auto_cfg[i].xdp_mode = RN_XDP_MODE_AUTO;
			auto_cfg[i].tc_mode = RN_TC_MODE_AUTO;
		}
		list = auto_cfg;
	}
	/* Masters no longer configured give their slot back (and their pods'
	 * registrations). Discovery never takes a master away: a port missing
	 * from one look (driver reset, netlink hiccup) would otherwise lose
	 * every pod registered on it. */
	for (__u32 s = 0; s < RN_MAX_MASTERS && !discovered; s++) {
		bool wanted = false;

		if (rn_master_get(m, s, &ms) || !(ms.flags & RN_MASTER_F_IN_USE))
			continue;
		for (int i = 0; i < n; i++)
			wanted |= !strncmp(list[i].ifname, ms.ifname, RN_IFNAMSIZ);
		if (!wanted) {
			rn_info("master %s: no longer configured, detaching", ms.ifname);
			release_slot(c, m, s, &ms);
		}
	}
	for (int i = 0; i < n; i++)
		if (!setup_one(c, m, &list[i]))
			ok++;
	if (n_wanted)
		*n_wanted = n;
	return ok;
}

int rn_masters_teardown(const struct rn_config *c, const struct rn_maps *m)
{
	struct rn_master ms;

	for (__u32 s = 0; s < RN_MAX_MASTERS; s++) {
		if (rn_master_get(m, s, &ms) || !(ms.flags & RN_MASTER_F_IN_USE))
			continue;
		ms.ifname[RN_IFNAMSIZ - 1] = '\0';
		rn_info("master %s: detaching", ms.ifname);
		release_slot(c, m, s, &ms);
	}
	return 0;
}

int rn_masters_detach_unknown(const struct rn_config *c)
{
	struct if_nameindex *ifs = if_nameindex(), *i;
	struct rn_error e = { 0 };
	int n = 0;

	if (!ifs) {
		rn_err("list network interfaces: %s", strerror(errno));
		return -errno;
	}
	for (i = ifs; i->if_index; i++) {
		/* by name (and handle/priority for clsact, pin for tcx): nothing
		 * but an rdmanet program is touched; a clsact qdisc is kept, as
		 * nobody knows any more whether we created it */
		if (rn_xdp_detach((int)i->if_index, &e))
			rn_warn("%s: %s", i->if_name, e.msg);
		if (rn_tc_detach(c->bpf.pin_dir, (int)i->if_index, false, &e))
			rn_warn("%s: %s", i->if_name, e.msg);
		n++;
	}
	if_freenameindex(ifs);
	return n;
}
