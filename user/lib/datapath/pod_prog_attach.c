// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CNI plugin's half of the per-pod program (pod_prog.h): bpf(2) and
 * netlink, no libbpf. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <sys/socket.h>

#include "attach.h"
#include "map_syscall.h"
#include "maps.h"
#include "pin.h"
#include "pod_prog.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

__u64 rn_netns_cookie_of(int sock_fd)
{
	__u64 cookie = 0;
	socklen_t len = sizeof(cookie);

	if (getsockopt(sock_fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		return 0;
	return cookie;
}

bool rn_pod_prog_is_pinned(const char *pin_dir)
{
	char path[PATH_MAX];

	return !rn_pin_path(path, sizeof(path), pin_dir, RN_POD_PROG_PIN) && !access(path, F_OK);
}

static int link_pin_path(char *path, size_t size, const char *pin_dir, __u32 slot)
{
	int n = snprintf(path, size, "%s/%s/pod_%u", pin_dir, RN_PIN_LINKS, slot);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int obj_get_pinned(const char *pin_dir, const char *name)
{
	char path[PATH_MAX];

	if (rn_pin_path(path, sizeof(path), pin_dir, name))
		return -ENAMETOOLONG;
	return rn_bpf_obj_get(path);
}

/* Unpins a pinned tcx link; nothing pinned is not an error. The pin is
 * the link's only reference: the kernel releases it from a workqueue,
 * detaching it there. An explicit BPF_LINK_DETACH would wait in DEL (or in
 * an ADD's rollback) for the RCU grace period tcx takes on every detach,
 * and the interface is deleted right after anyway. */
static int link_unpin(const char *path)
{
	if (unlink(path) && errno != ENOENT)
		return -errno;
	return 0;
}

/* tcx, first in the chain (BPF_F_BEFORE, no anchor), pinned at path. */
static int tcx_attach(int prog_fd, int ifindex, const char *path)
{
	union bpf_attr a;
	int link, rc;

	memset(&a, 0, sizeof(a));
	a.link_create.prog_fd = prog_fd;
	a.link_create.target_ifindex = ifindex;
	a.link_create.attach_type = BPF_TCX_EGRESS;
	a.link_create.flags = BPF_F_BEFORE;
	link = rn_sys_bpf(BPF_LINK_CREATE, &a);
	if (link < 0)
		return link;
	memset(&a, 0, sizeof(a));
	a.pathname = rn_bpf_ptr(path);
	a.bpf_fd = link;
	rc = rn_sys_bpf(BPF_OBJ_PIN, &a);
	if (rc < 0) {
		memset(&a, 0, sizeof(a));
		a.link_detach.link_fd = link;
		rn_sys_bpf(BPF_LINK_DETACH, &a);
	}
	close(link);
	return rc < 0 ? rc : 0;
}

static int tc_request(struct nl_sock *nl, int type, int flags, const struct tcmsg *t,
		      const char *kind, int prog_fd)
{
	struct nl_msg *msg = nlmsg_alloc_simple(type, NLM_F_REQUEST | NLM_F_ACK | flags);
	struct nlattr *opts;
	int rc = -ENOMEM;

	if (!msg)
		return -ENOMEM;
	if (nlmsg_append(msg, (void *)t, sizeof(*t), NLMSG_ALIGNTO) ||
	    nla_put_string(msg, TCA_KIND, kind))
		goto out;
	if (prog_fd >= 0) {
		opts = nla_nest_start(msg, TCA_OPTIONS);
		if (!opts || nla_put_u32(msg, TCA_BPF_FD, (uint32_t)prog_fd) ||
		    nla_put_string(msg, TCA_BPF_NAME, RN_POD_PROG_NAME) ||
		    nla_put_u32(msg, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT))
			goto out;
		nla_nest_end(msg, opts);
	}
	rc = nl_send_sync(nl, msg);
	msg = NULL;
	/* libnl's codes to errnos for the two the callers tell apart */
	if (rc == -NLE_EXIST)
		rc = -EEXIST;
	else if (rc < 0)
		rc = -EIO;
out:
	nlmsg_free(msg);
	return rc;
}

/* clsact qdisc (kept if there) and our cls_bpf filter on its egress, at
 * the handle and priority the master's filters use. */
static int clsact_attach(struct nl_sock *nl, int prog_fd, int ifindex)
{
	struct tcmsg q = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			   .tcm_handle = TC_H_MAKE(TC_H_CLSACT, 0), .tcm_parent = TC_H_CLSACT };
	struct tcmsg f = { .tcm_family = AF_UNSPEC, .tcm_ifindex = ifindex,
			   .tcm_handle = RN_TC_HANDLE,
			   .tcm_parent = TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS),
			   .tcm_info = TC_H_MAKE((__u32)RN_TC_PRIO << 16, htons(ETH_P_ALL)) };
	int rc = tc_request(nl, RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL, &q, "clsact", -1);

	if (rc && rc != -EEXIST)
		return rc;
	return tc_request(nl, RTM_NEWTFILTER, NLM_F_CREATE | NLM_F_REPLACE, &f, "bpf", prog_fd);
}

/* The clsact filter carries the tail call that follows the agent's
 * upgrades (rn_pod_egress_clsact), where the agent pinned one; an older
 * agent did not: its program then. */
static int pod_clsact_attach(const char *pin_dir, struct nl_sock *nl, int prog, int ifindex)
{
	int stub = obj_get_pinned(pin_dir, RN_POD_CLSACT_PROG_PIN);
	int rc = clsact_attach(nl, stub >= 0 ? stub : prog, ifindex);

	if (stub >= 0)
		close(stub);
	return rc;
}

static int set_guarded(int info_fd, __u32 slot, bool on)
{
	struct rn_pod pod;
	int rc = rn_bpf_map_lookup(info_fd, &slot, &pod);

	if (rc)
		return rc;
	if (on)
		pod.flags |= RN_POD_F_GUARDED;
	else
		pod.flags &= (__u8)~RN_POD_F_GUARDED;
	return rn_bpf_map_update(info_fd, &slot, &pod, BPF_EXIST);
}

/* Records where slot's entry is (an older agent pinned no rn_pod_devat_v1:
 * DEL then reads the table). */
static int dev_at_record(const char *pin_dir, __u32 slot, __u32 at)
{
	int devat = obj_get_pinned(pin_dir, RN_POD_DEVAT_MAP);
	int rc;

	if (devat == -ENOENT)
		return 0;
	if (devat < 0)
		return devat;
	rc = rn_bpf_map_update(devat, &slot, &at, BPF_ANY);
	close(devat);
	return rc;
}

/* Writes (cookie, ifindex) -> slot into its bucket: over its own entry if
 * there (a DEL that never finished), else into a free way; where, in
 * rn_pod_devat_v1 first, so that no entry is ever written unrecorded.
 * *at: where. */
static int dev_entry_put(const char *pin_dir, int dev_fd, const struct rn_pod_dev *v,
			 __u32 *at)
{
	__u32 first = rn_pod_dev_bucket(v->netns_cookie, v->ifindex) * RN_POD_DEV_WAYS;
	__u32 free_at = UINT32_MAX;
	struct rn_pod_dev cur;
	int rc;

	for (__u32 i = first; i < first + RN_POD_DEV_WAYS; i++) {
		rc = rn_bpf_map_lookup(dev_fd, &i, &cur);
		if (rc)
			return rc;
		if (cur.netns_cookie == v->netns_cookie && cur.ifindex == v->ifindex) {
			free_at = i;
			break;
		}
		if (!cur.netns_cookie && free_at == UINT32_MAX)
			free_at = i;
	}
	if (free_at == UINT32_MAX)
		return -ENOSPC;
	*at = free_at;
	rc = dev_at_record(pin_dir, v->slot, free_at);
	return rc ? rc : rn_bpf_map_update(dev_fd, at, v, BPF_ANY);
}

/* Zeroes every entry naming slot (read in batches: the table is large). */
static int dev_entries_scan_drop(int dev_fd, __u32 slot)
{
	enum { CHUNK = 1024 };
	static struct rn_pod_dev vals[CHUNK];
	static __u32 keys[CHUNK];
	const struct rn_pod_dev zero = { 0 };
	__u32 batch = 0, count;
	bool first = true;
	int rc = 0, err;

	do {
		count = CHUNK;
		err = rn_bpf_map_lookup_batch(dev_fd, first ? NULL : &batch, &batch, keys, vals,
					      &count);
		if (err && err != -ENOENT)
			return err;
		first = false;
		for (__u32 i = 0; i < count; i++)
			if (vals[i].netns_cookie && vals[i].slot == slot &&
			    rn_bpf_map_update(dev_fd, &keys[i], &zero, BPF_ANY))
				rc = -errno;
	} while (!err);
	return rc;
}

/* Whether the pod in slot is marked guarded (0 if unknown). */
static bool pod_guarded(const char *pin_dir, __u32 slot)
{
	int info = obj_get_pinned(pin_dir, RN_POD_INFO_MAP);
	struct rn_pod pod;
	bool on;

	if (info < 0)
		return false;
	on = !rn_bpf_map_lookup(info, &slot, &pod) && (pod.flags & RN_POD_F_GUARDED);
	close(info);
	return on;
}

/* Zeroes slot's entry where rn_pod_devat_v1 says the ADD put it. The
 * whole table is read only where that cannot say: an agent older than
 * the map, or a guarded pod an older plugin added without a record. */
static int dev_entries_drop(const char *pin_dir, int dev_fd, __u32 slot)
{
	const struct rn_pod_dev zero = { 0 };
	int devat = obj_get_pinned(pin_dir, RN_POD_DEVAT_MAP);
	struct rn_pod_dev cur;
	__u32 at;
	int rc = 0;

	if (devat < 0)
		return dev_entries_scan_drop(dev_fd, slot);
	if (!rn_bpf_map_lookup(devat, &slot, &at)) {
		if (!rn_bpf_map_lookup(dev_fd, &at, &cur) && cur.netns_cookie && cur.slot == slot)
			rc = rn_bpf_map_update(dev_fd, &at, &zero, BPF_ANY);
		if (!rc) {
			rc = rn_bpf_map_delete(devat, &slot);
			if (rc == -ENOENT)
				rc = 0;
		}
	} else if (pod_guarded(pin_dir, slot)) {
		rc = dev_entries_scan_drop(dev_fd, slot);
	}
	close(devat);
	return rc;
}

int rn_pod_prog_attach(const char *pin_dir, struct nl_sock *nl, int ifindex, __u32 slot,
		       enum rn_tc_mode mode, enum rn_pod_attach *how, struct rn_error *e)
{
	struct rn_pod_dev v = { .ifindex = (__u32)ifindex, .slot = slot };
	char path[PATH_MAX];
	struct rn_pod pod;
	int prog, info = -1, dev = -1, lock = -1, rc;
	__u32 at = 0;

	*how = RN_POD_ATTACH_NONE;
	prog = obj_get_pinned(pin_dir, RN_POD_PROG_PIN);
	if (prog == -ENOENT)
		return rn_fail(e, 1, "rdmanetd has pinned no per-pod program at %s/%s",
			       pin_dir, RN_POD_PROG_PIN);
	if (prog < 0)
		return rn_fail(e, prog, "per-pod program: %s", strerror(-prog));
	if (link_pin_path(path, sizeof(path), pin_dir, slot)) {
		close(prog);
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
	}
	v.netns_cookie = rn_netns_cookie_of(nl_socket_get_fd(nl));
	/* the one registry map this step reads and writes: opening all of
	 * them (rn_maps_open) cost an ADD nine more BPF_OBJ_GETs and a map
	 * info call; the caller has just found the slot through them */
	info = obj_get_pinned(pin_dir, RN_POD_INFO_MAP);
	dev = obj_get_pinned(pin_dir, RN_POD_DEV_MAP);
	lock = rn_pin_lock_registry(pin_dir, e);
	if (lock < 0) {
		rc = e->code;
		goto out;
	}
	if (info < 0) {
		rc = rn_fail(e, info, "%s: %s", RN_POD_INFO_MAP, strerror(-info));
		goto out;
	}
	if (!v.netns_cookie) {
		rc = rn_fail(e, -EOPNOTSUPP, "SO_NETNS_COOKIE: %s (the per-pod program needs "
			     "Linux 5.14)", strerror(errno));
		goto out;
	}
	if (dev < 0) {
		rc = rn_fail(e, dev, "%s: %s", RN_POD_DEV_MAP, strerror(-dev));
		goto out;
	}
	rc = rn_bpf_map_lookup(info, &slot, &pod);
	if (rc) {
		rn_fail(e, rc, "pod slot %u: %s", slot, strerror(-rc));
		goto out;
	}
	memcpy(&v.key_bits, &pod, sizeof(v.key_bits));
	rc = dev_entry_put(pin_dir, dev, &v, &at);
	if (rc) {
		rn_fail(e, rc, "%s: %s", RN_POD_DEV_MAP, strerror(-rc));
		goto out;
	}
	/* a DEL that never finished left this slot's link behind */
	link_unpin(path);
	/* clsact unless the master's tc_mode says tcx: a tcx attach waits for
	 * an RCU grace period holding the RTNL (tcx_entry_sync), and so does
	 * the device's deletion at DEL (tcx_uninstall), about 10 ms each at
	 * load that every other netlink user on the node waits out too; a
	 * clsact filter waits for none. tcx stays where clsact is refused. */
	rc = mode == RN_TC_MODE_TCX ? -EOPNOTSUPP : pod_clsact_attach(pin_dir, nl, prog, ifindex);
	if (!rc) {
		*how = RN_POD_ATTACH_CLSACT;
	} else if (mode != RN_TC_MODE_CLSACT) {
		int clsact_rc = rc;

		rc = tcx_attach(prog, ifindex, path);
		if (!rc)
			*how = RN_POD_ATTACH_TCX;
		else if (mode == RN_TC_MODE_TCX)
			rn_fail(e, rc, "tcx attach to ifindex %d: %s", ifindex, strerror(-rc));
		else
			rn_fail(e, rc, "clsact filter on ifindex %d: %s; tcx attach: %s", ifindex,
				strerror(-clsact_rc), strerror(-rc));
	} else {
		rn_fail(e, rc, "clsact filter on ifindex %d: %s", ifindex, strerror(-rc));
	}
	if (!rc) {
		rc = set_guarded(info, slot, true);
		if (rc)
			rn_fail(e, rc, "pod slot %u: %s", slot, strerror(-rc));
	}
	if (rc) {
		link_unpin(path);
		dev_entries_drop(pin_dir, dev, slot);
		*how = RN_POD_ATTACH_NONE;
	}
out:
	if (lock >= 0)
		rn_pin_unlock(lock);
	if (dev >= 0)
		close(dev);
	if (info >= 0)
		close(info);
	close(prog);
	return rc;
}

int rn_pod_prog_detach(const char *pin_dir, __u32 slot, struct rn_error *e)
{
	char path[PATH_MAX];
	int dev, rc;

	if (link_pin_path(path, sizeof(path), pin_dir, slot))
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
	rc = link_unpin(path);
	if (rc)
		return rn_fail(e, rc, "per-pod link %s: %s", path, strerror(-rc));
	dev = obj_get_pinned(pin_dir, RN_POD_DEV_MAP);
	if (dev == -ENOENT)
		return 0;
	if (dev < 0)
		return rn_fail(e, dev, "%s: %s", RN_POD_DEV_MAP, strerror(-dev));
	rc = dev_entries_drop(pin_dir, dev, slot);
	close(dev);
	return rc ? rn_fail(e, rc, "%s: %s", RN_POD_DEV_MAP, strerror(-rc)) : 0;
}
