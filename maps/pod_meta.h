/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Who owns a pod slot (namespace, pod, container id, ifname). Read only by
 * userspace; pinned with the others so agent, CLI and CNI share one registry. */
#ifndef RDMANET_MAP_POD_META_H
#define RDMANET_MAP_POD_META_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct rn_pod_meta);
	__uint(max_entries, RN_DEFAULT_MAX_PODS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} rn_pod_meta_v1 SEC(".maps");

#endif
