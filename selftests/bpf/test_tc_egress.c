// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc egress fixtures through BPF_PROG_TEST_RUN: every class, IPv4/IPv6,
 * VLAN, CNP, every ECN input, per-pod DSCP, the three policies, GSO and
 * truncation at every header boundary. Each fixture checks the verdict,
 * the output bytes and the counter deltas. */
#include <stdio.h>

#include "fixture.h"
#include "tc_egress.skel.h"

#define OK DP_TC_OK
#define SHOT DP_TC_SHOT
#define TOS(dscp, ecn) ((dscp) << 2 | (ecn))

#define F4(smac, src, l4_, tos_) { .dst_mac = fx_peer_mac, .src_mac = smac, .family = 4, \
	.tos = tos_, .saddr = src, .daddr = "10.0.0.100", .l4 = l4_, .payload = 64 }
#define F6(smac, src, l4_, tos_) { .dst_mac = fx_peer_mac, .src_mac = smac, .family = 6, \
	.tos = tos_, .saddr = src, .daddr = "fd00::100", .l4 = l4_, .payload = 64, \
	.flow_label = 0xabcde }
#define POD4(l4_, tos_) F4(fx_pod_mac, "10.0.0.2", l4_, tos_)
#define POD6(l4_, tos_) F6(fx_pod_mac, "fd00::2", l4_, tos_)
#define ND(smac, src, type, target, lla) { .dst_mac = fx_peer_mac, .src_mac = smac, \
	.family = 6, .saddr = src, .daddr = "ff02::1", .l4 = FR_ICMP, .payload = 24, \
	.icmp_type = type, .nd_target = target, .nd_lla = lla }
#define POD4_FROM(src, l4_) F4(fx_pod_mac, src, l4_, 0)
#define POD6_FROM(src, l4_) F6(fx_pod_mac, src, l4_, 0)

static const struct fx fixtures[] = {
	/* IPv4 RoCE: DSCP 26 and ECT(0) only where Not-ECT; CE never cleared */
	{ "v4 roce not-ect -> dscp 26 ect0", POD4(FR_ROCE, 0), .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce ect0 keeps ect0", POD4(FR_ROCE, 2), .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce ect1 keeps ect1", POD4(FR_ROCE, 1), .verdict = OK,
	  .tos = TOS(26, 1), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce ce keeps ce", POD4(FR_ROCE, 3), .verdict = OK,
	  .tos = TOS(26, 3), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce already marked is untouched", POD4(FR_ROCE, TOS(26, 2)), .verdict = OK,
	  .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_ROCE },
	{ "v4 roce dscp 46 rewritten", POD4(FR_ROCE, TOS(46, 0)), .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce ecn off leaves not-ect", POD4(FR_ROCE, TOS(46, 0)), .ecn = FX_ECN_OFF,
	  .verdict = OK, .tos = TOS(26, 0), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 roce ecn ect1 mode", POD4(FR_ROCE, 0), .ecn = FX_ECN_ECT1, .verdict = OK,
	  .tos = TOS(26, 1), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 cnp -> dscp 48", POD4(FR_CNP, 0), .verdict = OK, .tos = TOS(48, 2),
	  .who = FX_WHO_POD, .cls = RN_CLASS_CNP, .marked = 1 },
	{ "v4 cnp ce keeps ce", POD4(FR_CNP, 3), .verdict = OK, .tos = TOS(48, 3),
	  .who = FX_WHO_POD, .cls = RN_CLASS_CNP, .marked = 1 },
	{ "v4 roce per-pod dscp 34", F4(fx_pod2_mac, "10.0.0.3", FR_ROCE, 0), .verdict = OK,
	  .tos = TOS(FX_POD2_DSCP, 2), .who = FX_WHO_POD2, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v4 cnp of a pod with a data dscp keeps 48", F4(fx_pod2_mac, "10.0.0.3", FR_CNP, 0),
	  .verdict = OK, .tos = TOS(48, 2), .who = FX_WHO_POD2, .cls = RN_CLASS_CNP, .marked = 1 },
	/* non-RoCE is never rewritten */
	{ "v4 tcp untouched", POD4(FR_TCP, 0), .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_TCP },
	{ "v4 udp untouched", POD4(FR_UDP, 0), .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP },
	{ "v4 udp from port 4791 to another port is udp", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100",
	  .l4 = FR_UDP, .payload = 64, .dport = 4792 }, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_UDP },
	{ "v4 icmp is other", POD4(FR_ICMP, 0), .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "arp is other", { .src_mac = fx_pod_mac, .l4 = FR_ARP, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100" }, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "v4 non-first fragment of roce is other, untouched", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100",
	  .l4 = FR_ROCE, .payload = 64, .frag_offset = 185 }, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_OTHER },
	/* host traffic: marked, counted as unknown, never policed */
	{ "host roce marked, unknown", F4(fx_host_mac, "10.0.0.1", FR_ROCE, 0), .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_UNKNOWN, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "host tcp unknown", F4(fx_host_mac, "10.0.0.1", FR_TCP, 0), .verdict = OK, .tos = -1,
	  .who = FX_WHO_UNKNOWN, .cls = RN_CLASS_TCP },
	{ "ipvlan pod found by source ip", F4(fx_host_mac, FX_POD3_IP, FR_ROCE, 0),
	  .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD3, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "host any source passes enforce", F4(fx_host_mac, "192.0.2.9", FR_ROCE, 0),
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_UNKNOWN,
	  .cls = RN_CLASS_ROCE, .marked = 1 },
	/* 802.1Q */
	{ "vlan v4 roce", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .vlan = 100,
	  .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 64 },
	  .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "vlan v6 roce", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .vlan = 100,
	  .family = 6, .saddr = "fd00::2", .daddr = "fd00::100", .l4 = FR_ROCE, .payload = 64,
	  .flow_label = 0x12345 }, .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD,
	  .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "vlan v4 tcp", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .vlan = 7,
	  .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_TCP, .payload = 64 },
	  .verdict = OK, .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_TCP },
	/* IPv6 */
	{ "v6 roce not-ect, flow label kept", POD6(FR_ROCE, 0), .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v6 roce ce keeps ce", POD6(FR_ROCE, 3), .verdict = OK, .tos = TOS(26, 3),
	  .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v6 roce ect1 keeps ect1", POD6(FR_ROCE, TOS(10, 1)), .verdict = OK,
	  .tos = TOS(26, 1), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "v6 cnp -> dscp 48", POD6(FR_CNP, 0), .verdict = OK, .tos = TOS(48, 2),
	  .who = FX_WHO_POD, .cls = RN_CLASS_CNP, .marked = 1 },
	{ "v6 tcp untouched", POD6(FR_TCP, TOS(8, 0)), .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_TCP },
	{ "v6 udp untouched", POD6(FR_UDP, 0), .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP },
	{ "v6 icmpv6 is other", POD6(FR_ICMP, 0), .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	/* GSO super-packets count as their segments */
	{ "v4 tcp gso 10 segments", POD4(FR_TCP, 0), .gso = 10, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_TCP, .segs = 10 },
	{ "v6 udp gso 4 segments", POD6(FR_UDP, 0), .gso = 4, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_UDP, .segs = 4 },
	/* source-address policy */
	{ "enforce: spoofed v4 source dropped", POD4_FROM("10.0.0.99", FR_ROCE), 
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_ROCE, .violation = 1, .drop = 1 },
	{ "monitor: spoofed v4 source counted, passed, marked", POD4_FROM("10.0.0.99", FR_ROCE),
	   .policy = RN_POLICY_MONITOR, .verdict = OK,
	  .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1,
	  .violation = 1 },
	{ "off: spoofed v4 source ignored", POD4_FROM("10.0.0.99", FR_ROCE), 
	  .policy = RN_POLICY_OFF, .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD,
	  .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "enforce: own v4 source passes", POD4(FR_TCP, 0), .policy = RN_POLICY_ENFORCE,
	  .verdict = OK, .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_TCP },
	{ "enforce: own v6 source passes", POD6(FR_ROCE, 0), .policy = RN_POLICY_ENFORCE,
	  .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "enforce: spoofed v6 source dropped", POD6_FROM("fd00::99", FR_UDP), 
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP, .violation = 1, .drop = 1 },
	{ "enforce: v6 link-local source passes (NDP)", POD6_FROM("fe80::1", FR_ICMP), 
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "enforce: v6 unspecified source passes (DAD)", POD6_FROM("::", FR_ICMP), 
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "enforce: v4 0.0.0.0 source passes (DHCP)", POD4_FROM("0.0.0.0", FR_UDP), 
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP },
	{ "enforce: another pod's address is spoofing", F4(fx_pod2_mac, "10.0.0.2", FR_TCP, 0),
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD2,
	  .cls = RN_CLASS_TCP, .violation = 1, .drop = 1 },
	{ "enforce: arp for the pod's own address passes", { .src_mac = fx_pod_mac,
	  .l4 = FR_ARP, .saddr = "10.0.0.2", .daddr = "10.0.0.100" },
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "enforce: gratuitous arp for the pod's own address passes", { .src_mac = fx_pod_mac,
	  .l4 = FR_ARP, .saddr = "10.0.0.2", .daddr = "10.0.0.2" },
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "enforce: arp probe (sender 0.0.0.0) passes", { .src_mac = fx_pod_mac,
	  .l4 = FR_ARP, .saddr = "0.0.0.0", .daddr = "10.0.0.2" },
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER },
	{ "enforce: arp claiming an address the pod does not hold dropped", { .src_mac = fx_pod_mac,
	  .l4 = FR_ARP, .saddr = "10.9.9.9", .daddr = "10.0.0.100" },
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: gratuitous arp for another pod's address dropped", { .src_mac = fx_pod2_mac,
	  .l4 = FR_ARP, .saddr = "10.0.0.2", .daddr = "10.0.0.2" },
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD2,
	  .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: arp with another sender MAC dropped", { .src_mac = fx_pod_mac,
	  .arp_sha = fx_pod2_mac, .l4 = FR_ARP, .saddr = "10.0.0.2", .daddr = "10.0.0.100" },
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "monitor: spoofing arp counted, passes", { .src_mac = fx_pod_mac,
	  .l4 = FR_ARP, .saddr = "10.9.9.9", .daddr = "10.0.0.100" },
	  .policy = RN_POLICY_MONITOR, .verdict = OK, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_OTHER, .violation = 1 },
	{ "host arp for any address passes", { .src_mac = fx_host_mac,
	  .l4 = FR_ARP, .saddr = "10.9.9.9", .daddr = "10.0.0.100" },
	  .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1, .who = FX_WHO_UNKNOWN,
	  .cls = RN_CLASS_OTHER },
	/* IPv6 neighbour discovery: NA targets and link-layer options */
	{ "enforce: unsolicited NA for the pod's own address passes", ND(fx_pod_mac, "fe80::2",
	  136, "fd00::2", fx_pod_mac), .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_OTHER },
	{ "enforce: NA for the pod's link-local address passes", ND(fx_pod_mac, "fe80::2",
	  136, "fe80::2", fx_pod_mac), .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_OTHER },
	{ "enforce: unsolicited NA for another pod's address dropped", ND(fx_pod2_mac, "fe80::3",
	  136, "fd00::2", fx_pod2_mac), .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1,
	  .who = FX_WHO_POD2, .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: NA with another MAC as target link-layer address dropped", ND(fx_pod_mac,
	  "fe80::2", 136, "fd00::2", fx_pod2_mac), .policy = RN_POLICY_ENFORCE, .verdict = SHOT,
	  .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: NS with the pod's source link-layer address passes", ND(fx_pod_mac,
	  "fd00::2", 135, "fd00::100", fx_pod_mac), .policy = RN_POLICY_ENFORCE, .verdict = OK,
	  .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_OTHER },
	{ "enforce: NS with another MAC as source link-layer address dropped", ND(fx_pod_mac,
	  "fd00::2", 135, "fd00::100", fx_pod2_mac), .policy = RN_POLICY_ENFORCE, .verdict = SHOT,
	  .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: DAD NS (from ::, no option) for any target passes", ND(fx_pod_mac, "::",
	  135, "fd00::77", NULL), .policy = RN_POLICY_ENFORCE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_OTHER },
	{ "enforce: RS with another MAC as source link-layer address dropped", ND(fx_pod_mac,
	  "fe80::2", 133, NULL, fx_pod2_mac), .policy = RN_POLICY_ENFORCE, .verdict = SHOT,
	  .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	/* QinQ: 802.1ad outer tag + 802.1Q inner tag, parsed to the IP header */
	{ "qinq v4 roce marked", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .outer_vlan = 100, .vlan = 5, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100",
	  .l4 = FR_ROCE, .payload = 64 }, .verdict = OK, .tos = TOS(26, 2), .who = FX_WHO_POD,
	  .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "enforce: qinq spoofed v4 source dropped", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .outer_vlan = 100, .vlan = 5, .family = 4,
	  .saddr = "10.0.0.99", .daddr = "10.0.0.100", .l4 = FR_UDP, .payload = 64 },
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP, .violation = 1, .drop = 1 },
	{ "enforce: qinq spoofed v6 source dropped", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .outer_vlan = 100, .vlan = 5, .family = 6,
	  .saddr = "fd00::99", .daddr = "fd00::100", .l4 = FR_UDP, .payload = 64 },
	  .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_UDP, .violation = 1, .drop = 1 },
	{ "enforce: qinq arp for another address dropped", { .src_mac = fx_pod_mac,
	  .outer_vlan = 100, .vlan = 5, .l4 = FR_ARP, .saddr = "10.9.9.9",
	  .daddr = "10.0.0.100" }, .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_OTHER, .violation = 1, .drop = 1 },
	{ "enforce: spoofed gso drops every segment", POD4_FROM("10.0.0.99", FR_TCP), 
	  .gso = 5, .policy = RN_POLICY_ENFORCE, .verdict = SHOT, .tos = -1, .who = FX_WHO_POD,
	  .cls = RN_CLASS_TCP, .segs = 5, .violation = 1, .drop = 1 },
	/* malformed: pass unmodified, count per reason, nothing else */
	{ "truncated: vlan tag missing (14 bytes)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .vlan = 5, .family = 4, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 64 }, .cut = 14, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_VLAN },
	{ "truncated: half a vlan tag (16 bytes)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .vlan = 5, .family = 4, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 64 }, .cut = 16, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_VLAN },
	{ "truncated: qinq inner tag missing (18 bytes)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .outer_vlan = 100, .vlan = 5, .family = 4, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 64 }, .cut = 18, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_VLAN },
	{ "truncated: no ipv4 header (14 bytes)", POD4(FR_ROCE, 0), .cut = 14, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half an ipv4 header", POD4(FR_ROCE, 0), .cut = 24, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: ipv4 header only", POD4(FR_ROCE, 0), .cut = 34, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half a udp header", POD4(FR_ROCE, 0), .cut = 38, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half a bth", POD4(FR_ROCE, 0), .cut = 48, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: payload cut", POD4(FR_ROCE, 0), .cut = 80, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half an ipv6 header", POD6(FR_ROCE, 0), .cut = 34, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV6 },
	{ "truncated: ipv6 header only", POD6(FR_ROCE, 0), .cut = 54, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV6 },
	{ "truncated: ipv6 half a bth", POD6(FR_ROCE, 0), .cut = 68, .verdict = OK,
	  .tos = -1, .malformed = RN_MALFORMED_IPV6 },
	{ "udp 4791 too short for a bth", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_UDP, .payload = 6,
	  .dport = 4791 }, .verdict = OK, .tos = -1, .malformed = RN_MALFORMED_BTH },
	{ "tcp data offset below 5", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_TCP, .payload = 64,
	  .tcp_doff = 3 }, .verdict = OK, .tos = -1, .malformed = RN_MALFORMED_L4 },
	{ "ipv4 ihl below 5", POD4(FR_ROCE, 0), .patch_off = 0, .patch_len = 1,
	  .patch = { 0x44 }, .verdict = OK, .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "ipv4 ethertype carrying version 6", POD4(FR_ROCE, 0), .patch_off = 0,
	  .patch_len = 1, .patch = { 0x65 }, .verdict = OK, .tos = -1,
	  .malformed = RN_MALFORMED_IPV4 },
	{ "ipv4 total length below header", POD4(FR_UDP, 0), .patch_off = 2, .patch_len = 2,
	  .patch = { 0, 10 }, .verdict = OK, .tos = -1, .malformed = RN_MALFORMED_IPV4 },
	{ "udp length beyond ip payload", POD4(FR_ROCE, 0), .patch_off = 24, .patch_len = 2,
	  .patch = { 0, 6 }, .verdict = OK, .tos = -1, .malformed = RN_MALFORMED_BTH },
};

int main(void)
{
	struct tap tap = { 0 };
	struct tc_egress *skel;
	struct dp_env env;

	skel = tc_egress__open();
	if (!skel || dp_env_open(&env) || dp_env_share(&env, skel->obj) ||
	    tc_egress__load(skel) || fx_pods(&env)) {
		printf("not ok 1 - load tc_egress with fixture maps and pods\n1..1\n");
		return 1;
	}
	env.prog_fd = bpf_program__fd(skel->progs.rn_tc_egress);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		fx_run(&env, &fixtures[i], RN_DIR_TX, 0, &tap);
	tc_egress__destroy(skel);
	dp_env_close(&env);
	return tap_finish(&tap);
}
