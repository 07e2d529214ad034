// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc egress of a pod's own interface (tcx, or a clsact filter), in the
 * pod's netns: the source policy where the frame's origin is not in doubt
 * (include/rdmanet/pod_guard.h). One program for every pod; it finds its
 * pod by the interface's netns cookie and ifindex. Marking and accounting
 * stay with the master's programs, which see what crosses the wire. */
/* link-local addresses by this interface's dev_id (ll_dev_id.h) */
#define RN_LL_FROM_OWN_DEV
#include "build_variant.h"
#include "parse.h"
#include "pod_guard.h"
#include "skb_data.h"
#include "../maps/masters.h"
#include "../maps/pod_info.h"
#include "../maps/pod_ctr.h"
#include "../maps/pod_dev.h"
#include "../maps/pod_devat.h"
#include "../maps/pod_reasons.h"
#include "../maps/pod_jmp.h"

/* Set by test_pod_egress and dp_prog_cost only (the agent loads the
 * program as built): every frame through the general parser, to check
 * that rn_pod_passes_fast passes nothing it would refuse and to measure
 * what the shortcut saves. The verifier prunes the branch the constant
 * does not take. */
const volatile int rn_general_only = 0;

static __always_inline void rn_count_refused(__u32 slot, int reason, int cls, __u32 segs,
					     int drop)
{
	struct rn_pod_counters *pc = bpf_map_lookup_elem(&rn_pod_ctr_v1, &slot);
	struct rn_pod_reasons *r = bpf_map_lookup_elem(&rn_pod_rsn_v1, &slot);
	__u32 why = (__u32)reason, mal = (__u32)-cls;

	if (pc) {
		pc->violations[RN_VIOLATION_SPOOFED_SOURCE] += segs;
		if (drop)
			pc->drops[RN_VIOLATION_SPOOFED_SOURCE] += segs;
	}
	if (!r)
		return;
	barrier_var(why);
	if (why < RN_REASON_MAX)
		r->denied[why] += segs;
	barrier_var(mal);
	if (why == RN_REASON_MALFORMED && mal < RN_MALFORMED_MAX)
		r->malformed[mal] += segs;
}

/* The cookie of the netns of the skb's device: skb->dev->nd_net.net->net_cookie,
 * read through the kernel's own skb (bpf_cast_to_kern_ctx, Linux 6.3), CO-RE
 * relocated. */
static __always_inline __u64 rn_dev_netns_cookie(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct net_device *dev = __builtin_preserve_access_index(skb->dev);
	struct net *net;

	if (!dev)
		return 0;
	net = __builtin_preserve_access_index(dev->nd_net.net);
	if (!net)
		return 0;
	return __builtin_preserve_access_index(net->net_cookie);
}

/* The slot of this interface's pod, by (netns cookie, ifindex). */
static __always_inline int rn_pod_of_dev(struct __sk_buff *skb, __u32 *slot, __u64 *key_bits)
{
	__u64 cookie = rn_dev_netns_cookie(skb);
	__u32 ifindex = skb->ifindex, idx = rn_pod_dev_bucket(cookie, ifindex) * RN_POD_DEV_WAYS;

#pragma unroll
	for (int way = 0; way < RN_POD_DEV_WAYS; way++) {
		__u32 i = idx + way;
		struct rn_pod_dev *d = bpf_map_lookup_elem(&rn_pod_dev_v1, &i);

		if (d && d->netns_cookie == cookie && d->ifindex == ifindex) {
			*slot = *(volatile __u32 *)&d->slot;
			*key_bits = d->key_bits;
			return 1;
		}
	}
	return 0;
}

SEC("tc")
int rn_pod_egress(struct __sk_buff *skb)
{
	struct rn_master *m;
	struct rn_pod *pod;
	struct rn_pkt p;
	void *data, *data_end;
	__u32 slot, mslot;
	__u64 key_bits;
	int cls, reason;

	RN_VARIANT_MARK();

	if (!rn_pod_of_dev(skb, &slot, &key_bits))
		return RN_TC_ACT_OK;
	pod = bpf_map_lookup_elem(&rn_pod_info_v1, &slot);
	/* the slot still this pod's (rn_pod_slot_is in pod_lookup.h) */
	if (!pod || *(__u64 *)pod != key_bits)
		return RN_TC_ACT_OK;
	mslot = pod->master;
	m = bpf_map_lookup_elem(&rn_masters_v1, &mslot);
	if (!m || m->policy == RN_POLICY_OFF)
		return RN_TC_ACT_OK;
	if (!rn_general_only && rn_pod_passes_fast(skb, pod))
		return RN_TC_ACT_OK;
	cls = rn_skb_parse(skb, &p, &data, &data_end, skb->len);
	reason = rn_pod_refuses(skb, slot, pod, &p, cls, data, data_end);
	if (reason == RN_POD_PASS)
		return RN_TC_ACT_OK;
	rn_count_refused(slot, reason, cls, skb->gso_segs ?: 1, m->policy == RN_POLICY_ENFORCE);
	return m->policy == RN_POLICY_ENFORCE ? RN_TC_ACT_SHOT : RN_TC_ACT_OK;
}

/* What a clsact filter carries (maps/pod_jmp.h): the agent's current
 * rn_pod_egress, by tail call. With the slot empty (no agent ever filled
 * it, or its pin was removed) the frame goes on unpoliced by this program;
 * the master's programs still police what crosses the wire. */
SEC("tc")
int rn_pod_egress_clsact(struct __sk_buff *skb)
{
	bpf_tail_call(skb, &rn_pod_jmp_v1, 0);
	return RN_TC_ACT_OK;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
