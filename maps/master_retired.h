/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per master: traffic of pods unregistered from it. Userspace only; pinned
 * with the others so every registry writer and reader shares it. */
#ifndef RDMANET_MAP_MASTER_RETIRED_H
#define RDMANET_MAP_MASTER_RETIRED_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_master_retired);
	__uint(max_entries, RN_MAX_MASTERS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_mst_ret_v1 SEC(".maps");

#endif
