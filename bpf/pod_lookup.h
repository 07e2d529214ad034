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

#include "../maps/pod_info.h"

/* An index entry is 16 bytes that the registry rewrites with one map update,
 * which the kernel copies in place, not atomically; this program reads
 * `used`, `key` and `slot` as separate loads. A reader racing an
 * unregistration can therefore see the old `used` and `key` with the
 * zeroed `slot` (slot 0: another pod's counters and policy), or, across a
 * remove and an insert, one pod's key with another's slot. The slot is
 * therefore read once, into the caller's variable, and trusted only if that
 * slot's pod info (written before any key is published, left in place when
 * the keys are withdrawn) names this MAC on this master. */
static __always_inline int rn_pod_slot_is(__u32 slot, __u64 key_bits)
{
	struct rn_pod *pod = bpf_map_lookup_elem(&rn_pod_info_v1, &slot);

	/* a pod's first 8 bytes, mac[6] then master, are its rn_pod_key: one
	 * 64-bit compare (include/rdmanet/pod.h asserts the layout) */
	return pod && *(__u64 *)pod == key_bits;
}

/* A pod key's 8 bytes (struct rn_pod_key: mac[6], then master) as one
 * register, read straight from the frame. Building the struct on the stack
 * and reading it back as a __u64 stores 2- and 4-byte pieces and loads 8:
 * the CPU cannot forward those stores to the load and waits until they
 * reach the cache, on every packet. The 4- and 2-byte frame reads may be
 * unaligned, which the verifier allows wherever unaligned access is cheap
 * (x86, arm64). */
static __always_inline __u64 rn_pod_key_bits_of(const __u8 *mac, __u16 master)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rn_pod_key_bits_of assumes the little-endian layout of struct rn_pod_key"
#endif
	return (__u64)*(const __u32 *)mac | (__u64)*(const __u16 *)(mac + 4) << 32 |
	       (__u64)master << 48;
}

/* Returns 1 and the pod's slot in *slot, or 0. */
static __always_inline int rn_pod_by_mac(const __u8 *mac, __u16 master, __u32 *slot)
{
	__u64 bits = rn_pod_key_bits_of(mac, master);
	__u32 bucket = rn_pod_index_bucket(bits), idx, *ovf, *v;

#pragma unroll
	for (int way = 0; way < RN_POD_INDEX_WAYS; way++) {
		struct rn_pod_index_entry *ent;

		idx = bucket * RN_POD_INDEX_WAYS + way;
		ent = bpf_map_lookup_elem(&rn_pod_idx_v1, &idx);
		if (ent && ent->used && ent->key == bits) {
			*slot = *(volatile __u32 *)&ent->slot;
			return rn_pod_slot_is(*slot, bits);
		}
	}
	ovf = bpf_map_lookup_elem(&rn_pod_ovf_v1, &bucket);
	if (!ovf || !*ovf)
		return 0;
	/* the key as the map's struct rn_pod_key: the same 8 bytes */
	v = bpf_map_lookup_elem(&rn_pods_v1, &bits);
	if (!v)
		return 0;
	*slot = *(volatile __u32 *)v;
	return rn_pod_slot_is(*slot, bits);
}

/* src != 0: look up the source address, else the destination. Returns 1
 * and the slot in *slot, or 0. The slot must belong to an IP-keyed pod of
 * this master (see rn_pod_slot_is for why a slot is checked). */
static __always_inline int rn_pod_by_ip(const struct rn_pkt *p, void *data_end,
					__u16 master, int src, __u32 *slot)
{
	struct rn_pod_ip_key key = { .master = master, .family = p->family };
	struct rn_pod *pod;
	__u32 *v;

	if (p->family == 4) {
		struct iphdr *iph = p->l3;

		/* !iph: XDP keeps p in memory, where 6.1's verifier loses the
		 * family it stored, and tries family 4 with a NULL l3 */
		if (!iph || (void *)(iph + 1) > data_end)
			return 0;
		__builtin_memcpy(key.addr, src ? &iph->saddr : &iph->daddr, 4);
	} else if (p->family == 6) {
		struct ipv6hdr *ip6 = p->l3;

		if (!ip6 || (void *)(ip6 + 1) > data_end)
			return 0;
		__builtin_memcpy(key.addr, src ? &ip6->saddr : &ip6->daddr, 16);
	} else {
		return 0;
	}
	v = bpf_map_lookup_elem(&rn_pod_ips_v1, &key);
	if (!v)
		return 0;
	*slot = *(volatile __u32 *)v;
	pod = bpf_map_lookup_elem(&rn_pod_info_v1, slot);
	return pod && pod->master == master && (pod->flags & RN_POD_F_IP_KEYED);
}

/* Returns 1 and the pod's slot in *slot, or 0. */
static __always_inline int rn_pod_lookup(const struct rn_pkt *p, void *data_end,
					 const struct rn_master *m, __u16 master, int src,
					 __u32 *slot)
{
	if (rn_pod_by_mac(src ? p->src_mac : p->dst_mac, master, slot))
		return 1;
	return (m->flags & RN_MASTER_F_IP_KEYED) && rn_pod_by_ip(p, data_end, master, src, slot);
}

#endif
