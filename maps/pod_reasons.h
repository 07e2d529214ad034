/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per pod slot: the frames the per-pod program refused, by reason. */
#ifndef RDMANET_MAP_POD_REASONS_H
#define RDMANET_MAP_POD_REASONS_H

#include "map_sizes.h"
#include <rdmanet/pod_guard.h>

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_pod_reasons);
	__uint(max_entries, RN_DEFAULT_MAX_PODS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_rsn_v1 SEC(".maps");

#endif
