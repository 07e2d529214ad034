// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Giving a VF back in the host netns (the CNI's DEL/GC/rollback after it
 * moved the devices back, and the agent's leak sweep after the kernel did):
 * once the VF netdev (found by PCI address) is back in this netns, every
 * VF setting that differs from the hold's record goes back through the PF,
 * the netdev gets its name, MTU and MAC back and stays down, the hold goes.
 * Until the netdev is back nothing is touched and the hold stays: the
 * pod's netns may still be dying with the VF in it, and a restore then
 * would leave it to come back later under the pod's name and settings.
 * The sweep: holds whose VF is provably out of every pod (hold_where.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/stat.h>
#include <time.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/socket.h>

#include "netdev.h"
#include "sriov/sriov.h"
#include "monotonic.h"

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

/* The VF's netdev in this netns and its driver, by PCI address: -ENOENT no
 * such VF, -ENODEV it has no netdev here, -EIO the VFs cannot be read. */
static int vf_netdev(const struct rn_rdma_roots *roots, const char *pci, char *name,
		     char *driver)
{
	struct rn_sriov_host host;
	const struct rn_sriov_vf *vf;
	int rc = -ENODEV;

	name[0] = '\0';
	if (rn_sriov_discover(&host, roots, false, NULL))
		return -EIO;
	vf = rn_sriov_find_vf(&host, pci, NULL);
	if (!vf)
		rc = -ENOENT;
	else {
		snprintf(name, RN_IFNAMSIZ, "%s", vf->netdev);
		if (driver)
			snprintf(driver, 32, "%s", vf->driver);
		rc = name[0] ? 0 : -ENODEV;
	}
	rn_sriov_host_free(&host);
	return rc;
}

int rn_sriov_vf_netdev_mac(const struct rn_rdma_roots *roots, const char *pci,
			   const uint8_t mac[6], char *name, struct rn_error *e)
{
	char driver[32] = "";
	struct rn_netdev nd;
	struct nl_sock *sk;
	long deadline;
	int rc;

	if (vf_netdev(roots, pci, name, driver) || rn_netdev_get(name, 0, &nd, e))
		return rn_fail(e, -ENODEV, "VF %s: no netdev in this netns", pci);
	if (!memcmp(nd.mac, mac, 6))
		return 0;
	sk = nl_socket_alloc();
	if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
		if (sk)
			nl_socket_free(sk);
		return rn_fail(e, -EIO, "netlink: cannot connect");
	}
	rc = link_set(sk, nd.ifindex, NULL, NULL, 0, mac, NULL);
	nl_socket_free(sk);
	if (!rc)
		return 0;
	/* refused (igb, while an admin MAC is set): the driver takes the
	 * admin MAC when it probes the VF again */
	rc = rn_sriov_live_ops.vf_rebind(NULL, roots, pci, driver, e);
	if (rc)
		return rc;
	deadline = rn_monotonic_ms() + 10000;
	for (;;) {
		if (!vf_netdev(roots, pci, name, NULL) && !rn_netdev_get(name, 0, &nd, NULL) &&
		    !memcmp(nd.mac, mac, 6))
			return 0;
		if (rn_monotonic_ms() >= deadline)
			return rn_fail(e, -ETIMEDOUT, "VF %s: its netdev does not take MAC "
				       "%02x:%02x:%02x:%02x:%02x:%02x, not even after a %s rebind",
				       pci, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5], driver);
		usleep(100 * 1000);
	}
}

/* The VF back in the host: the hold goes, unless a DRA claim holds the VF
 * (the CNI attached it to the claim's pod): then it is the claim's again,
 * as the DRA driver wrote it, until NodeUnprepareResources. */
static int claim_hold_back(const char *state_dir, const struct rn_sriov_hold *h,
			   struct rn_error *e)
{
	struct rn_sriov_hold c;

	if (!h->claim_uid[0])
		return rn_sriov_hold_remove(state_dir, h->pci, e);
	rn_sriov_hold_for_claim(h, &c);
	return rn_sriov_hold_write(state_dir, &c, e);
}

int rn_sriov_restore_host(const char *state_dir, const struct rn_rdma_roots *roots,
			  const struct rn_sriov_hold *h, struct rn_error *e)
{
	char name[RN_IFNAMSIZ] = "";
	struct rn_netdev nd;
	struct nl_sock *sk;
	int rc;

	rc = vf_netdev(roots, h->pci, name, NULL);
	if (rc == -ENOENT)	/* the VF itself is gone (sriov_numvfs lowered): nothing to give back */
		return rn_sriov_hold_remove(state_dir, h->pci, e);
	if (rc == -EIO)
		return rn_fail(e, -EIO, "VF %s: the VFs cannot be read under %s", h->pci, roots->sys);
	if (rc)
		return rn_fail(e, -EINPROGRESS, "VF %s: its netdev is not back in this netns yet; "
			       "the hold stays until it is", h->pci);
	rc = restore_admin(h, e);
	if (rc)
		return rc;
	/* the MAC first (a driver rebind it may take renames the netdev):
	 * where the netdev had the admin MAC, it gets it back for sure;
	 * otherwise (a VF without an admin MAC) as far as the driver lets */
	if (h->orig_admin.valid && !memcmp(h->orig_admin.mac, h->orig_mac, 6)) {
		if (rn_sriov_vf_netdev_mac(roots, h->pci, h->orig_mac, name, e))
			return rn_fail_wrap(e, "restore VF %s", h->pci);
	} else if (!rn_netdev_get(name, 0, &nd, NULL) && memcmp(nd.mac, h->orig_mac, 6)) {
		sk = nl_socket_alloc();
		if (sk && nl_connect(sk, NETLINK_ROUTE) >= 0)
			link_set(sk, nd.ifindex, NULL, NULL, 0, h->orig_mac, NULL);
		if (sk)
			nl_socket_free(sk);
	}
	if (rn_netdev_get(name, 0, &nd, e))
		return e->code;
	sk = nl_socket_alloc();
	if (!sk || nl_connect(sk, NETLINK_ROUTE) < 0) {
		if (sk)
			nl_socket_free(sk);
		return rn_fail(e, -EIO, "netlink: cannot connect");
	}
	/* down, its name, its MTU */
	rc = link_set(sk, nd.ifindex, strcmp(name, h->orig_netdev) ? h->orig_netdev : NULL,
		      "", 0, NULL, e);
	if (!rc && nd.mtu != h->orig_mtu)
		rc = link_set(sk, nd.ifindex, NULL, NULL, h->orig_mtu, NULL, e);
	nl_socket_free(sk);
	if (rc)
		return rn_fail_wrap(e, "restore VF netdev %s as %s", name, h->orig_netdev);
	return claim_hold_back(state_dir, h, e);
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
		struct rn_sriov_hold now;
		enum rn_sriov_hold_where w;
		char why[600];
		int fd, rc;

		/* a DRA claim's VF not in a pod yet is the claim's until unprepared */
		if (h->claim_uid[0] && !h->netns[0])
			continue;
		w = rn_sriov_hold_where(roots, h, why, sizeof(why));
		if (w == RN_SRIOV_HOLD_IN_POD)
			continue;
		if (w == RN_SRIOV_HOLD_UNSEEN) {
			r->n_kept++;
			rn_sriov_report_add(r, "kept: VF %s of %s/%s: %s", h->pci, h->pod_namespace,
					    h->pod_name, why);
			continue;
		}
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
		rc = rn_sriov_restore_host(state_dir, roots, h, &ve);
		if (rc == -EINPROGRESS) {	/* gone again since it was looked at */
			r->n_kept++;
			rn_sriov_report_add(r, "kept: %s", ve.msg);
		} else if (rc) {
			r->n_errors++;
			counters.sweep_errors++;
			rn_sriov_report_add(r, "error: VF %s of %s/%s: %s", h->pci, h->pod_namespace,
					    h->pod_name, ve.msg);
			if (!first) {
				first = ve.code;
				*e = ve;
			}
		} else if (w == RN_SRIOV_HOLD_VF_GONE) {
			rn_sriov_report_add(r, "VF %s (%s vf %d) of %s/%s no longer exists: its hold "
					    "is removed", h->pci, h->pf_ifname, h->vf, h->pod_namespace,
					    h->pod_name);
		} else {
			counters.vfs_swept++;
			rn_sriov_report_add(r, "VF %s (%s vf %d) of %s/%s restored as %s: its netns %s "
					    "is gone (the VF's netdev is back in the host)", h->pci,
					    h->pf_ifname, h->vf, h->pod_namespace, h->pod_name,
					    h->orig_netdev, h->netns);
		}
		close(fd);
	}
	free(list);
	return first;
}
