// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Giving a VF back in the host netns (the CNI's DEL/GC/rollback after it
 * moved the devices back, and the agent's leak sweep after the kernel did):
 * every VF setting that differs from the hold's record goes back through
 * the PF, the VF netdev (found by PCI address) gets its name, MTU and MAC
 * back and stays down, the hold goes. The sweep: holds whose netns no
 * longer exists are such VFs. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>
#include <linux/magic.h>
#include <sys/vfs.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "netdev.h"
#include "sriov/sriov.h"

static struct rn_sriov_counters counters;

const struct rn_sriov_counters *rn_sriov_counters(void)
{
	return &counters;
}

void rn_sriov_count_guids_fixed(unsigned int n)
{
	counters.guids_fixed += n;
}

static int restore_admin(const struct rn_sriov_hold *h, struct rn_error *e)
{
	struct rn_vf_admin now;
	struct rn_vf_settings s;
	const struct rn_vf_admin *o = &h->orig_admin;

	if (!o->valid)
		return 0;
	if (rn_sriov_vf_admin_get(h->pf_ifname, h->vf, &now, e))
		return e->code;
	/* only what differs: a driver is not asked to "restore" a setting it
	 * does not support (igb: link state, min_tx_rate) */
	rn_sriov_settings_from_admin(o, &s);
	s.has_mac = memcmp(now.mac, o->mac, 6) != 0;
	s.has_vlan = now.vlan != o->vlan || now.qos != o->qos ||
		     (o->vlan && now.vlan_proto != o->vlan_proto);
	s.has_spoofchk = o->spoofchk >= 0 && now.spoofchk != o->spoofchk;
	s.has_trust = o->trust >= 0 && now.trust != o->trust;
	s.has_link_state = o->link_state >= 0 && now.link_state != o->link_state;
	s.has_rate = now.min_tx_rate != o->min_tx_rate || now.max_tx_rate != o->max_tx_rate;
	return rn_sriov_vf_apply(h->pf_ifname, h->vf, &s, e);
}

static int link_set(struct nl_sock *sk, int ifindex, const char *name, const char *alias,
		    unsigned int mtu, const uint8_t *mac, struct rn_error *e)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *chg = rtnl_link_alloc();
	struct nl_addr *a = NULL;
	int err = -NLE_NOMEM;

	if (orig && chg) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_unset_flags(chg, IFF_UP);
		if (name)
			rtnl_link_set_name(chg, name);
		if (alias)
			rtnl_link_set_ifalias(chg, alias);
		if (mtu)
			rtnl_link_set_mtu(chg, mtu);
		/* AF_UNSPEC: an AF_LLC address would make libnl send the
		 * request with ifi_family AF_LLC, which rtnetlink refuses */
		if (mac && (a = nl_addr_build(AF_UNSPEC, mac, 6)))
			rtnl_link_set_addr(chg, a);
		err = rtnl_link_change(sk, orig, chg, 0);
	}
	nl_addr_put(a);
	rtnl_link_put(orig);
	rtnl_link_put(chg);
	if (err < 0)
		return rn_fail(e, err == -NLE_EXIST ? -EEXIST : -EIO, "ifindex %d: %s", ifindex,
			       nl_geterror(err));
	return 0;
}

int rn_sriov_restore_host(const char *state_dir, const struct rn_rdma_roots *roots,
			  const struct rn_sriov_hold *h, struct rn_error *e)
{
	struct rn_sriov_host host;
	const struct rn_sriov_vf *vf;
	char name[RN_IFNAMSIZ] = "";
	struct rn_netdev nd;
	struct nl_sock *sk;
	int rc;

	rc = restore_admin(h, e);
	if (rc)
		return rc;
	if (!rn_sriov_discover(&host, roots, false, NULL)) {
		vf = rn_sriov_find_vf(&host, h->pci, NULL);
		if (vf)
			snprintf(name, sizeof(name), "%s", vf->netdev);
		rn_sriov_host_free(&host);
	}
	if (name[0] && !rn_netdev_get(name, 0, &nd, NULL)) {
		sk = nl_socket_alloc();
		if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
			if (sk)
				nl_socket_free(sk);
			return rn_fail(e, -EIO, "netlink: cannot connect");
		}
		/* the name first (down), then MTU and MAC */
		rc = link_set(sk, nd.ifindex, strcmp(name, h->orig_netdev) ? h->orig_netdev : NULL,
			      "", 0, NULL, e);
		if (!rc && nd.mtu != h->orig_mtu)
			rc = link_set(sk, nd.ifindex, NULL, NULL, h->orig_mtu, NULL, e);
		/* the netdev's own MAC, best effort: a PF that lets no VF set its
		 * MAC while an admin MAC is set (igb) resets the VF with the
		 * restored admin MAC instead */
		if (!rc && memcmp(nd.mac, h->orig_mac, 6))
			link_set(sk, nd.ifindex, NULL, NULL, 0, h->orig_mac, NULL);
		nl_socket_free(sk);
		if (rc)
			return rn_fail_wrap(e, "restore VF netdev %s as %s", name, h->orig_netdev);
	}
	return rn_sriov_hold_remove(state_dir, h->pci, e);
}

/* A network namespace file: nsfs (bind mount under /run/netns, or
 * /proc/PID/ns/net). */
static bool netns_exists(const char *path)
{
	struct statfs sfs;

	if (!path[0])
		return false;
	return !statfs(path, &sfs) && (unsigned long)sfs.f_type == NSFS_MAGIC;
}

int rn_sriov_sweep(const char *state_dir, const struct rn_rdma_roots *roots,
		   struct rn_sriov_report *r, struct rn_error *e)
{
	struct rn_sriov_hold *list;
	int n, first = 0;

	memset(r, 0, sizeof(*r));
	if (rn_sriov_hold_list(state_dir, &list, &n, e))
		return e->code;
	for (int i = 0; i < n; i++) {
		const struct rn_sriov_hold *h = &list[i];
		struct rn_error ve = { 0 };
		int fd;

		if (netns_exists(h->netns))
			continue;
		struct rn_sriov_hold now;

		/* a CNI at work on this VF finishes its own job */
		if (rn_sriov_hold_lock(state_dir, h->pci, true, &fd, &ve))
			continue;
		/* under the lock: still the hold we listed (a DEL may have
		 * given the VF back and another pod taken it) */
		if (rn_sriov_hold_read(state_dir, h->pci, &now, NULL) ||
		    strcmp(now.container_id, h->container_id) || strcmp(now.netns, h->netns)) {
			close(fd);
			continue;
		}
		if (rn_sriov_restore_host(state_dir, roots, h, &ve)) {
			r->n_errors++;
			counters.sweep_errors++;
			rn_sriov_report_add(r, "error: VF %s of %s/%s: %s", h->pci, h->pod_namespace,
					    h->pod_name, ve.msg);
			if (!first) {
				first = ve.code;
				*e = ve;
			}
		} else {
			counters.vfs_swept++;
			rn_sriov_report_add(r, "VF %s (%s vf %d) of %s/%s restored as %s: its netns %s "
					    "is gone", h->pci, h->pf_ifname, h->vf, h->pod_namespace,
					    h->pod_name, h->orig_netdev, h->netns);
		}
		close(fd);
	}
	free(list);
	return first;
}
