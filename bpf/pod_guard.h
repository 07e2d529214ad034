/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the per-pod program refuses: any frame whose Ethernet source, IP
 * source, ARP sender or NDP claim is not the pod's, and, fail-closed, any
 * frame the parser could not finish. Returns an enum rn_pod_reason, or
 * RN_POD_PASS. */
#ifndef RDMANET_BPF_POD_GUARD_H
#define RDMANET_BPF_POD_GUARD_H

#include "parse.h"
#include "neigh_claims.h"
#include "pod_tx.h"
#include <rdmanet/pod_guard.h>

#define RN_POD_PASS (-1)

static __always_inline int rn_is_vlan_proto(__u16 proto)
{
	return proto == bpf_htons(RN_ETH_P_8021Q) || proto == bpf_htons(RN_ETH_P_8021AD);
}

static __always_inline int rn_is_ipv6_ext(__u8 proto)
{
	return proto == RN_IPPROTO_HOPOPTS || proto == RN_IPPROTO_ROUTING ||
	       proto == RN_IPPROTO_DSTOPTS || proto == RN_IPPROTO_FRAGMENT;
}

/* Every frame rn_pod_passes_fast does not pass, parsed: a refusal reason
 * or RN_POD_PASS. IP frames need no look for a further VLAN tag (the
 * parser stopped at an IP ethertype), IPv4 carries no neighbour claims. */
static __always_inline int rn_pod_refuses(struct __sk_buff *skb, __u32 slot,
					  const struct rn_pod *pod, const struct rn_pkt *p,
					  int cls, void *data, void *data_end)
{
	__u16 *type;

	if (cls < 0)
		return RN_REASON_MALFORMED;
	if (!rn_mac_is_pod(pod, p->src_mac))
		return RN_REASON_SOURCE_MAC;
	/* IPv4 has no link-local source to match: no dev_id to read */
	if (p->family == 4)
		return rn_source_owned(pod, p, data_end) ||
		       rn_source_unowned_ok(pod, p, data_end, RN_LL_DEV_ID_NONE) ?
		       RN_POD_PASS : RN_REASON_SOURCE_IP;
	if (p->family == 6) {
		/* a non-first fragment (l4_proto 0xff) has no L4 to check; the
		 * receiver ignores fragmented neighbour discovery (RFC 6980) */
		if (rn_is_ipv6_ext(p->l4_proto))
			return RN_REASON_IPV6_EXT_DEPTH;
		if (!rn_source_owned(pod, p, data_end) &&
		    !rn_source_unowned_ok(pod, p, data_end, rn_ll_dev_id(skb)))
			return RN_REASON_SOURCE_IP;
	} else {
		/* the type after the tags walked (l3_off is 14, 18 or 22) is
		 * one more tag: nothing after it was read */
		type = data + p->l3_off - 2;
		if ((void *)(type + 1) > data_end)
			return RN_REASON_MALFORMED;
		if (rn_is_vlan_proto(*type))
			return RN_REASON_VLAN_DEPTH;
	}
	switch (rn_pkt_claims(skb, slot, p)) {
	case RN_CLAIM_ARP:
		return RN_REASON_ARP_CLAIM;
	case RN_CLAIM_ND:
		return RN_REASON_ND_CLAIM;
	case RN_CLAIM_ND_UNFINISHED:
		return RN_REASON_ND_UNFINISHED;
	}
	return RN_POD_PASS;
}

/* The common frame, passed without the general parser and
 * rn_pod_refuses: untagged; IPv4 without options and not a later
 * fragment, or IPv6 with TCP or UDP straight after its header; from the
 * pod's MAC and one of its registered addresses; its TCP, UDP or UDP+BTH
 * header whole in the linear data. What such a frame is checked for here
 * is what those two check it for, and they pass it. Returns 1 for such a
 * frame; 0 for any other, which they then decide: tags, options,
 * fragments, extension headers, ARP and NDP, unowned sources (0.0.0.0,
 * ::, link-local), and whatever is malformed or not linear, so every
 * refusal and its reason still comes from one place. About a third of
 * the program's cost per packet (make bench, pod_general_added_ns). */
static __always_inline int rn_pod_passes_fast(struct __sk_buff *skb, const struct rn_pod *pod)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct rn_pkt p = { .l3 = eth + 1 };
	__u32 l4_len, l3_len;
	__u8 proto;

	/* both headers' fixed parts, whichever family */
	if (p.l3 + sizeof(struct ipv6hdr) > data_end || !rn_mac_is_pod(pod, eth->h_source))
		return 0;
	if (eth->h_proto == bpf_htons(RN_ETH_P_IP)) {
		struct iphdr *iph = p.l3;

		l3_len = sizeof(*iph);
		l4_len = bpf_ntohs(iph->tot_len) - l3_len;
		proto = iph->protocol;
		/* version 4 with a 20-byte header; a tot_len under 20 wraps
		 * l4_len, and that check alone sends it to the parser (the
		 * sum below is 64-bit and would not overflow) */
		if (*(__u8 *)iph != 0x45 || l4_len > 0xffff ||
		    sizeof(*eth) + l3_len + l4_len > skb->len ||
		    (iph->frag_off & bpf_htons(RN_IP_OFFSET_MASK)))
			return 0;
		p.family = 4;
	} else if (eth->h_proto == bpf_htons(RN_ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = p.l3;

		l3_len = sizeof(*ip6);
		l4_len = bpf_ntohs(ip6->payload_len);
		proto = ip6->nexthdr;
		/* payload_len 0: a jumbogram, left to the parser */
		if (ip6->version != 6 || l4_len == 0 ||
		    sizeof(*eth) + l3_len + l4_len > skb->len ||
		    (proto != RN_IPPROTO_TCP && proto != RN_IPPROTO_UDP))
			return 0;
		p.family = 6;
	} else {
		return 0;
	}
	return rn_source_owned(pod, &p, data_end) &&
	       rn_parse_l4(&p, p.l3 + l3_len, data_end, proto, l4_len, data) >= 0;
}

#endif
