// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pod index under a racing registry write. An index entry is 16 bytes
 * rewritten in place by one map update, and the program reads its fields
 * with separate loads, so a packet racing an unregistration can see the old
 * `used` and `key` with the new (zeroed) `slot`, or, across a remove and an
 * insert, one pod's key with another pod's slot. The race itself lasts a
 * few instructions and cannot be hit on demand; these fixtures write the
 * torn entry such a reader sees and check that the program then neither
 * charges nor polices the slot the entry wrongly names: the frame counts as
 * unknown (it is a departing pod's) and passes. */
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <rdmanet/pod_index.h>

#include "fixture.h"
#include "tc_egress.skel.h"
#include "xdp_rx.skel.h"

#define OTHER_SLOT 0	/* a zeroed slot field reads as slot 0 */

static int index_entry_of(const struct dp_env *env, const uint8_t mac[6], __u32 *idx,
			  struct rn_pod_index_entry *ent)
{
	struct rn_pod_key key = { .master = 0 };
	__u64 bits;

	memcpy(key.mac, mac, 6);
	bits = rn_pod_key_bits(&key);
	for (__u32 way = 0; way < RN_POD_INDEX_WAYS; way++) {
		*idx = rn_pod_index_bucket(bits) * RN_POD_INDEX_WAYS + way;
		if (!bpf_map_lookup_elem(env->m.pod_idx, idx, ent) && ent->used && ent->key == bits)
			return 0;
	}
	return -1;
}

/* Runs FX_POD's frame with its index entry naming torn_slot. */
static void torn(struct dp_env *env, int prog_fd, int is_xdp, __u32 torn_slot,
		 const char *name, struct tap *tap)
{
	static uint8_t frame[2048];
	const struct frame_spec tx = { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
		.family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE,
		.payload = 64 };
	const struct frame_spec rx = { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
		.family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
		.payload = 64 };
	struct rn_pod_index_entry ent, good;
	struct dp_snapshot b, a;
	struct frame_layout lo;
	struct check c = { 0 };
	__u32 idx, len, retval = 0;
	enum rn_dir dir = is_xdp ? RN_DIR_RX : RN_DIR_TX;

	if (index_entry_of(env, fx_pod_mac, &idx, &good)) {
		CHECK_TRUE(&c, "the pod's index entry is missing", 0);
		tap_report(tap, name, &c);
		return;
	}
	ent = good;
	ent.slot = torn_slot;
	bpf_map_update_elem(env->m.pod_idx, &idx, &ent, BPF_ANY);
	len = (__u32)frame_build(is_xdp ? &rx : &tx, frame, sizeof(frame), &lo);
	env->prog_fd = prog_fd;
	dp_env_master(env, RN_POLICY_ENFORCE, RN_ECN_ECT0, 26, 48, 1500, RN_XDP_NONE);
	dp_snapshot(env, &b);
	if (is_xdp)
		CHECK_EQ(&c, "run", dp_run_xdp(env, frame, &len, &retval), 0);
	else
		CHECK_EQ(&c, "run", dp_run_tc(env, frame, &len, 0, 0, &retval), 0);
	dp_snapshot(env, &a);
	bpf_map_update_elem(env->m.pod_idx, &idx, &good, BPF_ANY);

	CHECK_EQ(&c, "verdict", retval, is_xdp ? DP_XDP_PASS : DP_TC_OK);
	CHECK_EQ(&c, "wrongly named slot: packets", a.pod[torn_slot].traffic[dir][RN_CLASS_ROCE].packets -
		 b.pod[torn_slot].traffic[dir][RN_CLASS_ROCE].packets, 0);
	CHECK_EQ(&c, "wrongly named slot: violations", a.pod[torn_slot].violations[0] -
		 b.pod[torn_slot].violations[0], 0);
	CHECK_EQ(&c, "wrongly named slot: drops", a.pod[torn_slot].drops[0] -
		 b.pod[torn_slot].drops[0], 0);
	CHECK_EQ(&c, "master unknown packets", a.master.unknown[dir][RN_CLASS_ROCE].packets -
		 b.master.unknown[dir][RN_CLASS_ROCE].packets, 1);
	tap_report(tap, name, &c);
}

int main(void)
{
	const char *const ips0[] = { "10.0.0.9", NULL };
	struct tap tap = { 0 };
	struct tc_egress *tc;
	struct xdp_rx *xdp;
	struct dp_env env;

	tc = tc_egress__open();
	xdp = xdp_rx__open();
	if (!tc || !xdp || dp_env_open(&env) || dp_env_share(&env, tc->obj) ||
	    dp_env_share(&env, xdp->obj) || tc_egress__load(tc) || xdp_rx__load(xdp) ||
	    fx_pods(&env) || dp_env_pod(&env, OTHER_SLOT, "02:00:00:00:00:0c", ips0, -1)) {
		printf("not ok 1 - load tc_egress and xdp_rx with fixture maps and pods\n1..1\n");
		return 1;
	}
	torn(&env, bpf_program__fd(tc->progs.rn_tc_egress), 0, OTHER_SLOT,
	     "tc egress: key of a pod, zeroed slot: slot 0's pod neither charged nor policed", &tap);
	torn(&env, bpf_program__fd(tc->progs.rn_tc_egress), 0, FX_POD2,
	     "tc egress: key of a pod, slot of another pod: the other pod not charged", &tap);
	torn(&env, bpf_program__fd(xdp->progs.rn_xdp_rx), 1, OTHER_SLOT,
	     "xdp rx: key of a pod, zeroed slot: slot 0's pod not charged", &tap);
	torn(&env, bpf_program__fd(xdp->progs.rn_xdp_rx), 1, FX_POD2,
	     "xdp rx: key of a pod, slot of another pod: the other pod not charged", &tap);
	tc_egress__destroy(tc);
	xdp_rx__destroy(xdp);
	dp_env_close(&env);
	return tap_finish(&tap);
}
