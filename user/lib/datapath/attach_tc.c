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

static int prog_id_is(__u32 id, const char *name)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id), ok;

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	ok = !bpf_prog_get_info_by_fd(fd, &info, &len) && !strcmp(info.name, name);
	close(fd);
	return ok;
}

/* A pinned tcx link of ours, still attached to this ifindex? Stale pins
 * (device gone, link defunct) are removed. */
static int tcx_ours(const char *path, int ifindex, bool ingress)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	int fd = bpf_obj_get(path), ok;

	if (fd < 0)
		return 0;
	memset(&info, 0, sizeof(info));
	ok = !bpf_link_get_info_by_fd(fd, &info, &len) && info.type == BPF_LINK_TYPE_TCX &&
	     (int)info.tcx.ifindex == ifindex && prog_id_is(info.prog_id, prog_name(ingress));
	close(fd);
	if (!ok)
		unlink(path);
	return ok;
}

static int clsact_ours(int ifindex, bool ingress)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
			    .attach_point = ingress ? BPF_TC_INGRESS : BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = RN_TC_HANDLE, .priority = RN_TC_PRIO);
	int err;

	rn_log_libbpf_quiet(1);
	err = bpf_tc_query(&hook, &opts);
	rn_log_libbpf_quiet(0);
	return !err && prog_id_is(opts.prog_id, prog_name(ingress));
}

struct tc_skel {
	struct tc_egress *egress;
	struct tc_ingress *ingress;
	int prog_fd;
};

static int tc_load(struct tc_skel *t, const char *pin_dir, __u32 slot, bool ingress)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
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
	return err;
}

static void tc_unload(struct tc_skel *t)
{
	tc_egress__destroy(t->egress);
	tc_ingress__destroy(t->ingress);
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

	*state = RN_TC_NONE;
	if (link_pin_path(path, sizeof(path), pin_dir, ifindex, ingress))
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
	if (tcx_ours(path, ifindex, ingress)) {
		*state = RN_TC_TCX;
		return 0;
	}
	if (clsact_ours(ifindex, ingress)) {
		*state = RN_TC_CLSACT;
		return 0;
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
