// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* mode "sriov": taking a VF for a pod and giving it back (vf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <net/if.h>
#include <netlink/route/link.h>

#include "fault.h"
#include "link.h"
#include "log.h"
#include "nl_errno.h"
#include "rdma/rdma.h"
#include "vf.h"

/* One RTM_SETLINK on ifindex: any of new name, alias, netns, MTU, MAC,
 * up/down (up: -1 leaves it). */
static int link_change(struct nl_sock *sk, int ifindex, const char *name, const char *alias,
		       int ns_fd, unsigned int mtu, const uint8_t *mac, int up, struct rn_error *e)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *chg = rtnl_link_alloc();
	struct nl_addr *a = NULL;
	int err = -NLE_NOMEM;

	if (orig && chg) {
		rtnl_link_set_ifindex(orig, ifindex);
		if (name)
			rtnl_link_set_name(chg, name);
		if (alias)
			rtnl_link_set_ifalias(chg, alias);
		if (ns_fd >= 0)
			rtnl_link_set_ns_fd(chg, ns_fd);
		if (mtu)
			rtnl_link_set_mtu(chg, mtu);
		if (mac) {
			a = nl_addr_build(AF_UNSPEC, mac, 6);	/* not AF_LLC: see restore.c */
			if (a)
				rtnl_link_set_addr(chg, a);
		}
		if (up == 1)
			rtnl_link_set_flags(chg, IFF_UP);
		else if (up == 0)
			rtnl_link_unset_flags(chg, IFF_UP);
		err = rtnl_link_change(sk, orig, chg, 0);
	}
	nl_addr_put(a);
	rtnl_link_put(orig);
	rtnl_link_put(chg);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "ifindex %d: %s", ifindex, nl_geterror(err));
	return 0;
}

static void live_roots(const struct rn_config *cfg, struct rn_rdma_roots *roots)
{
	rn_rdma_config_roots(cfg, roots);
}

void cni_vf_unlock(struct cni_vf *v)
{
	if (v->lock_fd >= 0)
		close(v->lock_fd);
	v->lock_fd = -1;
}

int cni_vf_find_hold(const char *state_dir, const char *container_id, const char *ifname,
		     struct rn_sriov_hold *out)
{
	struct rn_sriov_hold *list;
	int n, found = 0;

	if (rn_sriov_hold_list(state_dir, &list, &n, NULL))
		return 0;
	for (int i = 0; i < n && !found; i++)
		if (!strcmp(list[i].container_id, container_id) && !strcmp(list[i].ifname, ifname)) {
			*out = list[i];
			found = 1;
		}
	free(list);
	return found;
}

/* The VF's netdev and RDMA device in the host netns now, into h. */
static void vf_names(const struct rn_rdma_roots *roots, const char *pci, struct rn_sriov_hold *h)
{
	struct rn_sriov_host host;
	const struct rn_sriov_vf *vf;

	if (rn_sriov_discover(&host, roots, false, NULL))
		return;
	vf = rn_sriov_find_vf(&host, pci, NULL);
	if (vf) {
		snprintf(h->orig_netdev, sizeof(h->orig_netdev), "%s", vf->netdev);
		snprintf(h->orig_rdma_dev, sizeof(h->orig_rdma_dev), "%s", vf->rdma_dev);
	}
	rn_sriov_host_free(&host);
}

static int check_device_id(struct cni_req *r)
{
	const char *id = r->conf.device_id;

	if (!id[0])
		return cni_fail(&r->err, CNI_ERR_CONFIG, "deviceID: required for mode \"sriov\" (the "
				"VF's PCI address, in the config or runtimeConfig)");
	if (!rn_sriov_pci_valid(id))
		return cni_fail(&r->err, CNI_ERR_CONFIG, "deviceID: \"%s\" is not a PCI address "
				"(dddd:bb:dd.f)", id);
	return 0;
}

/* The VF deviceID names, of a PF the node config's "sriov" section manages
 * and that has a netdev in the host: v->hold names it (PCI address, PF,
 * index, its netdev and RDMA device now), v->is_rdma from the PF's entry. */
static int find_vf(struct cni_req *r, const struct rn_config *cfg,
		   const struct rn_rdma_roots *roots, struct cni_vf *v)
{
	const char *id = r->conf.device_id;
	struct rn_sriov_config sc;
	struct rn_sriov_host h;
	const struct rn_sriov_pf *pf = NULL;
	const struct rn_sriov_pf_config *pc;
	const struct rn_sriov_vf *vf;
	struct rn_error e = { 0 };
	int rc = -1;

	if (rn_sriov_config_get(cfg, &sc, &e))
		return cni_fail_rn(&r->err, CNI_ERR_CONFIG, &e, "node config");
	if (rn_sriov_discover(&h, roots, false, &e)) {
		rn_sriov_config_free(&sc);
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "SR-IOV discovery");
	}
	vf = rn_sriov_find_vf(&h, id, &pf);
	pc = vf ? rn_sriov_config_for_pf(&sc, pf) : NULL;
	if (!vf) {
		cni_fail(&r->err, CNI_ERR_CONFIG, "deviceID %s: not a VF of an SR-IOV PF on this "
			 "node", id);
	} else if (!pc) {
		cni_fail(&r->err, CNI_ERR_CONFIG, "deviceID %s: VF %d of PF %s, which no \"sriov\" "
			 "entry of the node config manages", id, vf->index,
			 pf->ifname[0] ? pf->ifname : pf->pci);
	} else if (!pf->ifname[0]) {
		cni_fail(&r->err, RN_CNI_ERR_MASTER, "deviceID %s: its PF %s has no netdev in the "
			 "host netns", id, pf->pci);
	} else {
		rc = 0;
		v->is_rdma = pc->is_rdma;
		memset(&v->hold, 0, sizeof(v->hold));
		snprintf(v->hold.pci, sizeof(v->hold.pci), "%.15s", id);
		snprintf(v->hold.pf_ifname, sizeof(v->hold.pf_ifname), "%s", pf->ifname);
		v->hold.vf = vf->index;
		snprintf(v->hold.orig_netdev, sizeof(v->hold.orig_netdev), "%s", vf->netdev);
		snprintf(v->hold.orig_rdma_dev, sizeof(v->hold.orig_rdma_dev), "%s", vf->rdma_dev);
		/* the pod's claim's VF: its hold stays the claim's (DEL gives
		 * the VF back to the claim) */
		snprintf(v->hold.claim_uid, sizeof(v->hold.claim_uid), "%s",
			 r->conf.dra_claim_uid);
	}
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&sc);
	return rc;
}

/* An RDMA device can be handed to a pod only in exclusive netns mode. */
static int check_rdma_netns_mode(struct cni_req *r)
{
	const char *id = r->conf.device_id;
	struct rn_rdma_nl *nl;
	struct rn_error e = { 0 };
	int mode = -1, rc;

	if (rn_rdma_nl_open(&nl, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "deviceID %s", id);
	rc = rn_rdma_nl_netns_mode_get(nl, &mode, &e);
	rn_rdma_nl_close(nl);
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "deviceID %s", id);
	if (mode != 0)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "deviceID %s: the RDMA subsystem is in "
				"shared netns mode; exclusive mode (rdma system set netns "
				"exclusive, rdma.netns_mode \"exclusive\") is needed to hand a "
				"VF's RDMA device to a pod", id);
	return 0;
}

/* Under the VF's lock: a hold already on the VF. Another pod's is refused,
 * unless that pod's DEL left it released and the VF is back by now; our own
 * leftover (an ADD killed midway) is given back first. Either way the VF's
 * original names are taken from what the hold recorded or the restore left. */
/* the claim's VF: the pod's hold carries the claim (v->hold.claim_uid is
 * the pod's claim's), for DEL to give it back as the driver held it */
static void carry_claim(struct cni_vf *v, const struct rn_sriov_hold *claims)
{
	if (!v->hold.claim_uid[0] || strcmp(claims->claim_uid, v->hold.claim_uid))
		return;
	snprintf(v->hold.claim_namespace, sizeof(v->hold.claim_namespace), "%s",
		 claims->claim_namespace);
	snprintf(v->hold.claim_name, sizeof(v->hold.claim_name), "%s", claims->claim_name);
	snprintf(v->hold.claim_network, sizeof(v->hold.claim_network), "%s",
		 claims->claim_network);
}

static int settle_previous_hold(struct cni_req *r, const struct rn_config *cfg,
				const struct rn_rdma_roots *roots, struct cni_vf *v)
{
	const char *id = r->conf.device_id;
	struct rn_sriov_hold old;
	struct rn_error e = { 0 };
	int rc;

	rc = rn_sriov_hold_read(r->conf.state_dir, id, &old, &e);
	/* a pod's DEL left the VF to come back from its dying netns: once it
	 * has, finish what DEL could not and take it */
	if (rc == 0 && old.released && strcmp(old.container_id, r->env.container_id)) {
		struct rn_error re = { 0 };

		if (!rn_sriov_restore_host(r->conf.state_dir, roots, &old, &re)) {
			/* its netdev and RDMA device as they are named now */
			vf_names(roots, id, &v->hold);
			rc = rn_sriov_hold_read(r->conf.state_dir, id, &old, &e);
		}
	}
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "deviceID %s", id);
	/* a DRA claim's VF, in no pod (or back from one just now): the pod
	 * the claim is reserved for attaches it (dra_claim.h), under the
	 * claim's hold; nobody else */
	if (old.claim_uid[0] && !old.netns[0]) {
		if (!strcmp(old.claim_uid, r->conf.dra_claim_uid))
			return carry_claim(v, &old), 0;
		return cni_fail(&r->err, RN_CNI_ERR_IFNAME_EXISTS, "deviceID %s: VF held for DRA "
				"claim %s (%s/%s), not this pod's%s", id, old.claim_uid,
				old.pod_namespace, old.pod_name,
				r->conf.dra_claim_uid[0] ? "" : " (no \"dra\" in the config)");
	}
	if (strcmp(old.container_id, r->env.container_id) || strcmp(old.ifname, r->env.ifname))
		return cni_fail(&r->err, RN_CNI_ERR_IFNAME_EXISTS, "deviceID %s: VF held by pod "
				"%s/%s (container %.12s, %s) since %ld%s", id, old.pod_namespace,
				old.pod_name, old.container_id, old.ifname, (long)old.since,
				old.released ? "; deleted, its netdev not yet back from the pod's "
				"netns" : "");
	/* our own leftover (an ADD killed midway): give it back first */
	if (cni_vf_restore(cfg, r->conf.state_dir, &old, old.netns, true, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "deviceID %s: leftover", id);
	rc = rn_sriov_hold_read(r->conf.state_dir, id, &old, NULL);
	/* given back: free, or the claim's again (its hold, in no pod) */
	if (rc != -ENOENT && (rc || !old.claim_uid[0] || old.netns[0] ||
				 strcmp(old.claim_uid, r->conf.dra_claim_uid)))
		return cni_fail(&r->err, RN_CNI_ERR_NETLINK, "deviceID %s: a leftover of this "
				"attachment is not back from %s yet", id, old.netns);
	snprintf(v->hold.orig_netdev, sizeof(v->hold.orig_netdev), "%s", old.orig_netdev);
	snprintf(v->hold.orig_rdma_dev, sizeof(v->hold.orig_rdma_dev), "%s", old.orig_rdma_dev);
	if (rc == 0)
		carry_claim(v, &old);
	return 0;
}

/* The VF has the devices the pod is to get, in the host netns. */
static int check_vf_devices(struct cni_req *r, const struct cni_vf *v)
{
	const char *id = r->conf.device_id;

	if (!v->hold.orig_netdev[0])
		return cni_fail(&r->err, RN_CNI_ERR_MASTER, "deviceID %s: the VF has no netdev in the "
				"host netns (no driver bound, or stranded elsewhere)", id);
	if (v->is_rdma && !v->hold.orig_rdma_dev[0])
		return cni_fail(&r->err, RN_CNI_ERR_MASTER, "deviceID %s: the VF has no RDMA device "
				"in the host netns", id);
	return 0;
}

int cni_vf_prepare(struct cni_req *r, const struct rn_config *cfg, struct cni_vf *v,
		   struct rn_netdev *pf_out)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	v->lock_fd = -1;
	if (check_device_id(r))
		return -1;
	live_roots(cfg, &roots);
	if (find_vf(r, cfg, &roots, v) || (v->is_rdma && check_rdma_netns_mode(r)))
		return -1;
	if (rn_sriov_hold_lock(r->conf.state_dir, r->conf.device_id, false, &v->lock_fd, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "deviceID %s", r->conf.device_id);
	if (settle_previous_hold(r, cfg, &roots, v) || check_vf_devices(r, v))
		goto fail;
	if (rn_netdev_get(v->hold.pf_ifname, 0, pf_out, &e)) {
		cni_fail_rn(&r->err, RN_CNI_ERR_MASTER, &e, "PF");
		goto fail;
	}
	return 0;
fail:
	cni_vf_unlock(v);
	return -1;
}

static void settings_of(const struct cni_netconf *c, struct rn_vf_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->has_mac = c->has_mac;
	memcpy(s->mac, c->vf_mac, 6);
	s->has_vlan = c->has_vlan;
	s->vlan = c->vlan;
	s->qos = c->vlan_qos;
	s->vlan_proto = c->vlan_proto;
	s->has_spoofchk = c->has_spoofchk;
	s->spoofchk = c->spoofchk;
	s->has_trust = c->has_trust;
	s->trust = c->trust;
	s->has_link_state = c->has_link_state;
	s->link_state = c->link_state;
	s->has_rate = c->has_rate;
	s->min_tx_rate = c->min_tx_rate;
	s->max_tx_rate = c->max_tx_rate;
}

/* What the VF is now (MTU, MAC, admin settings) and whose it becomes,
 * written to its hold before anything changes; nd: its netdev. */
static int record_hold(struct cni_req *r, struct cni_vf *v, const struct cni_netns *ns,
		       struct rn_netdev *nd)
{
	struct rn_sriov_hold *h = &v->hold;
	struct rn_error e = { 0 };
	struct stat st;

	if (rn_netdev_get(h->orig_netdev, 0, nd, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "VF netdev");
	h->orig_mtu = nd->mtu;
	memcpy(h->orig_mac, nd->mac, 6);
	if (rn_sriov_vf_admin_get(h->pf_ifname, h->vf, &h->orig_admin, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "VF settings");
	snprintf(h->network, sizeof(h->network), "%s", r->conf.name);
	snprintf(h->container_id, sizeof(h->container_id), "%s", r->env.container_id);
	snprintf(h->ifname, sizeof(h->ifname), "%s", r->env.ifname);
	snprintf(h->netns, sizeof(h->netns), "%s", r->env.netns);
	/* which netns the path names now: the sweep never mistakes another
	 * netns at a reused path (a /proc/PID/ns/net) for the pod's */
	if (!fstat(ns->pod_fd, &st)) {
		h->netns_dev = (uint64_t)st.st_dev;
		h->netns_ino = (uint64_t)st.st_ino;
	}
	snprintf(h->pod_namespace, sizeof(h->pod_namespace), "%s", r->env.pod_namespace);
	snprintf(h->pod_name, sizeof(h->pod_name), "%s", r->env.pod_name);
	h->since = time(NULL);
	h->complete = false;
	if (rn_sriov_hold_write(r->conf.state_dir, h, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "VF hold");
	v->held = true;
	cni_fault_point("vf-held");
	return 0;
}

/* The netdev takes the admin MAC too, as sriov-cni does: set, or where the
 * PF refuses that (igb), by a VF driver rebind (new netdev: nd again). */
static int set_netdev_mac(struct cni_req *r, struct cni_vf *v, struct rn_netdev *nd)
{
	struct rn_sriov_hold *h = &v->hold;
	struct rn_rdma_roots roots;
	char name[RN_IFNAMSIZ];
	struct rn_error e = { 0 };
	struct rn_sriov_host hh;
	const struct rn_sriov_vf *vf;

	rn_rdma_roots_init(&roots, NULL);
	if (rn_sriov_vf_netdev_mac(&roots, h->pci, r->conf.vf_mac, name, &e) ||
	    rn_netdev_get(name, 0, nd, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "VF %s MAC", h->pci);
	/* a rebind may have given the VF's RDMA device another name */
	if (v->is_rdma && !rn_sriov_discover(&hh, &roots, false, NULL)) {
		vf = rn_sriov_find_vf(&hh, h->pci, NULL);
		if (vf && vf->rdma_dev[0])
			snprintf(h->orig_rdma_dev, sizeof(h->orig_rdma_dev), "%s", vf->rdma_dev);
		rn_sriov_host_free(&hh);
	}
	return 0;
}

static int apply_settings(struct cni_req *r, struct cni_vf *v, struct rn_netdev *nd)
{
	struct rn_vf_settings s;
	struct rn_error e = { 0 };

	settings_of(&r->conf, &s);
	if (rn_sriov_vf_apply(v->hold.pf_ifname, v->hold.vf, &s, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "VF settings");
	return r->conf.has_mac ? set_netdev_mac(r, v, nd) : 0;
}

/* The RDMA device first: a soft device (rxe) dies with its netdev's move,
 * and the move a driver may refuse is best tried before the netdev leaves. */
static int move_rdma_dev(struct cni_req *r, struct cni_vf *v, const struct cni_netns *ns)
{
	struct rn_sriov_hold *h = &v->hold;
	struct rn_error e = { 0 };

	h->rdma_moved = true;	/* recorded before: a kill -9 mid-move is undone */
	if (rn_sriov_hold_write(r->conf.state_dir, h, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "VF hold");
	if (rn_sriov_rdma_dev_move(h->orig_rdma_dev, ns->pod_fd, &e))
		return cni_fail_rn(&r->err, e.code == -EPERM ? CNI_ERR_CONFIG : RN_CNI_ERR_NETLINK,
				   &e, "deviceID %s", h->pci);
	cni_fault_point("vf-rdma-moved");
	return 0;
}

/* Down, temporary name, into the pod: it never clashes there. */
static int move_netdev(struct cni_req *r, struct cni_vf *v, struct nl_sock *host,
		       const struct cni_netns *ns, int ifindex)
{
	struct rn_error e = { 0 };

	cni_link_tmp_name(r->env.container_id, r->env.ifname, v->tmpname);
	if (link_change(host, ifindex, v->tmpname, NULL, -1, 0, NULL, 0, &e) ||
	    link_change(host, ifindex, NULL, NULL, ns->pod_fd, 0, NULL, -1, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_NETLINK, &e, "move VF %s into %s",
				   v->hold.orig_netdev, r->env.netns);
	cni_fault_point("vf-moved");
	return 0;
}

/* In the pod: CNI_IFNAME, the attachment's alias and the config's MTU;
 * li: the result. */
static int name_in_pod(struct cni_req *r, struct cni_vf *v, const struct cni_netns *ns,
		       struct cni_link_info *li)
{
	struct nl_sock *pod;
	char alias[CNI_ALIAS_MAX];
	struct rn_error e = { 0 };
	int rc = 0;

	pod = cni_nl_open(ns, &e);
	if (!pod)
		return cni_fail_rn(&r->err, RN_CNI_ERR_INTERNAL, &e, "netlink");
	cni_link_alias(r->env.container_id, alias);
	if (cni_link_get(pod, v->tmpname, li, &e) ||
	    link_change(pod, li->ifindex, r->env.ifname, alias, -1, r->conf.mtu, NULL, -1, &e) ||
	    cni_link_get(pod, r->env.ifname, li, &e))
		rc = cni_fail_rn(&r->err, e.code == -EEXIST ? RN_CNI_ERR_IFNAME_EXISTS :
				 RN_CNI_ERR_NETLINK, &e, "VF in %s", r->env.netns);
	nl_socket_free(pod);
	return rc;
}

int cni_vf_attach(struct cni_req *r, struct cni_vf *v, struct nl_sock *host,
		  const struct cni_netns *ns, int *ifindex, uint8_t mac[6], unsigned int *mtu)
{
	struct rn_netdev nd;
	struct cni_link_info li;

	if (record_hold(r, v, ns, &nd) || apply_settings(r, v, &nd) ||
	    (v->is_rdma && move_rdma_dev(r, v, ns)) || move_netdev(r, v, host, ns, nd.ifindex) ||
	    name_in_pod(r, v, ns, &li))
		return -1;
	*ifindex = li.ifindex;
	memcpy(mac, li.mac, 6);
	*mtu = li.mtu;
	return 0;
}

int cni_vf_commit(struct cni_req *r, struct cni_vf *v)
{
	struct rn_error e = { 0 };

	v->hold.complete = true;
	if (rn_sriov_hold_write(r->conf.state_dir, &v->hold, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "VF hold");
	return 0;
}

/* In the pod netns: the RDMA device back to the host, the netdev back
 * under its temporary name. Missing pieces are fine (already back). */
static int restore_from_pod(const struct rn_sriov_hold *h, const char *netns,
			    struct rn_error *e)
{
	struct cni_netns ns = { .host_fd = -1, .pod_fd = -1 };
	struct cni_link_info li;
	struct nl_sock *pod;
	char alias[CNI_ALIAS_MAX], tmp[RN_IFNAMSIZ];
	int rc = 0;

	if (!netns || !netns[0] || cni_netns_open(&ns, netns, NULL))
		return 0;	/* gone: the kernel moved both back */
	if (h->rdma_moved) {
		if (cni_netns_enter(&ns, e)) {
			cni_netns_close(&ns);
			return e->code;
		}
		rc = rn_sriov_rdma_dev_move(h->orig_rdma_dev, ns.host_fd, e);
		cni_netns_leave(&ns);
		if (rc == -ENODEV)	/* not in the pod: already back */
			rc = 0;
		if (rc) {
			cni_netns_close(&ns);
			return rc;
		}
	}
	pod = cni_nl_open(&ns, e);
	if (!pod) {
		cni_netns_close(&ns);
		return e->code ? e->code : -EIO;
	}
	cni_link_alias(h->container_id, alias);
	cni_link_tmp_name(h->container_id, h->ifname, tmp);
	if (!cni_link_get(pod, h->ifname, &li, NULL) && !strcmp(li.alias, alias) && !li.kind[0])
		rc = link_change(pod, li.ifindex, tmp, NULL, -1, 0, NULL, 0, e);
	if (!rc && !cni_link_get(pod, tmp, &li, NULL) && !li.kind[0])
		rc = link_change(pod, li.ifindex, NULL, NULL, ns.host_fd, 0, NULL, 0, e);
	nl_socket_free(pod);
	cni_netns_close(&ns);
	return rc;
}

int cni_vf_restore(const struct rn_config *cfg, const char *state_dir,
		   const struct rn_sriov_hold *h, const char *netns, bool locked, struct rn_error *e)
{
	struct rn_rdma_roots roots;
	struct rn_sriov_hold now;
	int fd = -1, rc;

	if (!locked && rn_sriov_hold_lock(state_dir, h->pci, false, &fd, e))
		return e->code;
	/* under the lock, the hold must still be this attachment's: the leak
	 * sweep may have freed the VF meanwhile, and another pod taken it */
	rc = rn_sriov_hold_read(state_dir, h->pci, &now, NULL);
	if (rc || strcmp(now.container_id, h->container_id) || strcmp(now.ifname, h->ifname)) {
		if (fd >= 0)
			close(fd);
		return rc && rc != -ENOENT ? rn_fail(e, rc, "VF %s: unreadable hold", h->pci) : 0;
	}
	if (cfg)
		live_roots(cfg, &roots);
	else
		rn_rdma_roots_init(&roots, NULL);
	rc = restore_from_pod(h, netns, e);
	if (!rc)
		rc = rn_sriov_restore_host(state_dir, &roots, h, e);
	if (rc == -EINPROGRESS) {
		/* the pod's netns is dying with the VF in it: the hold says the
		 * pod is gone, the agent's sweep (or the next ADD on this VF)
		 * restores the VF once the kernel has returned it */
		now.released = true;
		rc = rn_sriov_hold_write(state_dir, &now, e);
		if (!rc)
			rn_warn("VF %s: its netdev is not back from %s yet: its hold stays, released; "
				"rdmanetd restores the VF once the kernel returns it", h->pci,
				netns && netns[0] ? netns : "the pod's netns");
	}
	if (fd >= 0)
		close(fd);
	return rc;
}
