// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc egress on a RoCE master: per-pod tx accounting by source MAC, RoCEv2
 * DSCP/ECN marking, source-address policy. Host traffic is marked and
 * counted as "unknown" but never policed. */
#include "build_variant.h"
#include "parse.h"
#include "count.h"
#include "mark.h"
#include "master_state.h"
#include "pod_lookup.h"
#include "pod_tx.h"
#include "skb_data.h"
/* Not used here; defined so the userspace-only registry maps are created
 * and pinned with the rest when the agent loads this object. */
#include "../maps/pod_meta.h"
#include "../maps/master_retired.h"


SEC("tc")
int rn_tc_egress(struct __sk_buff *skb)
{
	__u32 mslot = rn_master_slot;
	struct rn_master *m = bpf_map_lookup_elem(&rn_masters_v1, &mslot);
	struct rn_master_counters *mc = bpf_map_lookup_elem(&rn_mst_ctr_v1, &mslot);
	__u32 len = skb->len;
	struct rn_pkt p;
	void *data, *data_end;
	__u32 segs, slot;
	__u64 bytes;
	int cls;

	RN_VARIANT_MARK();

	if (!m || !mc)
		return RN_TC_ACT_OK;
	cls = rn_skb_parse(skb, &p, &data, &data_end, len);
	if (cls < 0) {
		rn_count_malformed(mc, cls);
		return RN_TC_ACT_OK;
	}
	segs = skb->gso_segs ?: 1;
	bytes = rn_seg_bytes(&p, len, segs);

	if (rn_pod_lookup(&p, data_end, m, (__u16)mslot, 1, &slot))
		return rn_pod_tx(skb, &p, data_end, cls, m, slot, segs, bytes);

	if (rn_is_roce(cls) &&
	    rn_mark(&p, data_end, cls == RN_CLASS_CNP ? m->dscp_cnp : m->dscp_roce, m->ecn))
		mc->tx_marked += segs;
	rn_count(&mc->unknown[RN_DIR_TX][cls], segs, bytes);
	return RN_TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
