/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per index bucket: how many of its keys live in rn_pods_v1 because the
 * bucket was full. Read only when a lookup misses the bucket. */
#ifndef RDMANET_MAP_POD_OVERFLOW_H
#define RDMANET_MAP_POD_OVERFLOW_H

#include "map_sizes.h"
#include <rdmanet/pod_index.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, RN_POD_INDEX_BUCKETS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_ovf_v1 SEC(".maps");

#endif
