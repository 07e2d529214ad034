/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A data-path program loaded for BPF_PROG_TEST_RUN: its own unpinned maps,
 * one master in slot 0, pods written through the registry's publish call,
 * and counter snapshots to compare before and after each run. */
#ifndef RDMANET_TEST_DP_ENV_H
#define RDMANET_TEST_DP_ENV_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#include "datapath/datapath.h"

/* TCX_NEXT / TC_ACT_UNSPEC: pass and let the next program run (the test
 * run hands the verdict back as a __u32) */
#define DP_TC_OK 0xffffffffu
#define DP_TC_SHOT 2
#define DP_XDP_PASS 2

struct tc_egress;

struct dp_env {
	struct rn_maps m;
	struct tc_egress *maps_obj;	/* owns the maps, like the agent's pins */
	int prog_fd;
};

/* Creates every data-path map (private to this test: no pinning). */
int dp_env_open(struct dp_env *env);
/* Before loading a program's object: make it use the env's maps, the way
 * the agent's programs share the pinned ones. */
int dp_env_share(struct dp_env *env, struct bpf_object *obj);
void dp_env_close(struct dp_env *env);
void dp_env_master(struct dp_env *env, enum rn_policy policy, enum rn_ecn_mode ecn,
		   __u8 dscp_roce, __u8 dscp_cnp, __u32 mtu, enum rn_xdp_state xdp);
/* mac "aa:bb:..", ips NULL-terminated; dscp -1 inherits. */
int dp_env_pod(struct dp_env *env, __u32 slot, const char *mac, const char *const ips[], int dscp);

/* A pod found by IP (ipvlan: it shares the master's MAC). */
int dp_env_pod_ip_keyed(struct dp_env *env, __u32 slot, const char *const ips[]);

struct dp_snapshot {
	struct rn_pod_counters pod[8];		/* by pod slot */
	struct rn_master_counters master;
};

void dp_snapshot(const struct dp_env *env, struct dp_snapshot *s);

/* Runs the program once on frame (in place: frame gets the output bytes).
 * gso_segs/gso_size are set on the skb for tc programs (0: not GSO).
 * Returns the bpf() result; *retval is the program's verdict. */
int dp_run_tc(const struct dp_env *env, void *frame, __u32 *len, __u32 gso_segs,
	      __u32 gso_size, __u32 *retval);
int dp_run_xdp(const struct dp_env *env, void *frame, __u32 *len, __u32 *retval);

#endif
