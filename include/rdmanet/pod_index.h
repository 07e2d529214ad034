/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The per-packet pod lookup by (MAC, master), as an array the verifier
 * inlines instead of a BPF hash map: on the benchmark machines a hash
 * lookup alone cost ~29 ns per packet, twice the whole XDP budget.
 *
 * 2^RN_POD_INDEX_BITS buckets of RN_POD_INDEX_WAYS entries; a key's bucket
 * is a multiplicative hash of its 8 bytes. Entries that find their bucket
 * full go to the rn_pods_v1 hash map, and the bucket's overflow count
 * tells the data path to look there too (rare: with 2,048 pods the chance
 * that any of the 8,192 buckets overflows is about 5%).
 *
 * Writers (the registry, under its lock) only fill entries whose `used` is
 * 0 and clear an entry by zeroing it whole, so a reader racing a write sees
 * either a miss or the complete entry. */
#ifndef RDMANET_POD_INDEX_H
#define RDMANET_POD_INDEX_H

#include "pod.h"

#define RN_POD_INDEX_BITS 13
#define RN_POD_INDEX_BUCKETS (1u << RN_POD_INDEX_BITS)
#define RN_POD_INDEX_WAYS 4

struct rn_pod_index_entry {
	__u64 key;		/* struct rn_pod_key, as 8 bytes */
	__u32 slot;
	__u32 used;
};

static inline __u64 rn_pod_key_bits(const struct rn_pod_key *k)
{
	__u64 v;

	__builtin_memcpy(&v, k, sizeof(v));
	return v;
}

static inline __u32 rn_pod_index_bucket(__u64 key)
{
	return (__u32)((key * 0x9E3779B97F4A7C15ULL) >> (64 - RN_POD_INDEX_BITS));
}

#endif
