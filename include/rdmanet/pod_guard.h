/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The per-pod program (bpf/pod_egress.bpf.c): attached by the CNI plugin
 * to the egress of the pod's own interface, in the pod's netns, where the
 * origin of a frame is not in doubt whatever addresses it carries. The
 * master's programs cannot tell a pod's frame from the host's once the pod
 * lies about its MAC, and never see what macvlan (bridge) or ipvlan (l2)
 * hands from one pod to its siblings inside the driver. */
#ifndef RDMANET_POD_GUARD_H
#define RDMANET_POD_GUARD_H

#include "base.h"
#include "traffic.h"

/* Which pod an interface is: its netns (the cookie the kernel gives every
 * netns, SO_NETNS_COOKIE / net->net_cookie; never 0, never reused)
 * and its ifindex there (ifindexes alone repeat from one netns to the
 * next). The table is an array of RN_POD_DEV_BUCKETS buckets of
 * RN_POD_DEV_WAYS entries, like the pod index (pod_index.h) and for the
 * same reason: a BPF hash lookup here cost about 30 ns per packet. An
 * entry is free while its netns_cookie is 0; writers (the CNI plugin,
 * under the registry lock) fill only free entries and clear one by zeroing
 * it whole. A reader racing a write may see a torn entry: the slot is
 * trusted only while its pod info still starts with key_bits. */
#define RN_POD_DEV_BITS 12
#define RN_POD_DEV_BUCKETS (1u << RN_POD_DEV_BITS)
#define RN_POD_DEV_WAYS 4

struct rn_pod_dev {
	__u64 netns_cookie;
	__u32 ifindex;
	__u32 slot;
	/* the pod's struct rn_pod_key as 8 bytes */
	__u64 key_bits;
};

static inline __u32 rn_pod_dev_bucket(__u64 netns_cookie, __u32 ifindex)
{
	__u64 k = netns_cookie ^ ((__u64)ifindex << 40);

	return (__u32)((k * 0x9E3779B97F4A7C15ULL) >> (64 - RN_POD_DEV_BITS));
}

/* Why the per-pod program refused a frame. Counted in monitor and
 * enforce; in enforce the frame is dropped. */
enum rn_pod_reason {
	RN_REASON_SOURCE_MAC = 0,	/* Ethernet source is not the pod's MAC */
	RN_REASON_SOURCE_IP,		/* IP source is not one of the pod's */
	RN_REASON_ARP_CLAIM,		/* ARP sender MAC or IPv4 not the pod's */
	RN_REASON_ND_CLAIM,		/* NA target or ND link-layer option not the pod's */
	RN_REASON_VLAN_DEPTH,		/* more VLAN tags than the parser walks */
	RN_REASON_IPV6_EXT_DEPTH,	/* more IPv6 extension headers than it walks */
	RN_REASON_ND_UNFINISHED,	/* ND options beyond what it walks or holds */
	RN_REASON_MALFORMED,		/* the parser's own reasons: malformed[] */
	RN_REASON_MAX,
};

/* Per pod slot, per CPU. denied[RN_REASON_MALFORMED] is the sum of
 * malformed[]. Each frame counted here is also one violation (and, in
 * enforce, one drop) of struct rn_pod_counters. */
struct rn_pod_reasons {
	__u64 denied[RN_REASON_MAX];
	__u64 malformed[RN_MALFORMED_MAX];
};

#endif
