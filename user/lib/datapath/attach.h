/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Loading and attaching the data-path programs on a master, and taking them
 * off again. Every attachment outlives the agent: XDP through the libxdp
 * dispatcher (pinned by libxdp), tc through pinned tcx links or a clsact
 * filter. Each step first checks whether our program is already there, so
 * an agent restart reattaches nothing and loses no packet; one of another
 * build (its kernel tag is not this build's, prog_tag.h) is replaced in
 * place, with no packet seen by neither program or counted by both. */
#ifndef RDMANET_ATTACH_H
#define RDMANET_ATTACH_H

#include <stdbool.h>
#include <rdmanet/master.h>

#include "config.h"
#include "error.h"

#define RN_XDP_PROG_NAME "rn_xdp_rx"
#define RN_TC_EGRESS_PROG_NAME "rn_tc_egress"
#define RN_TC_INGRESS_PROG_NAME "rn_tc_ingress"
/* clsact fallback: our filter's handle and priority on each hook */
#define RN_TC_HANDLE 0x524e
#define RN_TC_PRIO 0x4e52

/* Creates (or reuses) the pinned maps; max_pods sizes the pod maps only
 * when they are created. */
int rn_maps_create(const char *pin_dir, unsigned int max_pods, struct rn_error *e);
/* Before loading an object that reuses the pins: size its pod maps like
 * the pinned ones (max_pods where nothing is pinned yet), or libbpf
 * refuses to reuse them. */
struct bpf_object;
void rn_maps_size_like_pins(struct bpf_object *obj, const char *pin_dir, unsigned int max_pods);

/* mode: config's xdp_mode. *gen: the master's xdp_gen (struct rn_master),
 * in and out: the one the attached program now counts under; written to
 * the pinned master entry mid-upgrade, the caller keeps it when it writes
 * the entry. *state: enum rn_xdp_state now attached. */
int rn_xdp_attach(const char *pin_dir, int ifindex, __u32 slot, enum rn_xdp_mode mode,
		  __u8 *gen, enum rn_xdp_state *state, struct rn_error *e);
int rn_xdp_detach(int ifindex, struct rn_error *e);

/* ingress: the bridge-mode program, else egress. mode: auto tries tcx and
 * falls back to clsact. *state: tcx or clsact;
 * *own_qdisc set when this call created the clsact qdisc. */
int rn_tc_attach(const char *pin_dir, int ifindex, __u32 slot, bool ingress,
		 enum rn_tc_mode mode, enum rn_tc_state *state, bool *own_qdisc,
		 struct rn_error *e);
/* Removes our program from both hooks; destroys the clsact qdisc only if
 * own_qdisc and no other filter is left on it. */
int rn_tc_detach(const char *pin_dir, int ifindex, bool own_qdisc, struct rn_error *e);

#endif
