/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pod slot by (netns cookie, ifindex) of the pod's own interface: how the
 * per-pod program, one program for every pod, finds whose interface it
 * runs on (bucket * RN_POD_DEV_WAYS + way, include/rdmanet/pod_guard.h).
 * Written by the CNI plugin when it attaches the program. */
#ifndef RDMANET_MAP_POD_DEV_H
#define RDMANET_MAP_POD_DEV_H

#include "map_sizes.h"
#include <rdmanet/pod_guard.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct rn_pod_dev);
	__uint(max_entries, RN_POD_DEV_BUCKETS * RN_POD_DEV_WAYS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_dev_v1 SEC(".maps");

#endif
