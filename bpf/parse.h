/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One packet parser for XDP and tc: both hand it the linear data, its end
 * and the whole frame length, and get back a class or a negated malformed
 * reason. Nothing here writes to the packet. */
#ifndef RDMANET_BPF_PARSE_H
#define RDMANET_BPF_PARSE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include <rdmanet/traffic.h>

#define RN_ETH_P_IP	0x0800
#define RN_ETH_P_IPV6	0x86DD
#define RN_ETH_P_8021Q	0x8100
#define RN_ETH_P_8021AD	0x88A8
#define RN_ETH_P_ARP	0x0806
/* VLAN tags walked: one 802.1Q, or 802.1ad + 802.1Q (QinQ). A frame with
 * more tags parses as "other". */
#define RN_MAX_VLAN_TAGS 2
#define RN_IPPROTO_HOPOPTS 0
#define RN_IPPROTO_TCP	6
#define RN_IPPROTO_UDP	17
#define RN_IPPROTO_ROUTING 43
#define RN_IPPROTO_FRAGMENT 44
#define RN_IPPROTO_DSTOPTS 60
#define RN_IPPROTO_ICMPV6 58
#define RN_IP_OFFSET_MASK 0x1FFF
#define RN_ECN_MASK	0x3
#define RN_ECN_CE	0x3
/* Extension headers walked before giving up and calling it "other". */
#define RN_IPV6_MAX_EXT 3

struct rn_pkt {
	__u8 *dst_mac;
	__u8 *src_mac;
	void *l3;		/* IPv4 or IPv6 header, NULL for non-IP */
	void *arp;		/* ARP header, NULL if not ARP */
	void *icmp6;		/* ICMPv6 header, NULL if not ICMPv6 */
	__u32 l4_len;		/* ICMPv6: its length, from the IPv6 header */
	__u32 hdr_len;		/* L2 + L3 + L4 header bytes */
	__u32 l3_off;		/* L2 header bytes */
	__u8 family;		/* 0, 4 or 6 */
	__u8 tos;		/* IPv4 TOS / IPv6 traffic class */
	/* the protocol after the IP header and the extension headers walked
	 * (an IPv6 extension header: more than were walked); 0xff if no L4 */
	__u8 l4_proto;
};

static __always_inline int rn_parse_l4(struct rn_pkt *p, void *l4, void *data_end,
				       __u8 proto, __u32 l4_len, void *data)
{
	p->l4_proto = proto;
	if (proto == RN_IPPROTO_TCP) {
		struct tcphdr *th = l4;
		__u32 doff;

		if ((void *)(th + 1) > data_end)
			return -RN_MALFORMED_L4;
		doff = th->doff * 4;
		if (doff < sizeof(*th) || doff > l4_len)
			return -RN_MALFORMED_L4;
		p->hdr_len = (__u32)(l4 - data) + doff;
		return RN_CLASS_TCP;
	}
	if (proto == RN_IPPROTO_UDP) {
		struct udphdr *uh = l4;
		__u8 *bth;

		if ((void *)(uh + 1) > data_end || l4_len < sizeof(*uh))
			return -RN_MALFORMED_L4;
		p->hdr_len = (__u32)(l4 - data) + sizeof(*uh);
		if (uh->dest != bpf_htons(RN_ROCE_UDP_PORT))
			return RN_CLASS_UDP;
		bth = (__u8 *)(uh + 1);
		if (bpf_ntohs(uh->len) < sizeof(*uh) + RN_BTH_LEN ||
		    l4_len < sizeof(*uh) + RN_BTH_LEN ||
		    (void *)(bth + RN_BTH_LEN) > data_end)
			return -RN_MALFORMED_BTH;
		p->hdr_len += RN_BTH_LEN;
		return bth[0] == RN_BTH_OPCODE_CNP ? RN_CLASS_CNP : RN_CLASS_ROCE;
	}
	if (proto == RN_IPPROTO_ICMPV6 && p->family == 6) {
		p->icmp6 = l4;
		p->l4_len = l4_len;
	}
	p->hdr_len = (__u32)(l4 - data);
	return RN_CLASS_OTHER;
}

static __always_inline int rn_parse_ipv4(struct rn_pkt *p, void *data, void *data_end,
					 __u32 pkt_len)
{
	struct iphdr *iph = p->l3;
	__u32 ihl, tot;

	if ((void *)(iph + 1) > data_end)
		return -RN_MALFORMED_IPV4;
	ihl = iph->ihl * 4;
	tot = bpf_ntohs(iph->tot_len);
	/* BIG TCP aggregates carry tot_len 0; their length is the frame's.
	 * (A 0 left for the checks below would be malformed too, but 6.1's
	 * verifier then follows the impossible "0 >= ihl" branch with
	 * broken bounds and refuses the program.) */
	if (tot == 0) {
		if (pkt_len <= 0xffff + p->l3_off)
			return -RN_MALFORMED_IPV4;
		tot = pkt_len - p->l3_off;
	}
	if (iph->version != 4 || ihl < sizeof(*iph) || tot < ihl ||
	    p->l3_off + tot > pkt_len || (void *)iph + ihl > data_end)
		return -RN_MALFORMED_IPV4;
	p->family = 4;
	p->tos = iph->tos;
	/* non-first fragments carry no L4 header */
	if (iph->frag_off & bpf_htons(RN_IP_OFFSET_MASK)) {
		p->hdr_len = p->l3_off + ihl;
		return RN_CLASS_OTHER;
	}
	return rn_parse_l4(p, (void *)iph + ihl, data_end, iph->protocol, tot - ihl, data);
}

static __always_inline int rn_parse_ipv6(struct rn_pkt *p, void *data, void *data_end,
					 __u32 pkt_len)
{
	struct ipv6hdr *ip6 = p->l3;
	void *cur;
	__u32 len, payload;
	__u8 nexthdr;

	if ((void *)(ip6 + 1) > data_end || ip6->version != 6)
		return -RN_MALFORMED_IPV6;
	payload = bpf_ntohs(ip6->payload_len);
	/* jumbograms (BIG TCP) carry payload_len 0 */
	if (payload == 0 && pkt_len > 0xffff + p->l3_off + sizeof(*ip6))
		payload = pkt_len - p->l3_off - sizeof(*ip6);
	if (p->l3_off + sizeof(*ip6) + payload > pkt_len)
		return -RN_MALFORMED_IPV6;
	p->family = 6;
	p->tos = (ip6->priority << 4) | (ip6->flow_lbl[0] >> 4);
	nexthdr = ip6->nexthdr;
	cur = ip6 + 1;
	len = payload;

#pragma unroll
	for (int i = 0; i < RN_IPV6_MAX_EXT; i++) {
		__u32 hlen;

		if (nexthdr != RN_IPPROTO_HOPOPTS && nexthdr != RN_IPPROTO_ROUTING &&
		    nexthdr != RN_IPPROTO_DSTOPTS && nexthdr != RN_IPPROTO_FRAGMENT)
			break;
		if (cur + 8 > data_end)
			return -RN_MALFORMED_IPV6;
		if (nexthdr == RN_IPPROTO_FRAGMENT) {
			struct frag_hdr *fh = cur;

			hlen = 8;
			if (fh->frag_off & bpf_htons(0xFFF8)) {
				p->hdr_len = (__u32)(cur - data) + hlen;
				return RN_CLASS_OTHER;
			}
		} else {
			hlen = (((__u8 *)cur)[1] + 1) * 8;
		}
		if (hlen > len)
			return -RN_MALFORMED_IPV6;
		nexthdr = ((__u8 *)cur)[0];
		cur += hlen;
		len -= hlen;
	}
	return rn_parse_l4(p, cur, data_end, nexthdr, len, data);
}

/* Makes p live in memory, each field stored once where the parser learns
 * it. Kept in registers (clang's choice), the fields' values are copied
 * around before every early return and malformed check on the fast path.
 * In XDP that costs about 1.5 ns per packet; in tc egress, whose marking
 * reads the fields again, the registers win, so only XDP asks for it. */
static __always_inline void rn_pkt_in_memory(struct rn_pkt *p)
{
	asm volatile("" : : "r"(p) : "memory");
}

/* Returns enum rn_class, or -enum rn_malformed. pkt_len is the whole frame
 * (linear part and fragments); only the linear part is read. */
static __always_inline int rn_parse(struct rn_pkt *p, void *data, void *data_end,
				    __u32 pkt_len)
{
	struct ethhdr *eth = data;
	__u16 proto;

	p->l3 = NULL;
	p->arp = NULL;
	p->icmp6 = NULL;
	p->l4_len = 0;
	p->family = 0;
	p->tos = 0;
	p->l4_proto = 0xff;
	if ((void *)(eth + 1) > data_end)
		return -RN_MALFORMED_ETH;
	p->dst_mac = eth->h_dest;
	p->src_mac = eth->h_source;
	p->l3_off = sizeof(*eth);
	proto = eth->h_proto;
#pragma unroll
	for (int i = 0; i < RN_MAX_VLAN_TAGS; i++) {
		struct vlan_hdr *vh = data + p->l3_off;

		if (proto != bpf_htons(RN_ETH_P_8021Q) && proto != bpf_htons(RN_ETH_P_8021AD))
			break;
		if ((void *)(vh + 1) > data_end)
			return -RN_MALFORMED_VLAN;
		proto = vh->h_vlan_encapsulated_proto;
		p->l3_off += sizeof(*vh);
	}
	p->hdr_len = p->l3_off;
	p->l3 = data + p->l3_off;
	if (proto == bpf_htons(RN_ETH_P_IP))
		return rn_parse_ipv4(p, data, data_end, pkt_len);
	if (proto == bpf_htons(RN_ETH_P_IPV6))
		return rn_parse_ipv6(p, data, data_end, pkt_len);
	p->l3 = NULL;
	if (proto == bpf_htons(RN_ETH_P_ARP))
		p->arp = data + p->l3_off;
	return RN_CLASS_OTHER;
}

/* one unsigned compare: RoCE data and CNP are the first two classes */
_Static_assert(RN_CLASS_ROCE == 0 && RN_CLASS_CNP == 1, "RoCE classes come first");
static __always_inline int rn_is_roce(int cls)
{
	return (__u32)cls <= RN_CLASS_CNP;
}

#endif
