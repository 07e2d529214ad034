// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Attached after rdmanet's tc egress program: how much of each GSO
 * super-packet is linear by the time it gets here. A super-packet TCP hands
 * down carries only its headers in the linear part; if a program before us
 * pulled (a head reallocation on these cloned skbs), the linear part has
 * grown to the pull length. Counts GSO packets, and those whose linear part
 * reaches 192 bytes (rdmanet's pull length). Continues the chain. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} linear_counts SEC(".maps");

SEC("tc")
int linear_probe(struct __sk_buff *skb)
{
	__u32 k = 0, linear = skb->data_end - skb->data;
	__u64 *n;

	if (skb->gso_segs < 2)
		return -1;
	n = bpf_map_lookup_elem(&linear_counts, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	k = 1;
	n = bpf_map_lookup_elem(&linear_counts, &k);
	if (n && linear >= 192)
		__sync_fetch_and_add(n, 1);
	return -1;	/* TCX_NEXT */
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
