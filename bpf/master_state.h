/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The master this program instance is attached to. rdmanetd loads one
 * instance per master with the slot baked in as a constant, so reaching the
 * master's config and counters is an array index. */
#ifndef RDMANET_BPF_MASTER_STATE_H
#define RDMANET_BPF_MASTER_STATE_H

#include "parse.h"
#include "../maps/masters.h"
#include "../maps/mst_ctr.h"
#include "count.h"

const volatile __u32 rn_master_slot = 0;

/* A malformed frame, counted on the master. The master's counters are
 * looked up only for frames no pod owns (malformed, unknown): most frames
 * are a pod's, and the lookup is about 1 ns per packet. */
static __always_inline void rn_master_malformed(__u32 mslot, int cls)
{
	struct rn_master_counters *mc = bpf_map_lookup_elem(&rn_mst_ctr_v1, &mslot);

	if (mc)
		rn_count_malformed(mc, cls);
}

#endif
