// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_sched.h>
#include <netlink/netlink.h>
#include <netlink/route/classifier.h>

#include "attach.h"
#include "log.h"
#include "map_sizes_user.h"
#include "pin.h"
#include "prog_tag.h"
#include "tc_egress.skel.h"
#include "tc_ingress.skel.h"

static const char *prog_name(bool ingress)
{
	return ingress ? RN_TC_INGRESS_PROG_NAME : RN_TC_EGRESS_PROG_NAME;
}

static int link_pin_path(char *path, size_t size, const char *pin_dir, int ifindex, bool ingress)
{
	int n = snprintf(path, size, "%s/%s/tcx_%s_%d", pin_dir, RN_PIN_LINKS,
			 ingress ? "ingress" : "egress", ifindex);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static __u32 prog_id_if(__u32 id, const char *name)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), ok;

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	ok = !bpf_prog_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name);
	close(fd);
	return ok ? id : 0;
}

/* A pinned tcx link of ours, still attached to this ifindex? Returns its
 * program's id and the link's fd in *link_fd, or 0. Stale pins (device
 * gone, link defunct) are removed. */
static __u32 tcx_ours(const char *path, int ifindex, bool ingress, int *link_fd)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info), id = 0;
	int fd = bpf_obj_get(path);

	*link_fd = -1;
	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	if (!bpf_link_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_TCX &&
	    (int)info.tcx.ifindex == ifindex)
		id = prog_id_if(info.prog_id, prog_name(ingress));
	if (id) {
		*link_fd = fd;
		return id;
	}
	close(fd);
	unlink(path);
	return 0;
}

/* The id of our clsact filter's program on this hook, or 0. */
static __u32 clsact_ours(int ifindex, bool ingress)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RN_TC_HANDLE, .priority = RN_TC_PRIO);
	int err;

	rn_log_libbpf_quiet(1);
	err = bpf_tc_query(&hook, &opts);
	rn_log_libbpf_quiet(0);
	return err ? 0 : prog_id_if(opts.prog_id, prog_name(ingress));
}

struct tc_skel {
	struct tc_egress *egress;
	struct tc_ingress *ingress;
	int prog_fd;
};

static enum rn_prog_kind prog_kind(bool ingress)
{
	return ingress ? RN_PROG_TC_INGRESS : RN_PROG_TC_EGRESS;
}

static int tc_load(struct tc_skel *t, const char *pin_dir, __u32 slot, bool ingress)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
	struct rn_prog_tag tag;
	int err;

	memset(t, 0, sizeof(*t));
	if (ingress) {
		t->ingress = tc_ingress__open_opts(&opts);
		if (!t->ingress)
			return -errno;
		t->ingress->rodata->rn_master_slot = slot;
		rn_maps_size_like_pins(t->ingress->obj, pin_dir, RN_DEFAULT_MAX_PODS);
		err = tc_ingress__load(t->ingress);
		if (!err)
			t->prog_fd = bpf_program__fd(t->ingress->progs.rn_tc_ingress);
	} else {
		t->egress = tc_egress__open_opts(&opts);
		if (!t->egress)
			return -errno;
		t->egress->rodata->rn_master_slot = slot;
		rn_maps_size_like_pins(t->egress->obj, pin_dir, RN_DEFAULT_MAX_PODS);
		err = tc_egress__load(t->egress);
		if (!err)
			t->prog_fd = bpf_program__fd(t->egress->progs.rn_tc_egress);
	}
	if (!err && !rn_prog_tag_of_fd(t->prog_fd, &tag))
		rn_build_tag_put(prog_kind(ingress), slot, &tag);
	return err;
}

static void tc_unload(struct tc_skel *t)
{
	tc_egress__destroy(t->egress);
	tc_ingress__destroy(t->ingress);
}

/* 1 if the attached program (id) is this build's, 0 if another build's,
 * or a negative errno. The first look per (hook, slot) loads this build's
 * program to learn its tag. */
static int same_build(__u32 id, const char *pin_dir, __u32 slot, bool ingress,
		      struct rn_prog_tag *have, struct rn_prog_tag *want)
{
	struct tc_skel t;
	int err = rn_prog_tag_of_id(id, have);

	if (err)
		return err;
	if (!rn_build_tag_get(prog_kind(ingress), slot, want)) {
		err = tc_load(&t, pin_dir, slot, ingress);
		tc_unload(&t);
		if (err)
			return err;
		if (!rn_build_tag_get(prog_kind(ingress), slot, want))
			return -EIO;
	}
	return rn_prog_tag_eq(have, want);
}

/* Our program is attached (tcx link_fd, or the clsact filter when
 * link_fd < 0): keep it if it is this build's, else put this build's in
 * its place in one step. A tcx link update and a cls_bpf filter change
 * with the same handle and priority both swap the program under RCU:
 * every packet meets either the old program or the new one, never
 * neither, never both. BPF_F_REPLACE makes the update fail rather than
 * replace a program someone else put there meanwhile. */
static int tc_upgrade(const char *pin_dir, int ifindex, __u32 slot, bool ingress, int link_fd,
		      __u32 old_id, struct rn_error *e)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RN_TC_HANDLE, .priority = RN_TC_PRIO,
			    .flags = BPF_TC_F_REPLACE);
	struct rn_prog_tag have, want;
	char h[2 * BPF_TAG_SIZE + 1], w[2 * BPF_TAG_SIZE + 1];
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct tc_skel t;
	int err, old_fd;

	err = same_build(old_id, pin_dir, slot, ingress, &have, &want);
	if (err > 0)
		return 0;
	if (err < 0)
		return rn_fail(e, err, "%s (id %u) on ifindex %d: cannot tell whether it is this "
			       "build's: %s", prog_name(ingress), old_id, ifindex, strerror(-err));
	err = tc_load(&t, pin_dir, slot, ingress);
	if (err) {
		tc_unload(&t);
		return rn_fail(e, err, "load %s: %s", prog_name(ingress), strerror(-err));
	}
	if (link_fd >= 0) {
		LIBBPF_OPTS(bpf_link_update_opts, uo, .flags = BPF_F_REPLACE);

		old_fd = bpf_prog_get_fd_by_id(old_id);
		uo.old_prog_fd = old_fd;
		err = old_fd < 0 ? -errno : bpf_link_update(link_fd, t.prog_fd, &uo);
		if (old_fd >= 0)
			close(old_fd);
	} else {
		opts.prog_fd = t.prog_fd;
		err = bpf_tc_attach(&hook, &opts);
	}
	memset(&info, 0, sizeof(info));
	if (!err)
		bpf_prog_get_info_by_fd(t.prog_fd, &info, &len);
	tc_unload(&t);
	if (err)
		return rn_fail(e, err, "replace %s of another build on ifindex %d (%s): %s",
			       prog_name(ingress), ifindex, link_fd >= 0 ? "tcx link update" :
			       "clsact filter replace", strerror(-err));
	rn_info("ifindex %d: %s upgraded in place (%s): id %u tag %s -> id %u tag %s",
		ifindex, prog_name(ingress), link_fd >= 0 ? "tcx link update" : "clsact filter replace",
		old_id, rn_prog_tag_str(&have, h), info.id, rn_prog_tag_str(&want, w));
	return 0;
}

int rn_tc_attach(const char *pin_dir, int ifindex, __u32 slot, bool ingress,
		 enum rn_tc_mode mode, enum rn_tc_state *state, bool *own_qdisc,
		 struct rn_error *e)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RN_TC_HANDLE, .priority = RN_TC_PRIO);
	char path[PATH_MAX];
	struct tc_skel t;
	int err, link;
	__u32 id;

	*state = RN_TC_NONE;
	if (link_pin_path(path, sizeof(path), pin_dir, ifindex, ingress))
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
	id = tcx_ours(path, ifindex, ingress, &link);
	if (id) {
		*state = RN_TC_TCX;
		err = tc_upgrade(pin_dir, ifindex, slot, ingress, link, id, e);
		close(link);
		return err;
	}
	id = clsact_ours(ifindex, ingress);
	if (id) {
		*state = RN_TC_CLSACT;
		return tc_upgrade(pin_dir, ifindex, slot, ingress, -1, id, e);
	}
	err = tc_load(&t, pin_dir, slot, ingress);
	if (err) {
		tc_unload(&t);
		return rn_fail(e, err, "load %s: %s", prog_name(ingress), strerror(-err));
	}
	/* tcx first: links are owned, ordered and survive us when pinned */
	link = mode == RN_TC_MODE_CLSACT ? -1 :
	       bpf_link_create(t.prog_fd, ifindex, ingress ? BPF_TCX_INGRESS : BPF_TCX_EGRESS, NULL);
	if (link < 0 && mode == RN_TC_MODE_TCX) {
		err = -errno;
		tc_unload(&t);
		return rn_fail(e, err, "tcx attach: %s", strerror(-err));
	}
	if (link >= 0) {
		err = bpf_obj_pin(link, path) ? -errno : 0;
		if (err)
			bpf_link_detach(link);
		close(link);
		tc_unload(&t);
		if (err)
			return rn_fail(e, err, "pin %s: %s", path, strerror(-err));
		*state = RN_TC_TCX;
		return 0;
	}
	if (mode == RN_TC_MODE_AUTO)
		rn_info("ifindex %d: tcx unavailable (%s), using a clsact filter", ifindex,
			strerror(errno));
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		tc_unload(&t);
		return rn_fail(e, err, "create clsact qdisc: %s", strerror(-err));
	}
	if (!err)
		*own_qdisc = true;
	opts.prog_fd = t.prog_fd;
	err = bpf_tc_attach(&hook, &opts);
	tc_unload(&t);
	if (err)
		return rn_fail(e, err, "attach clsact filter: %s", strerror(-err));
	*state = RN_TC_CLSACT;
	return 0;
}

static int clsact_filters_left(int ifindex)
{
	struct nl_sock *sk = nl_socket_alloc();
	__u32 parents[] = { TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_INGRESS),
			    TC_H_MAKE(TC_H_CLSACT, TC_H_MIN_EGRESS) };
	int left = 0;

	if (!sk || nl_connect(sk, NETLINK_ROUTE)) {
		nl_socket_free(sk);
		return 1;	/* unknown: keep the qdisc */
	}
	for (int i = 0; i < 2; i++) {
		struct nl_cache *cache = NULL;

		if (rtnl_cls_alloc_cache(sk, ifindex, parents[i], &cache)) {
			left = 1;
			continue;
		}
		left += nl_cache_nitems(cache);
		nl_cache_free(cache);
	}
	nl_socket_free(sk);
	return left;
}

int rn_tc_detach(const char *pin_dir, int ifindex, bool own_qdisc, struct rn_error *e)
{
	char path[PATH_MAX];
	int err = 0;

	for (int ingress = 0; ingress < 2; ingress++) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
				    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
		DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RN_TC_HANDLE,
				    .priority = RN_TC_PRIO);
		int fd;

		if (link_pin_path(path, sizeof(path), pin_dir, ifindex, ingress))
			return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			if (bpf_link_detach(fd) && errno != ENOLINK && errno != EINVAL)
				err = rn_fail(e, -errno, "detach tcx link %s: %s", path,
					      strerror(errno));
			close(fd);
			unlink(path);
		}
		if (clsact_ours(ifindex, ingress)) {
			opts.prog_fd = opts.prog_id = opts.flags = 0;
			if (bpf_tc_detach(&hook, &opts))
				err = rn_fail(e, -errno, "detach clsact filter: %s", strerror(errno));
		}
	}
	if (own_qdisc && !clsact_filters_left(ifindex)) {
		DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
				    .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);

		bpf_tc_hook_destroy(&hook);
	}
	return err;
}
