/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Building test frames byte by byte: Ethernet, an optional 802.1Q tag,
 * IPv4 or IPv6, TCP/UDP/RoCEv2 (UDP 4791 + BTH)/ICMP, with correct lengths
 * and IPv4 header checksum, so fixtures state only what differs. */
#ifndef RDMANET_TEST_FRAME_H
#define RDMANET_TEST_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum frame_l4 { FR_NONE = 0, FR_TCP, FR_UDP, FR_ROCE, FR_CNP, FR_ICMP, FR_ARP };

struct frame_spec {
	const uint8_t *dst_mac;
	const uint8_t *src_mac;
	uint16_t vlan;		/* 0: untagged */
	uint16_t outer_vlan;	/* 802.1ad tag before vlan (QinQ); 0: none */
	const uint8_t *arp_sha;	/* ARP sender hardware address; NULL: src_mac */
	int family;		/* 4 or 6 (ignored for FR_ARP) */
	uint8_t tos;		/* TOS / traffic class */
	const char *saddr;
	const char *daddr;
	enum frame_l4 l4;
	size_t payload;		/* bytes after the L4 header (after the BTH for RoCE) */
	uint16_t frag_offset;	/* IPv4: in 8-byte units; non-zero = non-first fragment */
	uint32_t flow_label;	/* IPv6 */
	uint16_t dport;		/* UDP/TCP destination port; 0: the class's usual */
	uint8_t tcp_doff;	/* TCP data offset in words; 0: 5 */
	/* IPv6 neighbour discovery (FR_ICMP, family 6): ICMPv6 type (133 RS,
	 * 135 NS, 136 NA; 0: echo request), target, and the source (RS, NS) or
	 * target (NA) link-layer option; payload must hold them (NS/NA: 24) */
	uint8_t icmp_type;
	const char *nd_target;
	const uint8_t *nd_lla;
};

struct frame_layout {
	size_t len;		/* whole frame */
	size_t l3;		/* offset of the IP header */
	size_t l4;		/* offset of the TCP/UDP header */
	size_t bth;		/* offset of the BTH (RoCE) */
	size_t end_l4;		/* end of the L4 header (+ BTH) */
};

/* Returns the frame length, or 0 if it does not fit in size. */
size_t frame_build(const struct frame_spec *s, uint8_t *buf, size_t size, struct frame_layout *lo);
uint16_t frame_ipv4_csum(const uint8_t *iph, size_t ihl);
/* TOS/traffic class of the frame's IP header. */
uint8_t frame_tos(const uint8_t *buf, const struct frame_layout *lo, int family);

#endif
