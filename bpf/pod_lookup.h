/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Finding the pod a frame belongs to: by MAC on the master, or by IP for
 * pods that share the master's MAC (ipvlan). */
#ifndef RDMANET_BPF_POD_LOOKUP_H
#define RDMANET_BPF_POD_LOOKUP_H

#include "parse.h"
#include "../maps/pods.h"
#include "../maps/pod_index.h"
#include "../maps/pod_overflow.h"
#include "../maps/pod_ips.h"

static __always_inline __u32 *rn_pod_by_mac(const __u8 *mac, __u16 master)
{
	struct rn_pod_key key = { .master = master };
	__u32 bucket, idx, *ovf;
	__u64 bits;

	__builtin_memcpy(key.mac, mac, sizeof(key.mac));
	bits = rn_pod_key_bits(&key);
	bucket = rn_pod_index_bucket(bits);
#pragma unroll
	for (int way = 0; way < RN_POD_INDEX_WAYS; way++) {
		struct rn_pod_index_entry *ent;

		idx = bucket * RN_POD_INDEX_WAYS + way;
		ent = bpf_map_lookup_elem(&rn_pod_idx_v1, &idx);
		if (ent && ent->used && ent->key == bits)
			return &ent->slot;
	}
	ovf = bpf_map_lookup_elem(&rn_pod_ovf_v1, &bucket);
	if (ovf && *ovf)
		return bpf_map_lookup_elem(&rn_pods_v1, &key);
	return NULL;
}

/* src != 0: look up the source address, else the destination. */
static __always_inline __u32 *rn_pod_by_ip(const struct rn_pkt *p, void *data_end,
					   __u16 master, int src)
{
	struct rn_pod_ip_key key = { .master = master, .family = p->family };

	if (p->family == 4) {
		struct iphdr *iph = p->l3;

		if ((void *)(iph + 1) > data_end)
			return NULL;
		__builtin_memcpy(key.addr, src ? &iph->saddr : &iph->daddr, 4);
	} else if (p->family == 6) {
		struct ipv6hdr *ip6 = p->l3;

		if ((void *)(ip6 + 1) > data_end)
			return NULL;
		__builtin_memcpy(key.addr, src ? &ip6->saddr : &ip6->daddr, 16);
	} else {
		return NULL;
	}
	return bpf_map_lookup_elem(&rn_pod_ips_v1, &key);
}

static __always_inline __u32 *rn_pod_lookup(const struct rn_pkt *p, void *data_end,
					    const struct rn_master *m, __u16 master, int src)
{
	__u32 *slot = rn_pod_by_mac(src ? p->src_mac : p->dst_mac, master);

	if (!slot && (m->flags & RN_MASTER_F_IP_KEYED))
		slot = rn_pod_by_ip(p, data_end, master, src);
	return slot;
}

#endif
