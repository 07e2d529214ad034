/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where in rn_pod_dev_v1 the CNI plugin put a pod's entry (slot -> index),
 * so that DEL zeroes that one entry instead of reading the whole table
 * (16,384 entries in 16 batches: 5.7 ms of a DEL, strace -T). Only user
 * space reads it; the per-pod program's object declares it so that the
 * agent creates and pins it with the program. Entries come as pods do
 * (no preallocation). */
#ifndef RDMANET_MAP_POD_DEVAT_H
#define RDMANET_MAP_POD_DEVAT_H

#include <rdmanet/pod_guard.h>

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, RN_POD_DEV_BUCKETS * RN_POD_DEV_WAYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_devat_v1 SEC(".maps");

#endif
