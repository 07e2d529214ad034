/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pod slot by (MAC, master slot): bucket * RN_POD_INDEX_WAYS + way. The
 * lookup on every packet (include/rdmanet/pod_index.h says why an array). */
#ifndef RDMANET_MAP_POD_INDEX_H
#define RDMANET_MAP_POD_INDEX_H

#include "map_sizes.h"
#include <rdmanet/pod_index.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_pod_index_entry);
	__uint(max_entries, RN_POD_INDEX_BUCKETS * RN_POD_INDEX_WAYS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_idx_v1 SEC(".maps");

#endif
