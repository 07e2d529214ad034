/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A RoCE master netdev as the data path sees it: one slot per master. */
#ifndef RDMANET_MASTER_H
#define RDMANET_MASTER_H

#include "base.h"
#include "traffic.h"
#include "policy.h"

/* Each attached program instance is loaded with its master's slot as a
 * constant, so per-master state is an array index, not a hash lookup. */
#define RN_MAX_MASTERS 64
#define RN_IFNAMSIZ 16

enum rn_xdp_state { RN_XDP_NONE = 0, RN_XDP_NATIVE, RN_XDP_SKB };
enum rn_tc_state { RN_TC_NONE = 0, RN_TC_TCX, RN_TC_CLSACT };

/* flags */
#define RN_MASTER_F_IN_USE	(1u << 0)
#define RN_MASTER_F_IP_KEYED	(1u << 1) /* has pods found by IP (ipvlan) */
#define RN_MASTER_F_OWN_QDISC	(1u << 2) /* rdmanetd created the clsact qdisc */

struct rn_master {
	__u32 ifindex;
	__u32 mtu;		/* to count GRO aggregates as segments */
	__u8 policy;		/* enum rn_policy */
	__u8 ecn;		/* enum rn_ecn_mode */
	__u8 dscp_roce;
	__u8 dscp_cnp;
	__u8 xdp;		/* enum rn_xdp_state */
	__u8 tc;		/* enum rn_tc_state */
	__u8 flags;
	/* Which of our XDP programs counts: the one loaded with this value
	 * (0: any). An upgrade puts the new program in the dispatcher beside
	 * the old one and then flips this, so a packet is counted once. */
	__u8 xdp_gen;
	char ifname[RN_IFNAMSIZ];
};

struct rn_master_counters {
	/* frames of no registered pod (host traffic, broadcast, ...) */
	struct rn_traffic unknown[RN_DIR_MAX][RN_CLASS_MAX];
	__u64 malformed[RN_MALFORMED_MAX];
	__u64 rx_ecn_ce;	/* CE-marked RoCE received for no pod */
	__u64 tx_marked;	/* RoCE of no pod whose DSCP/ECN was rewritten */
};

/* Traffic of pods that were unregistered from this master, so the master's
 * totals (pods + unknown + retired) never go backwards. Written only by the
 * registry, under its lock, when a pod goes. */
struct rn_master_retired {
	struct rn_traffic traffic[RN_DIR_MAX][RN_CLASS_MAX];
};

#endif
