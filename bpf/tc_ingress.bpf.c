// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc ingress on a RoCE master, for one case only: macvlan bridge mode
 * delivers pod-to-pod frames on the same master through the master's
 * receive path (dev_forward_skb), never through its egress. Here they get
 * the sender's tx treatment (policy, marking, counting), and the receiver's
 * rx count when XDP could not see them (native XDP runs in the driver, not
 * on forwarded skbs; generic XDP does see them). Everything else is left to
 * the XDP program. */
#include "parse.h"
#include "count.h"
#include "mark.h"
#include "master_state.h"
#include "pod_lookup.h"
#include "pod_tx.h"
#include "skb_data.h"


SEC("tc")
int rn_tc_ingress(struct __sk_buff *skb)
{
	__u32 mslot = rn_master_slot;
	struct rn_master *m = bpf_map_lookup_elem(&rn_masters_v1, &mslot);
	__u32 len = skb->len, want = len < RN_PULL_LEN ? len : RN_PULL_LEN;
	struct rn_pkt p;
	void *data, *data_end;
	__u32 segs, *src, *dst, dslot;
	__u64 bytes;
	int cls, verdict;

	if (!m)
		return RN_TC_ACT_OK;
	rn_skb_linearize(skb, want, &data, &data_end);

	/* malformed frames are the XDP program's to count */
	cls = rn_parse(&p, data, data_end, len);
	if (cls < 0)
		return RN_TC_ACT_OK;
	src = rn_pod_by_mac(p.src_mac, (__u16)mslot);
	if (!src)
		return RN_TC_ACT_OK;
	segs = skb->gso_segs ?: 1;
	bytes = rn_seg_bytes(&p, len, segs);

	verdict = rn_pod_tx(&p, data_end, cls, m, *src, segs, bytes);
	if (verdict != RN_TC_ACT_OK || m->xdp == RN_XDP_SKB)
		return verdict;

	dst = rn_pod_by_mac(p.dst_mac, (__u16)mslot);
	if (dst) {
		struct rn_pod_counters *pc;

		dslot = *dst;
		pc = bpf_map_lookup_elem(&rn_pod_ctr_v1, &dslot);
		if (pc) {
			rn_count(&pc->traffic[RN_DIR_RX][cls], segs, bytes);
			if (rn_is_roce(cls) && rn_is_ce(&p))
				pc->rx_ecn_ce += segs;
		}
	}
	return RN_TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
