/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* DSCP/ECN marking of RoCEv2 packets. The RoCE ICRC masks the TOS/traffic
 * class, so rewriting it keeps the packet valid; nothing else is touched. */
#ifndef RDMANET_BPF_MARK_H
#define RDMANET_BPF_MARK_H

#include "parse.h"
#include <rdmanet/policy.h>

/* RFC 1624 incremental update of a one's complement checksum. */
static __always_inline __u16 rn_csum_replace16(__u16 check, __u16 old, __u16 new)
{
	__u32 sum = (__u16)~check + (__u16)~old + (__u32)new;

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* The TOS byte a RoCE packet should leave with: the policy's DSCP, and ECT
 * only where the sender said Not-ECT. ECT(0), ECT(1) and CE stay as sent. */
static __always_inline __u8 rn_marked_tos(__u8 tos, __u8 dscp, __u8 ecn_mode)
{
	__u8 ecn = tos & RN_ECN_MASK;

	if (ecn == 0 && ecn_mode == RN_ECN_ECT0)
		ecn = 0x2;
	else if (ecn == 0 && ecn_mode == RN_ECN_ECT1)
		ecn = 0x1;
	return (__u8)(dscp << 2) | ecn;
}

/* Rewrites the TOS/traffic class in place; returns 1 if it changed. The
 * caller has parsed p from the same data pointers. */
static __always_inline int rn_mark(struct rn_pkt *p, void *data_end, __u8 dscp, __u8 ecn_mode)
{
	__u8 tos = rn_marked_tos(p->tos, dscp, ecn_mode);

	if (tos == p->tos)
		return 0;
	if (p->family == 4) {
		struct iphdr *iph = p->l3;
		__u8 *b = p->l3;
		__u16 old, new;

		if ((void *)(iph + 1) > data_end)
			return 0;
		/* the 16-bit word holding version/IHL and TOS, in wire order */
		old = bpf_htons((__u16)(b[0] << 8 | p->tos));
		new = bpf_htons((__u16)(b[0] << 8 | tos));
		iph->tos = tos;
		iph->check = rn_csum_replace16(iph->check, old, new);
	} else if (p->family == 6) {
		__u8 *b = p->l3;

		if ((void *)(b + 2) > data_end)
			return 0;
		/* version:4 tclass:8 flow label:20 — keep version and label */
		b[0] = (b[0] & 0xf0) | (tos >> 4);
		b[1] = (__u8)(tos << 4) | (b[1] & 0x0f);
	} else {
		return 0;
	}
	p->tos = tos;
	return 1;
}

#endif
