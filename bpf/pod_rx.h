/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Counting a frame received on the master for the pod it is addressed to
 * (by MAC, or by IP for ipvlan pods), or as unknown: the XDP program's job,
 * and tc ingress's on masters without XDP. */
#ifndef RDMANET_BPF_POD_RX_H
#define RDMANET_BPF_POD_RX_H

#include "parse.h"
#include "count.h"
#include "pod_lookup.h"
#include "../maps/pod_ctr.h"

/* mc NULL: frames of no registered pod are not counted. */
static __always_inline void rn_pod_rx(const struct rn_pkt *p, void *data_end, int cls,
				      const struct rn_master *m, struct rn_master_counters *mc,
				      __u16 mslot, __u32 segs, __u64 bytes)
{
	__u32 pslot;
	int found = rn_pod_lookup(p, data_end, m, mslot, 0, &pslot);
	struct rn_traffic *t;
	__u64 *ce;

	barrier_var(cls);
	if (cls < 0 || cls >= RN_CLASS_MAX)
		return;
	if (found) {
		struct rn_pod_counters *pc = bpf_map_lookup_elem(&rn_pod_ctr_v1, &pslot);

		if (!pc)
			return;
		/* keep clang from forming &pc->... before the NULL check */
		barrier_var(pc);
		t = &pc->traffic[RN_DIR_RX][cls];
		ce = &pc->rx_ecn_ce;
	} else if (mc) {
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
