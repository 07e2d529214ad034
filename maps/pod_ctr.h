/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-pod counters, per CPU so the hot path needs no atomics. */
#ifndef RDMANET_MAP_POD_CTR_H
#define RDMANET_MAP_POD_CTR_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_pod_counters);
	__uint(max_entries, RN_DEFAULT_MAX_PODS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_ctr_v1 SEC(".maps");

#endif
