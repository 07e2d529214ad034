/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pod slot by (master slot, IP), for pods that share the master's MAC (ipvlan). */
#ifndef RDMANET_MAP_POD_IPS_H
#define RDMANET_MAP_POD_IPS_H

#include "map_sizes.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct rn_pod_ip_key);
	__type(value, __u32);
	__uint(max_entries, RN_DEFAULT_MAX_POD_IPS);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} rn_pod_ips_v1 SEC(".maps");

#endif
