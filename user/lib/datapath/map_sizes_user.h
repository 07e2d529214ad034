/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Map sizes as userspace sees them (maps/map_sizes.h without BPF macros). */
#ifndef RDMANET_MAP_SIZES_USER_H
#define RDMANET_MAP_SIZES_USER_H

#include "../../maps/map_sizes.h"

/* Upper bound for config "max_pods": per-CPU counters cost
 * sizeof(struct rn_pod_counters) * max_pods * possible CPUs. */
#define RN_MAX_PODS_LIMIT 65536

#endif
