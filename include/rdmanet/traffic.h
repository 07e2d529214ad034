/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Traffic classes, directions and the packet/byte pair counted per class. */
#ifndef RDMANET_TRAFFIC_H
#define RDMANET_TRAFFIC_H

#include "base.h"

/* RoCEv2 rides UDP to this port (IBTA Annex A17). */
#define RN_ROCE_UDP_PORT 4791
/* Base Transport Header: opcode, flags, pkey, dest QP, PSN. */
#define RN_BTH_LEN 12
/* Congestion Notification Packet opcode (Annex A17.9.1). */
#define RN_BTH_OPCODE_CNP 0x81

enum rn_class {
	RN_CLASS_ROCE = 0,	/* UDP dport 4791 with a BTH, except CNP */
	RN_CLASS_CNP,		/* RoCEv2 CNP (BTH opcode 0x81) */
	RN_CLASS_TCP,
	RN_CLASS_UDP,		/* any other UDP */
	RN_CLASS_OTHER,		/* ARP, ICMP, non-first fragments, ... */
	RN_CLASS_MAX,
};

enum rn_dir {
	RN_DIR_RX = 0,		/* towards the pod (master ingress) */
	RN_DIR_TX,		/* from the pod (master egress) */
	RN_DIR_MAX,
};

/* Bytes are L2 frame bytes as the hook sees them (no FCS); a GSO or GRO
 * aggregate counts as the segments it stands for. */
struct rn_traffic {
	__u64 packets;
	__u64 bytes;
};

/* Why a frame was counted as malformed. The parser returns these negated,
 * like Cilium's drop reasons, so one int carries class or error. */
enum rn_malformed {
	RN_MALFORMED_NONE = 0,
	RN_MALFORMED_ETH,	/* shorter than an Ethernet header */
	RN_MALFORMED_VLAN,	/* 802.1Q tag cut short */
	RN_MALFORMED_IPV4,	/* IPv4 header cut short or inconsistent */
	RN_MALFORMED_IPV6,	/* IPv6 header or extension cut short */
	RN_MALFORMED_L4,	/* TCP/UDP header cut short or inconsistent */
	RN_MALFORMED_BTH,	/* UDP 4791 without a complete BTH */
	RN_MALFORMED_MAX,
};

#endif
