// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if_link.h>
#include <xdp/libxdp.h>

#include "attach.h"
#include "log.h"
#include "map_sizes_user.h"
#include "maps.h"
#include "pin.h"
#include "prog_tag.h"
#include "xdp_rx.skel.h"

/* Packets already inside a dispatcher that was just replaced finish in it
 * within a NAPI poll (microseconds); this is well past that. */
#define RN_XDP_SWAP_GRACE_US 20000
/* xdp_gen of a master whose attached program may predate generations */
#define RN_XDP_GEN_HOLD 255

static enum rn_xdp_state state_of(enum xdp_attach_mode mode)
{
	return mode == XDP_MODE_SKB ? RN_XDP_SKB : RN_XDP_NATIVE;
}

struct xdp_found {
	__u32 id;
	struct rn_prog_tag tag;
	enum xdp_attach_mode mode;
	bool legacy;		/* attached alone, not through the dispatcher */
	int n;			/* instances of ours (more than one: an upgrade cut short) */
};

/* Is our program in the interface's dispatcher (or attached alone)? With
 * several instances, the one to report is one whose tag is not want (so an
 * upgrade cut short is finished), else the first. */
static int find_ours(int ifindex, const struct rn_prog_tag *want, struct xdp_found *f)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;

	f->n = 0;
	if (libxdp_get_error(mp))
		return 0;
	f->legacy = xdp_multiprog__is_legacy(mp);
	f->mode = xdp_multiprog__attach_mode(mp);
	p = f->legacy ? xdp_multiprog__main_prog(mp) : xdp_multiprog__next_prog(NULL, mp);
	for (; p; p = f->legacy ? NULL : xdp_multiprog__next_prog(p, mp)) {
		struct rn_prog_tag tag;

		if (strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
			continue;
		memcpy(tag.b, xdp_program__tag(p), sizeof(tag.b));
		if (!f->n++ || (want && rn_prog_tag_eq(&f->tag, want) && !rn_prog_tag_eq(&tag, want))) {
			f->id = xdp_program__id(p);
			f->tag = tag;
		}
	}
	xdp_multiprog__close(mp);
	return f->n > 0;
}

static struct xdp_rx *open_prog(const char *pin_dir, __u32 slot, __u8 gen)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .pin_root_path = pin_dir);
	struct xdp_rx *skel = xdp_rx__open_opts(&oopts);

	if (!skel)
		return NULL;
	skel->rodata->rn_master_slot = slot;
	skel->rodata->rn_xdp_gen = gen;
	rn_maps_size_like_pins(skel->obj, pin_dir, RN_DEFAULT_MAX_PODS);
	return skel;
}

/* This build's tag, learnt once per slot by loading the program alone
 * (the tag is over the instructions: the same as in the dispatcher). */
static int build_tag(const char *pin_dir, __u32 slot, struct rn_prog_tag *tag)
{
	struct xdp_rx *skel;
	int err;

	if (rn_build_tag_get(RN_PROG_XDP_RX, slot, tag))
		return 0;
	skel = open_prog(pin_dir, slot, 0);
	if (!skel)
		return -errno;
	err = xdp_rx__load(skel);
	if (!err)
		err = rn_prog_tag_of_fd(bpf_program__fd(skel->progs.rn_xdp_rx), tag);
	xdp_rx__destroy(skel);
	if (!err)
		rn_build_tag_put(RN_PROG_XDP_RX, slot, tag);
	return err;
}

/* Attaches through libxdp: into the interface's dispatcher beside what is
 * there (a new dispatcher replaces the old one in one step), or alone. */
static int try_attach(const char *pin_dir, int ifindex, __u32 slot, __u8 gen,
		      enum xdp_attach_mode mode, __u32 *id)
{
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .prog_name = RN_XDP_PROG_NAME);
	struct xdp_program *prog;
	struct rn_prog_tag tag;
	struct xdp_rx *skel;
	int err;

	skel = open_prog(pin_dir, slot, gen);
	if (!skel)
		return -errno;
	xopts.obj = skel->obj;
	prog = xdp_program__create(&xopts);
	err = libxdp_get_error(prog);
	if (!err) {
		/* libxdp probes for its dispatcher and falls back to attaching
		 * the program alone where the kernel refuses freplace */
		rn_log_libbpf_quiet(1);
		err = xdp_program__attach(prog, ifindex, mode, 0);
		rn_log_libbpf_quiet(0);
		if (!err) {
			memcpy(tag.b, xdp_program__tag(prog), sizeof(tag.b));
			rn_build_tag_put(RN_PROG_XDP_RX, slot, &tag);
			if (id)
				*id = xdp_program__id(prog);
		}
		xdp_program__close(prog);
	}
	/* the dispatcher link pinned by libxdp keeps the program alive */
	xdp_rx__destroy(skel);
	return err;
}

/* Takes every instance of ours but keep out of the dispatcher (each time
 * a new dispatcher without it replaces the old one in one step). */
static int detach_others(int ifindex, __u32 keep)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	int err, found;

	do {
		mp = xdp_multiprog__get_from_ifindex(ifindex);
		if (libxdp_get_error(mp))
			return 0;
		err = found = 0;
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
			if (xdp_program__id(p) == keep ||
			    strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
				continue;
			err = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(mp), 0);
			found = 1;
			break;
		}
		xdp_multiprog__close(mp);
	} while (found && !err);
	return err;
}

static int set_gen(const char *pin_dir, __u32 slot, __u8 gen)
{
	char path[PATH_MAX];
	struct rn_master ms;
	int fd, err = 0;

	if (rn_pin_path(path, sizeof(path), pin_dir, rn_map_names[0]))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &slot, &ms))
		err = -errno;
	ms.xdp_gen = gen;
	if (!err && bpf_map_update_elem(fd, &slot, &ms, BPF_EXIST))
		err = -errno;
	close(fd);
	return err;
}

/* Attached alone (no dispatcher): XDP_FLAGS_REPLACE with the old program
 * as the expected one swaps them in one step. */
static int replace_legacy(const char *pin_dir, int ifindex, __u32 slot, __u8 gen,
			  const struct xdp_found *f, __u32 *id)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, o);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct xdp_rx *skel = open_prog(pin_dir, slot, gen);
	int err, fd;

	if (!skel)
		return -errno;
	err = xdp_rx__load(skel);
	o.old_prog_fd = bpf_prog_get_fd_by_id(f->id);
	if (!err && o.old_prog_fd < 0)
		err = -errno;
	if (!err) {
		fd = bpf_program__fd(skel->progs.rn_xdp_rx);
		err = bpf_xdp_attach(ifindex, fd, XDP_FLAGS_REPLACE | (f->mode == XDP_MODE_SKB ?
				     XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE), &o);
		memset(&info, 0, sizeof(info));
		if (!err && !bpf_prog_get_info_by_fd(fd, &info, &len))
			*id = info.id;
	}
	if (o.old_prog_fd >= 0)
		close(o.old_prog_fd);
	xdp_rx__destroy(skel);
	return err;
}

/* Our program is attached: keep it if it is this build's, else replace it.
 * In the dispatcher the new program goes in beside the old one, silent
 * (its generation is not the master's), the master's xdp_gen flips to it,
 * then the old one goes (and any other instance of ours an upgrade cut
 * short left): every packet is counted by one of them. An old program
 * from before generations (xdp_gen 0) ignores the flip: it is taken out
 * first and the flip follows at once, so only the packets of that instant
 * go uncounted. *gen: the master's xdp_gen, in and out. */
static int xdp_upgrade(const char *pin_dir, int ifindex, __u32 slot, const struct xdp_found *f,
		       __u8 *gen, struct rn_error *e)
{
	char h[2 * BPF_TAG_SIZE + 1], w[2 * BPF_TAG_SIZE + 1], msg[256];
	__u8 old = *gen, next = (__u8)(old % 254 + 1);
	struct rn_prog_tag want;
	__u32 id = 0;
	int err;

	err = build_tag(pin_dir, slot, &want);
	if (err)
		return rn_fail(e, err, "%s (id %u) on ifindex %d: cannot tell whether it is this "
			       "build's: %s", RN_XDP_PROG_NAME, f->id, ifindex, strerror(-err));
	if (rn_prog_tag_eq(&f->tag, &want)) {
		if (*gen != RN_XDP_GEN_HOLD)
			return 0;
		/* an upgrade from before generations stopped between taking the
		 * old program out and the flip: ours was loaded with 0's next */
		err = set_gen(pin_dir, slot, 1);
		if (!err)
			*gen = 1;
		return err ? rn_fail(e, err, "master slot %u: set xdp_gen: %s", slot,
				     strerror(-err)) : 0;
	}
	if (f->legacy) {
		err = replace_legacy(pin_dir, ifindex, slot, old, f, &id);
		if (err)
			return rn_fail(e, err, "replace %s of another build on ifindex %d "
				       "(XDP_FLAGS_REPLACE): %s", RN_XDP_PROG_NAME, ifindex,
				       strerror(-err));
		next = old;
	} else {
		if (!old && (err = set_gen(pin_dir, slot, RN_XDP_GEN_HOLD)))
			return rn_fail(e, err, "master slot %u: set xdp_gen: %s", slot,
				       strerror(-err));
		err = try_attach(pin_dir, ifindex, slot, next, f->mode, &id);
		if (err) {
			if (!old)
				set_gen(pin_dir, slot, 0);
			libxdp_strerror(err, msg, sizeof(msg));
			return rn_fail(e, err, "add this build's %s to the dispatcher on ifindex "
				       "%d: %s", RN_XDP_PROG_NAME, ifindex, msg);
		}
		usleep(RN_XDP_SWAP_GRACE_US);
		if (old) {
			err = set_gen(pin_dir, slot, next);
			usleep(RN_XDP_SWAP_GRACE_US);
		}
		if (!err)
			err = detach_others(ifindex, id);
		if (!old && !err)
			err = set_gen(pin_dir, slot, next);
		if (err) {
			libxdp_strerror(err, msg, sizeof(msg));
			return rn_fail(e, err, "XDP upgrade on ifindex %d: both programs are "
				       "attached (ids %u, %u): %s", ifindex, f->id, id, msg);
		}
	}
	*gen = next;
	rn_info("ifindex %d: %s upgraded in place (%s): id %u tag %s -> id %u tag %s",
		ifindex, RN_XDP_PROG_NAME, f->legacy ? "XDP_FLAGS_REPLACE" : "libxdp dispatcher",
		f->id, rn_prog_tag_str(&f->tag, h), id, rn_prog_tag_str(&want, w));
	return 0;
}

int rn_xdp_attach(const char *pin_dir, int ifindex, __u32 slot, enum rn_xdp_mode mode,
		  __u8 *gen, enum rn_xdp_state *state, struct rn_error *e)
{
	struct rn_prog_tag want;
	struct xdp_found f;
	char msg[256];
	/* a fresh program gets a generation, so its upgrade can be exact */
	__u8 g = *gen ? *gen : 1;
	int err;

	*state = RN_XDP_NONE;
	if (mode == RN_XDP_MODE_OFF)
		return 0;
	if (find_ours(ifindex, NULL, &f)) {
		*state = state_of(f.mode);
		rn_debug("ifindex %d: %s already attached (%s)", ifindex, RN_XDP_PROG_NAME,
			 *state == RN_XDP_SKB ? "skb" : "native");
		if (f.n > 1 && !build_tag(pin_dir, slot, &want))
			find_ours(ifindex, &want, &f);
		return xdp_upgrade(pin_dir, ifindex, slot, &f, gen, e);
	}
	if (mode != RN_XDP_MODE_SKB) {
		err = try_attach(pin_dir, ifindex, slot, g, XDP_MODE_NATIVE, NULL);
		if (!err) {
			*gen = g;
			*state = RN_XDP_NATIVE;
			return 0;
		}
		if (mode == RN_XDP_MODE_NATIVE) {
			libxdp_strerror(err, msg, sizeof(msg));
			return rn_fail(e, err, "XDP native attach: %s", msg);
		}
		rn_info("ifindex %d: native XDP not available (%d), using skb mode", ifindex, err);
	}
	err = try_attach(pin_dir, ifindex, slot, g, XDP_MODE_SKB, NULL);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		return rn_fail(e, err, "XDP skb-mode attach: %s", msg);
	}
	*gen = g;
	*state = RN_XDP_SKB;
	return 0;
}

int rn_xdp_detach(int ifindex, struct rn_error *e)
{
	struct xdp_multiprog *mp;
	struct xdp_program *p;
	char msg[256];
	int err = 0, found;

	/* every instance of ours (an upgrade cut short leaves two) */
	do {
		found = 0;
		mp = xdp_multiprog__get_from_ifindex(ifindex);
		if (libxdp_get_error(mp))
			return 0;	/* nothing attached */
		if (xdp_multiprog__is_legacy(mp)) {
			p = xdp_multiprog__main_prog(mp);
			if (p && !strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
				err = xdp_multiprog__detach(mp);
		} else {
			for (p = xdp_multiprog__next_prog(NULL, mp); p;
			     p = xdp_multiprog__next_prog(p, mp)) {
				if (strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
					continue;
				err = xdp_program__detach(p, ifindex,
							  xdp_multiprog__attach_mode(mp), 0);
				found = !err;
				break;
			}
		}
		xdp_multiprog__close(mp);
	} while (found);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		return rn_fail(e, err, "XDP detach from ifindex %d: %s", ifindex, msg);
	}
	return 0;
}
