/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-pod DSCP override and allowed source addresses, indexed by pod slot. */
#ifndef RDMANET_MAP_POD_INFO_H
#define RDMANET_MAP_POD_INFO_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_pod);
	__uint(max_entries, RN_DEFAULT_MAX_PODS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_info_v1 SEC(".maps");

#endif
