/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A registered pod interface. Pods are found by MAC on their master (or
 * by IP for ipvlan, whose children share the master's MAC), never by the
 * pod interface's ifindex: macvlan traffic leaves through the master. */
#ifndef RDMANET_POD_H
#define RDMANET_POD_H

#include "base.h"
#include "traffic.h"
#include "policy.h"
#include "master.h"

#define RN_POD_MAX_IPV4 4
#define RN_POD_MAX_IPV6 4

struct rn_pod_key {
	__u8 mac[6];
	__u16 master;		/* master slot */
};

struct rn_pod_ip_key {
	__u16 master;		/* master slot */
	__u8 family;		/* 4 or 6 */
	__u8 pad;
	__u8 addr[16];		/* IPv4 in the first 4 bytes */
};

/* flags */
#define RN_POD_F_IP_KEYED (1u << 0) /* found by IP, not MAC (ipvlan) */
/* its own interface carries the per-pod program (pod_guard.h), which counts
 * its violations: the master's programs count none of them again in
 * monitor, and in enforce drop what got past it (a second line) */
#define RN_POD_F_GUARDED  (1u << 1)

struct rn_pod {
	__u8 mac[6];
	__u16 master;		/* master slot */
	__u8 dscp_roce;		/* RN_DSCP_INHERIT: master's value */
	__u8 dscp_cnp;
	__u8 flags;
	__u8 n_ipv4;
	__u8 n_ipv6;
	__u8 pad[3];
	__u32 ipv4[RN_POD_MAX_IPV4];		/* network byte order */
	__u8 ipv6[RN_POD_MAX_IPV6][16];
};

struct rn_pod_counters {
	struct rn_traffic traffic[RN_DIR_MAX][RN_CLASS_MAX];
	__u64 rx_ecn_ce;	/* CE-marked RoCE (data or CNP) received */
	__u64 tx_marked;	/* RoCE sent whose DSCP/ECN was rewritten */
	__u64 violations[RN_VIOLATION_MAX]; /* monitor and enforce */
	__u64 drops[RN_VIOLATION_MAX];	    /* enforce only */
};

/* Who a slot belongs to. Only userspace reads it; it lives in a pinned
 * map so that the agent, the CLI and the CNI plugin share one registry. */
#define RN_NS_LEN 64
#define RN_POD_NAME_LEN 256
#define RN_CONTAINER_ID_LEN 128

struct rn_pod_meta {
	char ns[RN_NS_LEN];
	char name[RN_POD_NAME_LEN];
	char container_id[RN_CONTAINER_ID_LEN];
	char ifname[RN_IFNAMSIZ];
	__u64 created_ns;	/* CLOCK_REALTIME */
};

#endif
