// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A VF's admin settings through its PF (rtnetlink, libnl's SR-IOV API:
 * IFLA_VFINFO_LIST read with RTEXT_FILTER_VF, IFLA_VF_* written with
 * RTM_SETLINK on the PF), the live sysfs operations provisioning needs
 * (driver rebind, MTU), and the RDMA device netns move (RDMA netlink). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/link/sriov.h>
#include <netlink/socket.h>

#include "nl_errno.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

static struct nl_sock *route_sock(struct rn_error *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk) {
		rn_fail(e, -ENOMEM, "netlink: out of memory");
		return NULL;
	}
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		nl_socket_free(sk);
		rn_fail(e, rn_nl_errno(err), "netlink: cannot connect: %s", nl_geterror(err));
		return NULL;
	}
	return sk;
}

static void take_link(struct nl_object *o, void *arg)
{
	struct rtnl_link **out = arg;

	if (!*out) {
		nl_object_get(o);
		*out = (struct rtnl_link *)o;
	}
}

static int on_link(struct nl_msg *msg, void *arg)
{
	nl_msg_parse(msg, take_link, arg);
	return NL_OK;
}

/* RTM_GETLINK for one name with IFLA_EXT_MASK RTEXT_FILTER_VF, so the
 * reply carries IFLA_VFINFO_LIST whatever libnl's own get request asks. */
static int get_link_vf(struct nl_sock *sk, const char *ifname, struct rtnl_link **out,
		       struct rn_error *e)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *msg = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST);
	int err;

	*out = NULL;
	if (!msg)
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	if (nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, ifname) < 0 ||
	    nla_put_u32(msg, IFLA_EXT_MASK, RTEXT_FILTER_VF) < 0) {
		nlmsg_free(msg);
		return rn_fail(e, -EMSGSIZE, "netlink: message too long");
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_link, out);
	err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs_default(sk);
	if (err < 0) {
		if (*out)
			rtnl_link_put(*out);
		*out = NULL;
		return rn_fail(e, rn_nl_errno(err), "%s: %s", ifname, nl_geterror(err));
	}
	if (!*out)
		return rn_fail(e, -ENODEV, "%s: no such link", ifname);
	return 0;
}

int rn_sriov_vf_admin_get(const char *pf_ifname, int vf, struct rn_vf_admin *out,
			  struct rn_error *e)
{
	struct nl_sock *sk = route_sock(e);
	struct rtnl_link *link = NULL;
	struct rtnl_link_vf *v;
	struct nl_addr *addr = NULL;
	nl_vf_vlans_t *vlans = NULL;
	struct nl_vf_rate rate = { .api = RTNL_LINK_VF_RATE_API_NEW };
	uint32_t u;
	int rc;

	memset(out, 0, sizeof(*out));
	out->spoofchk = out->trust = out->link_state = -1;
	if (!sk)
		return e ? e->code : -EIO;
	rc = get_link_vf(sk, pf_ifname, &link, e);
	nl_socket_free(sk);
	if (rc)
		return rc;
	/* libnl's rtnl_link_vf_get walks the link's VF list unchecked: a
	 * link that sent none (no SR-IOV: a veth, a PF without VFs) would
	 * crash it */
	if (rtnl_link_get_num_vf(link, &u) < 0 || (uint32_t)vf >= u)
		v = NULL;
	else
		v = rtnl_link_vf_get(link, (uint32_t)vf);
	if (!v) {
		rtnl_link_put(link);
		return rn_fail(e, -ENOENT, "%s: no VF %d in IFLA_VFINFO_LIST", pf_ifname, vf);
	}
	if (!rtnl_link_vf_get_addr(v, &addr) && addr && nl_addr_get_len(addr) == 6)
		memcpy(out->mac, nl_addr_get_binary_addr(addr), 6);
	out->vlan_proto = ETH_P_8021Q;
	if (!rtnl_link_vf_get_vlans(v, &vlans) && vlans && vlans->size > 0) {
		out->vlan = vlans->vlans[0].vf_vlan;
		out->qos = vlans->vlans[0].vf_vlan_qos;
		if (vlans->vlans[0].vf_vlan_proto)
			out->vlan_proto = vlans->vlans[0].vf_vlan_proto;
	}
	if (!rtnl_link_vf_get_spoofchk(v, &u))
		out->spoofchk = (int)u;
	if (!rtnl_link_vf_get_trust(v, &u))
		out->trust = (int)u;
	if (!rtnl_link_vf_get_linkstate(v, &u))
		out->link_state = (int)u;
	if (!rtnl_link_vf_get_rate(v, &rate)) {
		out->min_tx_rate = rate.min_tx_rate;
		out->max_tx_rate = rate.max_tx_rate ? rate.max_tx_rate : rate.rate;
	}
	out->valid = true;
	rtnl_link_vf_put(v);
	rtnl_link_put(link);
	return 0;
}

void rn_sriov_settings_from_admin(const struct rn_vf_admin *a, struct rn_vf_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->has_mac = true;
	memcpy(s->mac, a->mac, 6);
	s->has_vlan = true;
	s->vlan = a->vlan;
	s->qos = a->qos;
	s->vlan_proto = a->vlan_proto;
	s->has_spoofchk = a->spoofchk >= 0;
	s->spoofchk = a->spoofchk;
	s->has_trust = a->trust >= 0;
	s->trust = a->trust;
	s->has_link_state = a->link_state >= 0;
	s->link_state = a->link_state;
	s->has_rate = true;
	s->min_tx_rate = a->min_tx_rate;
	s->max_tx_rate = a->max_tx_rate;
}

/* One IFLA_VF_* change through the PF. Each setting goes alone: a driver
 * that refuses one (igb: trust, min_tx_rate) is named in the error. */
static int vf_change(struct nl_sock *sk, struct rtnl_link *pf, int vf, const char *what,
		     void (*set)(struct rtnl_link_vf *v, const void *arg), const void *arg,
		     struct rn_error *e)
{
	struct rtnl_link *change = rtnl_link_alloc();
	struct rtnl_link_vf *v = rtnl_link_vf_alloc();
	int err;

	if (!change || !v) {
		rtnl_link_put(change);
		rtnl_link_vf_put(v);
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	}
	rtnl_link_vf_set_index(v, (uint32_t)vf);
	set(v, arg);
	err = rtnl_link_vf_add(change, v);
	rtnl_link_vf_put(v);
	if (!err)
		err = rtnl_link_change(sk, pf, change, 0);
	rtnl_link_put(change);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "%s vf %d %s: %s", rtnl_link_get_name(pf), vf,
			       what, nl_geterror(err));
	return 0;
}

static void set_mac(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	struct nl_addr *a = nl_addr_build(AF_LLC, s->mac, 6);

	if (a) {
		rtnl_link_vf_set_addr(v, a);
		nl_addr_put(a);
	}
}

static void set_vlan(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	nl_vf_vlans_t *vl = NULL;

	if (rtnl_link_vf_vlan_alloc(&vl, 1))
		return;
	vl->vlans[0].vf_vlan = s->vlan;
	vl->vlans[0].vf_vlan_qos = s->qos;
	vl->vlans[0].vf_vlan_proto = s->vlan_proto ? s->vlan_proto : ETH_P_8021Q;
	rtnl_link_vf_set_vlans(v, vl);
	rtnl_link_vf_vlan_put(vl);
}

static void set_spoofchk(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	rtnl_link_vf_set_spoofchk(v, (uint32_t)s->spoofchk);
}

static void set_trust(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	rtnl_link_vf_set_trust(v, (uint32_t)s->trust);
}

static void set_link_state(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	rtnl_link_vf_set_linkstate(v, (uint32_t)s->link_state);
}

static void set_rate(struct rtnl_link_vf *v, const void *arg)
{
	const struct rn_vf_settings *s = arg;
	struct nl_vf_rate r = { .api = RTNL_LINK_VF_RATE_API_NEW,
				.min_tx_rate = s->min_tx_rate, .max_tx_rate = s->max_tx_rate };

	rtnl_link_vf_set_rate(v, &r);
}

int rn_sriov_vf_apply(const char *pf_ifname, int vf, const struct rn_vf_settings *s,
		      struct rn_error *e)
{
	struct nl_sock *sk = route_sock(e);
	struct rtnl_link *pf = NULL;
	int rc;

	if (!sk)
		return e ? e->code : -EIO;
	rc = rtnl_link_get_kernel(sk, 0, pf_ifname, &pf);
	if (rc < 0) {
		nl_socket_free(sk);
		return rn_fail(e, rn_nl_errno(rc), "%s: %s", pf_ifname, nl_geterror(rc));
	}
	rc = (s->has_mac && vf_change(sk, pf, vf, "mac", set_mac, s, e)) ||
	     (s->has_vlan && vf_change(sk, pf, vf, "vlan", set_vlan, s, e)) ||
	     (s->has_spoofchk && vf_change(sk, pf, vf, "spoofchk", set_spoofchk, s, e)) ||
	     (s->has_trust && vf_change(sk, pf, vf, "trust", set_trust, s, e)) ||
	     (s->has_link_state && vf_change(sk, pf, vf, "state", set_link_state, s, e)) ||
	     (s->has_rate && vf_change(sk, pf, vf, "rate", set_rate, s, e));
	rtnl_link_put(pf);
	nl_socket_free(sk);
	return rc ? (e && e->code ? e->code : -EIO) : 0;
}

static int live_admin_get(void *ctx, const char *pf, int vf, struct rn_vf_admin *out,
			  struct rn_error *e)
{
	(void)ctx;
	return rn_sriov_vf_admin_get(pf, vf, out, e);
}

static int live_apply(void *ctx, const char *pf, int vf, const struct rn_vf_settings *s,
		      struct rn_error *e)
{
	(void)ctx;
	return rn_sriov_vf_apply(pf, vf, s, e);
}

static void set_guids(struct rtnl_link_vf *v, const void *arg)
{
	const uint64_t *g = arg;

	rtnl_link_vf_set_ib_node_guid(v, g[0]);
	rtnl_link_vf_set_ib_port_guid(v, g[1]);
}

static int live_set_guids(void *ctx, const char *pf_ifname, int vf, uint64_t node,
			  uint64_t port, struct rn_error *e)
{
	uint64_t g[2] = { node, port };
	struct nl_sock *sk = route_sock(e);
	struct rtnl_link *pf = NULL;
	int rc;

	(void)ctx;
	if (!sk)
		return e ? e->code : -EIO;
	rc = rtnl_link_get_kernel(sk, 0, pf_ifname, &pf);
	if (rc < 0) {
		nl_socket_free(sk);
		return rn_fail(e, rn_nl_errno(rc), "%s: %s", pf_ifname, nl_geterror(rc));
	}
	rc = vf_change(sk, pf, vf, "node_guid/port_guid", set_guids, g, e);
	rtnl_link_put(pf);
	nl_socket_free(sk);
	return rc;
}

/* driver_override, then unbind and bind: with sriov_drivers_autoprobe 0 a
 * plain bind is refused, with it 1 the override is harmless. */
static int live_rebind(void *ctx, const struct rn_rdma_roots *roots, const char *pci,
		       const char *driver, struct rn_error *e)
{
	const char *sys = roots->sys;
	int rc;

	(void)ctx;
	if (!driver[0])
		return rn_fail(e, -ENODEV, "VF %s: no driver to rebind", pci);
	rc = rn_sysfs_write(driver, "%s/bus/pci/devices/%s/driver_override", sys, pci);
	if (rc && rc != -ENOENT)
		return rn_fail(e, rc, "VF %s: driver_override: %s", pci, strerror(-rc));
	rc = rn_sysfs_write(pci, "%s/bus/pci/drivers/%s/unbind", sys, driver);
	if (rc && rc != -ENODEV)
		return rn_fail(e, rc, "VF %s: unbind from %s: %s", pci, driver, strerror(-rc));
	rc = rn_sysfs_write(pci, "%s/bus/pci/drivers/%s/bind", sys, driver);
	if (rc)
		return rn_fail(e, rc, "VF %s: bind to %s: %s", pci, driver, strerror(-rc));
	return 0;
}

static int live_mtu(void *ctx, const char *ifname, unsigned int mtu, struct rn_error *e)
{
	struct nl_sock *sk = route_sock(e);
	struct rtnl_link *link = NULL, *change;
	int rc;

	(void)ctx;
	if (!sk)
		return e ? e->code : -EIO;
	rc = rtnl_link_get_kernel(sk, 0, ifname, &link);
	change = rc >= 0 ? rtnl_link_alloc() : NULL;
	if (change) {
		rtnl_link_set_mtu(change, mtu);
		rc = rtnl_link_change(sk, link, change, 0);
		rtnl_link_put(change);
	}
	if (link)
		rtnl_link_put(link);
	nl_socket_free(sk);
	if (rc < 0)
		return rn_fail(e, rn_nl_errno(rc), "%s: mtu %u: %s", ifname, mtu, nl_geterror(rc));
	return 0;
}

const struct rn_sriov_ops rn_sriov_live_ops = {
	.vf_admin_get = live_admin_get,
	.vf_apply = live_apply,
	.vf_set_guids = live_set_guids,
	.vf_rebind = live_rebind,
	.netdev_set_mtu = live_mtu,
};

struct find_dev {
	const char *name;
	unsigned int index;
};

static int find_dev_cb(const struct rn_rdma_nl_dev *d, void *arg)
{
	struct find_dev *f = arg;

	if (strcmp(d->name, f->name))
		return 0;
	f->index = d->index;
	return 1;
}

int rn_sriov_rdma_dev_move(const char *rdma_dev, int netns_fd, struct rn_error *e)
{
	struct find_dev f = { .name = rdma_dev };
	struct rn_rdma_nl *nl;
	int mode = -1, rc;

	rc = rn_rdma_nl_open(&nl, e);
	if (rc)
		return rc;
	rc = rn_rdma_nl_netns_mode_get(nl, &mode, e);
	if (!rc && mode != 0) {
		rn_rdma_nl_close(nl);
		return rn_fail(e, -EPERM, "RDMA device %s: the RDMA subsystem is in shared netns "
			       "mode; moving a VF's RDMA device needs `rdma system set netns "
			       "exclusive` (rdma.netns_mode \"exclusive\")", rdma_dev);
	}
	rc = rn_rdma_nl_dev_dump(nl, find_dev_cb, &f, e);
	if (!rc && !f.index)
		rc = rn_fail(e, -ENODEV, "RDMA device %s: not in this network namespace", rdma_dev);
	if (!rc) {
		rc = rn_rdma_nl_dev_set_netns(nl, f.index, netns_fd, e);
		if (rc == -EOPNOTSUPP)
			rn_fail(e, rc, "RDMA device %s: its driver cannot move between network "
				"namespaces (EOPNOTSUPP: it cannot disassociate user contexts; "
				"rxe never can)", rdma_dev);
		else if (rc)
			rn_fail_wrap(e, "RDMA device %s", rdma_dev);
	}
	rn_rdma_nl_close(nl);
	return rc;
}
