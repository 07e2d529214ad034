/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Making sure a tc program's headers are in the skb's linear data. */
#ifndef RDMANET_BPF_SKB_DATA_H
#define RDMANET_BPF_SKB_DATA_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

/* Enough for Ethernet + VLAN + IPv6 + 3 extension headers + TCP with
 * options, or UDP + BTH. */
#define RN_PULL_LEN 192

static __always_inline void rn_skb_linearize(struct __sk_buff *skb, void **data,
					     void **data_end)
{
	__u32 want = skb->len < RN_PULL_LEN ? skb->len : RN_PULL_LEN;

	*data = (void *)(long)skb->data;
	*data_end = (void *)(long)skb->data_end;
	if (*data_end - *data >= want)
		return;
	bpf_skb_pull_data(skb, want);
	/* clang would otherwise fold the two reloads into one load at a
	 * variable ctx offset, which the verifier rejects */
	asm volatile("" ::: "memory");
	*data = (void *)(long)skb->data;
	asm volatile("" ::: "memory");
	*data_end = (void *)(long)skb->data_end;
}

#endif
