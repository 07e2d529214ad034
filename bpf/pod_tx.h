/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What happens to a frame a pod sends, wherever tc first sees it: the
 * master's egress, or its ingress for macvlan bridge-mode pod-to-pod frames
 * that never reach the egress. Enforce the source address, mark RoCE,
 * count. Returns a TC_ACT_* verdict. */
#ifndef RDMANET_BPF_POD_TX_H
#define RDMANET_BPF_POD_TX_H

#include "parse.h"
#include "count.h"
#include "mark.h"
#include "../maps/pod_info.h"
#include "../maps/pod_ctr.h"
#include "neigh_claims.h"

/* Pass means "continue": the next tcx program, then the clsact filters of
 * the device, then the stack. TCX_NEXT and TC_ACT_UNSPEC are both -1, so one
 * value serves both attach modes. 0 (TCX_PASS / TC_ACT_OK) would end the
 * chain and silently skip every program another tc user (Cilium, Calico)
 * attached after ours. A drop stays a drop. */
#define RN_TC_ACT_OK (-1)
#define RN_TC_ACT_SHOT 2

/* Sources a pod may use without their being registered: IPv4 0.0.0.0
 * (DHCP), IPv6 :: (DAD) and its own link-local address (neighbour
 * discovery; an NS from another's link-local address would teach the
 * target that address's MAC: rn_ll_is_pod, which takes dev_id). */
static __always_inline int rn_source_unowned_ok(const struct rn_pod *pod, const struct rn_pkt *p,
						void *data_end, __u32 dev_id)
{
	if (p->family == 4) {
		struct iphdr *iph = p->l3;

		return (void *)(iph + 1) <= data_end && iph->saddr == 0;
	}
	if (p->family == 6) {
		struct ipv6hdr *ip6 = p->l3;
		__u32 *a;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		a = ip6->saddr.in6_u.u6_addr32;
		if (rn_ll_is_pod(pod, a, dev_id))
			return 1;
		return (a[0] | a[1] | a[2] | a[3]) == 0;
	}
	return 1;
}

static __always_inline int rn_source_owned(const struct rn_pod *pod, const struct rn_pkt *p,
					   void *data_end)
{
	if (p->family == 4) {
		struct iphdr *iph = p->l3;

		if ((void *)(iph + 1) > data_end)
			return 0;
#pragma unroll
		for (int i = 0; i < RN_POD_MAX_IPV4; i++)
			if (i < pod->n_ipv4 && pod->ipv4[i] == iph->saddr)
				return 1;
		return 0;
	}
	if (p->family == 6) {
		struct ipv6hdr *ip6 = p->l3;
		__u32 *a;

		if ((void *)(ip6 + 1) > data_end)
			return 0;
		a = ip6->saddr.in6_u.u6_addr32;
#pragma unroll
		for (int i = 0; i < RN_POD_MAX_IPV6; i++) {
			const __u32 *b = (const __u32 *)pod->ipv6[i];

			if (i < pod->n_ipv6 && a[0] == b[0] && a[1] == b[1] &&
			    a[2] == b[2] && a[3] == b[3])
				return 1;
		}
		return 0;
	}
	return 1;
}

static __always_inline int rn_pod_tx(struct __sk_buff *skb, struct rn_pkt *p, void *data_end,
				     int cls, const struct rn_master *m, __u32 slot,
				     __u32 segs, __u64 bytes)
{
	struct rn_pod_counters *pc = bpf_map_lookup_elem(&rn_pod_ctr_v1, &slot);
	struct rn_pod *pod = bpf_map_lookup_elem(&rn_pod_info_v1, &slot);

	barrier_var(cls);
	if (!pc || !pod || cls < 0 || cls >= RN_CLASS_MAX)
		return RN_TC_ACT_OK;
	/* a guarded pod's own program counted its violations already */
	if (m->policy != RN_POLICY_OFF &&
	    (m->policy == RN_POLICY_ENFORCE || !(pod->flags & RN_POD_F_GUARDED)) &&
	    ((!rn_source_owned(pod, p, data_end) &&
	      !rn_source_unowned_ok(pod, p, data_end, RN_LL_DEV_ID_ANY)) ||
	     /* what the master's programs cannot finish passes */
	     rn_claim_is_violation(rn_pkt_claims(skb, slot, p)))) {
		pc->violations[RN_VIOLATION_SPOOFED_SOURCE] += segs;
		if (m->policy == RN_POLICY_ENFORCE) {
			pc->drops[RN_VIOLATION_SPOOFED_SOURCE] += segs;
			return RN_TC_ACT_SHOT;
		}
	}
	if (rn_is_roce(cls)) {
		__u8 dscp = cls == RN_CLASS_CNP ? pod->dscp_cnp : pod->dscp_roce;

		if (dscp == RN_DSCP_INHERIT)
			dscp = cls == RN_CLASS_CNP ? m->dscp_cnp : m->dscp_roce;
		if (rn_mark(p, data_end, dscp, m->ecn))
			pc->tx_marked += segs;
	}
	rn_count(&pc->traffic[RN_DIR_TX][cls], segs, bytes);
	return RN_TC_ACT_OK;
}

#endif
