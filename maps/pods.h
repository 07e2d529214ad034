/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pod slot by (MAC, master slot) for keys whose index bucket was full
 * (maps/pod_index.h); looked up only when the bucket says so. */
#ifndef RDMANET_MAP_PODS_H
#define RDMANET_MAP_PODS_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct rn_pod_key);
	__type(value, __u32);
	__uint(max_entries, RN_DEFAULT_MAX_PODS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pods_v1 SEC(".maps");

#endif
