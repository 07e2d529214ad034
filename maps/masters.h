/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-master configuration and attach state, indexed by master slot. */
#ifndef RDMANET_MAP_MASTERS_H
#define RDMANET_MAP_MASTERS_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_master);
	__uint(max_entries, RN_MAX_MASTERS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_masters_v1 SEC(".maps");

#endif
