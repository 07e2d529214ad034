// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc ingress on a RoCE master. Two jobs:
 * - macvlan bridge mode delivers pod-to-pod frames on the same master
 *   through the master's receive path (dev_forward_skb), never through its
 *   egress. They get the sender's tx treatment here (policy, marking,
 *   counting), and the receiver's rx count unless generic XDP already
 *   counted it (native XDP runs in the driver, not on forwarded skbs).
 * - on a master without XDP (xdp_mode off, or veth under auto, where XDP
 *   costs a copy of every GSO skb), it does the rx accounting the XDP
 *   program would, with exact segment counts from the skb. */
#include "build_variant.h"
#include "parse.h"
#include "count.h"
#include "mark.h"
#include "master_state.h"
#include "pod_lookup.h"
#include "pod_rx.h"
#include "pod_tx.h"
#include "skb_data.h"

SEC("tc")
int rn_tc_ingress(struct __sk_buff *skb)
{
	__u32 mslot = rn_master_slot;
	struct rn_master *m = bpf_map_lookup_elem(&rn_masters_v1, &mslot);
	__u32 len = skb->len;
	struct rn_pkt p;
	void *data, *data_end;
	__u32 segs, src;
	__u64 bytes;
	int cls, verdict, rx_here;

	RN_VARIANT_MARK();

	if (!m)
		return RN_TC_ACT_OK;
	rx_here = m->xdp == RN_XDP_NONE;
	cls = rn_skb_parse(skb, &p, &data, &data_end, len);
	if (cls < 0) {
		/* XDP, where attached, has counted it already */
		if (rx_here)
			rn_master_malformed(mslot, cls);
		return RN_TC_ACT_OK;
	}
	segs = skb->gso_segs ?: 1;
	bytes = rn_seg_bytes(&p, len, segs);

	if (rn_pod_by_mac(p.src_mac, (__u16)mslot, &src)) {
		verdict = rn_pod_tx(skb, &p, data_end, cls, m, src, segs, bytes);
		if (verdict == RN_TC_ACT_OK && m->xdp != RN_XDP_SKB)
			rn_pod_rx(&p, data_end, cls, m, 0, mslot, segs, bytes);
		return verdict;
	}
	if (rx_here)
		rn_pod_rx(&p, data_end, cls, m, 1, mslot, segs, bytes);
	return RN_TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
