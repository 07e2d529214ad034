// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Another tc user on the node (think Cilium or Calico), for the coexistence
 * test: programs that count IPv4 UDP datagrams to port 4791 and let the
 * packet go on to whatever runs next. One program per place it is attached
 * (tcx or clsact, before or after rdmanet, ingress or egress), each with its
 * own counter, so the test can tell which of them ran. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

enum { TCX_FIRST_IN, TCX_FIRST_EG, TCX_LAST_IN, TCX_LAST_EG,
       CLS_FIRST_IN, CLS_FIRST_EG, CLS_LAST_IN, CLS_LAST_EG, N_PLACES };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, N_PLACES);
	__type(key, __u32);
	__type(value, __u64);
} foreign_counts SEC(".maps");

static __always_inline int count(struct __sk_buff *skb, __u32 place)
{
	void *data = (void *)(long)skb->data, *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *iph = (void *)(eth + 1);
	struct udphdr *uh = (void *)(iph + 1);
	__u64 *n;

	/* test datagrams are small and linear, with a 20-byte IPv4 header */
	if ((void *)(uh + 1) <= end && eth->h_proto == bpf_htons(0x0800) &&
	    iph->ihl == 5 && iph->protocol == 17 && uh->dest == bpf_htons(4791)) {
		n = bpf_map_lookup_elem(&foreign_counts, &place);
		if (n)
			__sync_fetch_and_add(n, 1);
	}
	return -1;	/* TCX_NEXT / TC_ACT_UNSPEC: continue */
}

#define PLACE(name, idx) \
	SEC("tc") int name(struct __sk_buff *skb) { return count(skb, idx); }

PLACE(tcx_first_in, TCX_FIRST_IN)
PLACE(tcx_first_eg, TCX_FIRST_EG)
PLACE(tcx_last_in, TCX_LAST_IN)
PLACE(tcx_last_eg, TCX_LAST_EG)
PLACE(cls_first_in, CLS_FIRST_IN)
PLACE(cls_first_eg, CLS_FIRST_EG)
PLACE(cls_last_in, CLS_LAST_IN)
PLACE(cls_last_eg, CLS_LAST_EG)

char LICENSE[] SEC("license") = "Dual BSD/GPL";
