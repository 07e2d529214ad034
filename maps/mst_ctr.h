/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-master counters of traffic that belongs to no registered pod. */
#ifndef RDMANET_MAP_MST_CTR_H
#define RDMANET_MAP_MST_CTR_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_master_counters);
	__uint(max_entries, RN_MAX_MASTERS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_mst_ctr_v1 SEC(".maps");

#endif
