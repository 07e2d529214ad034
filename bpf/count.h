/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Counting frames as the segments they stand for. Counters are per-CPU map
 * values, so plain increments are safe and cheap. */
#ifndef RDMANET_BPF_COUNT_H
#define RDMANET_BPF_COUNT_H

#include "parse.h"
#include <rdmanet/master.h>

static __always_inline void rn_count(struct rn_traffic *t, __u32 segs, __u64 bytes)
{
	t->packets += segs;
	t->bytes += bytes;
}

/* Wire bytes of segs segments: each one repeats the headers. */
static __always_inline __u64 rn_seg_bytes(const struct rn_pkt *p, __u32 pkt_len, __u32 segs)
{
	return pkt_len + (__u64)(segs - 1) * p->hdr_len;
}

/* XDP sees no GSO metadata, but on veth and in generic mode it can be handed
 * a GRO aggregate larger than the MTU. Count it as the MTU-sized segments
 * the sender produced; on a real NIC (no LRO with XDP) this is always 1. */
static __always_inline __u32 rn_xdp_segments(const struct rn_pkt *p, __u32 pkt_len, __u32 mtu)
{
	__u32 l3_len = pkt_len - p->l3_off;
	__u32 l34_hdr, mss;

	if (l3_len <= mtu || !p->family || p->hdr_len <= p->l3_off)
		return 1;
	l34_hdr = p->hdr_len - p->l3_off;
	if (l34_hdr >= mtu)
		return 1;
	mss = mtu - l34_hdr;
	return (l3_len - l34_hdr + mss - 1) / mss;
}

/* cls is a negated enum rn_malformed. The barrier keeps the bound check
 * and the index in one register: older verifiers (6.1, 6.12) lose the
 * bound when clang checks cls and indexes with -cls. */
static __always_inline void rn_count_malformed(struct rn_master_counters *mc, int cls)
{
	__u32 reason = (__u32)-cls;

	barrier_var(reason);
	if (reason < RN_MALFORMED_MAX)
		mc->malformed[reason]++;
}

static __always_inline int rn_is_ce(const struct rn_pkt *p)
{
	return (p->tos & RN_ECN_MASK) == RN_ECN_CE;
}

#endif
