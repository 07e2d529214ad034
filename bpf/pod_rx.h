/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Counting a frame received on the master for the pod it is addressed to
 * (by MAC, or by IP for ipvlan pods), or as unknown: the XDP program's job,
 * and tc ingress's on masters without XDP. */
#ifndef RDMANET_BPF_POD_RX_H
#define RDMANET_BPF_POD_RX_H

#include "parse.h"
#include "count.h"
#include "pod_lookup.h"
#include "master_state.h"
#include "../maps/pod_ctr.h"

/* Frames of no registered pod are counted on the master if count_unknown.
 * The master's counters are looked up only then: most frames are a pod's. */
static __always_inline void rn_pod_rx(const struct rn_pkt *p, void *data_end, int cls,
				      const struct rn_master *m, int count_unknown,
				      __u32 mslot, __u32 segs, __u64 bytes)
{
	__u32 pslot;
	int found = rn_pod_lookup(p, data_end, m, (__u16)mslot, 0, &pslot);
	struct rn_master_counters *mc;
	struct rn_traffic *t;
	__u64 *ce;

	/* one unsigned compare bounds the index for the verifier; the
	 * barrier keeps clang from splitting it back into two */
	barrier_var(cls);
	if ((__u32)cls >= RN_CLASS_MAX)
		return;
	if (found) {
		struct rn_pod_counters *pc = bpf_map_lookup_elem(&rn_pod_ctr_v1, &pslot);

		if (!pc)
			return;
		/* keep clang from forming &pc->... before the NULL check */
		barrier_var(pc);
		t = &pc->traffic[RN_DIR_RX][cls];
		ce = &pc->rx_ecn_ce;
	} else if (count_unknown) {
		mc = bpf_map_lookup_elem(&rn_mst_ctr_v1, &mslot);
		if (!mc)
			return;
		barrier_var(mc);
		t = &mc->unknown[RN_DIR_RX][cls];
		ce = &mc->rx_ecn_ce;
	} else {
		return;
	}
	rn_count(t, segs, bytes);
	if (rn_is_roce(cls) && rn_is_ce(p))
		*ce += segs;
}

#endif
