/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Making sure a tc program's headers are in the skb's linear data. */
#ifndef RDMANET_BPF_SKB_DATA_H
#define RDMANET_BPF_SKB_DATA_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "parse.h"

/* Enough for Ethernet + VLAN + IPv6 + 3 extension headers + TCP with
 * options, or UDP + BTH. */
#define RN_PULL_LEN 192

static __always_inline void rn_skb_data(struct __sk_buff *skb, void **data, void **data_end)
{
	/* clang would otherwise fold the reloads after a pull into one load at
	 * a variable ctx offset, which the verifier rejects */
	asm volatile("" ::: "memory");
	*data = (void *)(long)skb->data;
	asm volatile("" ::: "memory");
	*data_end = (void *)(long)skb->data_end;
}

/* Parses the frame from its linear data, pulling more into the linear part
 * only when the parse ran out of it. The pull (pskb_expand_head on a cloned
 * skb, e.g. every TSO super-packet TCP hands down) is not free, and the
 * headers of almost every packet are already linear: pulling whenever the
 * linear part was shorter than RN_PULL_LEN cost a head reallocation per
 * super-packet, marked or not. */
static __always_inline int rn_skb_parse(struct __sk_buff *skb, struct rn_pkt *p, void **data,
					void **data_end, __u32 len)
{
	__u32 want = len < RN_PULL_LEN ? len : RN_PULL_LEN;
	int cls;

	rn_skb_data(skb, data, data_end);
	cls = rn_parse(p, *data, *data_end, len);
	if (cls >= 0 || *data_end - *data >= want)
		return cls;
	bpf_skb_pull_data(skb, want);
	rn_skb_data(skb, data, data_end);
	return rn_parse(p, *data, *data_end, len);
}

#endif
