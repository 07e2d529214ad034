// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <xdp/libxdp.h>

#include "attach.h"
#include "log.h"
#include "map_sizes_user.h"
#include "xdp_rx.skel.h"

static enum rn_xdp_state state_of(enum xdp_attach_mode mode)
{
	return mode == XDP_MODE_SKB ? RN_XDP_SKB : RN_XDP_NATIVE;
}

/* Is our program in the interface's dispatcher (or attached alone)? */
static int find_ours(int ifindex, enum rn_xdp_state *state)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	int found = 0;

	if (libxdp_get_error(mp))
		return 0;
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		found = p && !strcmp(xdp_program__name(p), RN_XDP_PROG_NAME);
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p && !found;
		     p = xdp_multiprog__next_prog(p, mp))
			found = !strcmp(xdp_program__name(p), RN_XDP_PROG_NAME);
	}
	if (found)
		*state = state_of(xdp_multiprog__attach_mode(mp));
	xdp_multiprog__close(mp);
	return found;
}

static int try_attach(const char *pin_dir, int ifindex, __u32 slot, enum xdp_attach_mode mode)
{
	LIBBPF_OPTS(bpf_object_open_opts, oopts, .pin_root_path = pin_dir);
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xopts, .prog_name = RN_XDP_PROG_NAME);
	struct xdp_program *prog;
	struct xdp_rx *skel;
	int err;

	skel = xdp_rx__open_opts(&oopts);
	if (!skel)
		return -errno;
	skel->rodata->rn_master_slot = slot;
	rn_maps_size_like_pins(skel->obj, pin_dir, RN_DEFAULT_MAX_PODS);
	xopts.obj = skel->obj;
	prog = xdp_program__create(&xopts);
	err = libxdp_get_error(prog);
	if (!err) {
		/* libxdp probes for its dispatcher and falls back to attaching
		 * the program alone where the kernel refuses freplace */
		rn_log_libbpf_quiet(1);
		err = xdp_program__attach(prog, ifindex, mode, 0);
		rn_log_libbpf_quiet(0);
		xdp_program__close(prog);
	}
	/* the dispatcher link pinned by libxdp keeps the program alive */
	xdp_rx__destroy(skel);
	return err;
}

int rn_xdp_attach(const char *pin_dir, int ifindex, __u32 slot, enum rn_xdp_mode mode,
		  enum rn_xdp_state *state, struct rn_error *e)
{
	char msg[256];
	int err;

	*state = RN_XDP_NONE;
	if (mode == RN_XDP_MODE_OFF)
		return 0;
	if (find_ours(ifindex, state)) {
		rn_debug("ifindex %d: %s already attached (%s)", ifindex, RN_XDP_PROG_NAME,
			 *state == RN_XDP_SKB ? "skb" : "native");
		return 0;
	}
	if (mode != RN_XDP_MODE_SKB) {
		err = try_attach(pin_dir, ifindex, slot, XDP_MODE_NATIVE);
		if (!err) {
			*state = RN_XDP_NATIVE;
			return 0;
		}
		if (mode == RN_XDP_MODE_NATIVE) {
			libxdp_strerror(err, msg, sizeof(msg));
			return rn_fail(e, err, "XDP native attach: %s", msg);
		}
		rn_info("ifindex %d: native XDP not available (%d), using skb mode", ifindex, err);
	}
	err = try_attach(pin_dir, ifindex, slot, XDP_MODE_SKB);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		return rn_fail(e, err, "XDP skb-mode attach: %s", msg);
	}
	*state = RN_XDP_SKB;
	return 0;
}

int rn_xdp_detach(int ifindex, struct rn_error *e)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p;
	char msg[256];
	int err = 0;

	if (libxdp_get_error(mp))
		return 0;	/* nothing attached */
	if (xdp_multiprog__is_legacy(mp)) {
		p = xdp_multiprog__main_prog(mp);
		if (p && !strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
			err = xdp_multiprog__detach(mp);
	} else {
		for (p = xdp_multiprog__next_prog(NULL, mp); p; p = xdp_multiprog__next_prog(p, mp)) {
			if (strcmp(xdp_program__name(p), RN_XDP_PROG_NAME))
				continue;
			err = xdp_program__detach(p, ifindex, xdp_multiprog__attach_mode(mp), 0);
			break;
		}
	}
	xdp_multiprog__close(mp);
	if (err) {
		libxdp_strerror(err, msg, sizeof(msg));
		return rn_fail(e, err, "XDP detach from ifindex %d: %s", ifindex, msg);
	}
	return 0;
}
