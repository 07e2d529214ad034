// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* XDP rx fixtures through BPF_PROG_TEST_RUN: per-pod rx by destination MAC
 * (or IP for ipvlan pods), every class, IPv4/IPv6, VLAN, ECN-CE counting,
 * multi-buffer frames, GRO aggregates counted as segments, and truncation
 * at every header boundary. The program never changes a byte. */
#include <stdio.h>
#include <bpf/bpf.h>
#include <rdmanet/pod_index.h>

#include "fixture.h"
#include "xdp_rx.skel.h"

#define PASS DP_XDP_PASS

#define R4(dmac, dst, l4_, tos_) { .dst_mac = dmac, .src_mac = fx_peer_mac, .family = 4, \
	.tos = tos_, .saddr = "10.0.0.100", .daddr = dst, .l4 = l4_, .payload = 64 }
#define R6(dmac, dst, l4_, tos_) { .dst_mac = dmac, .src_mac = fx_peer_mac, .family = 6, \
	.tos = tos_, .saddr = "fd00::100", .daddr = dst, .l4 = l4_, .payload = 64 }
#define TO_POD4(l4_, tos_) R4(fx_pod_mac, "10.0.0.2", l4_, tos_)
#define TO_POD6(l4_, tos_) R6(fx_pod_mac, "fd00::2", l4_, tos_)
#define RX(cls_) .verdict = PASS, .tos = -1, .cls = cls_

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static const struct fx fixtures[] = {
	{ "v4 roce to pod", TO_POD4(FR_ROCE, 0), RX(RN_CLASS_ROCE), .who = FX_WHO_POD },
	{ "v4 roce ect0 to pod: no ce", TO_POD4(FR_ROCE, 2), RX(RN_CLASS_ROCE),
	  .who = FX_WHO_POD },
	{ "v4 roce ce to pod counted as ce", TO_POD4(FR_ROCE, 0x6b), RX(RN_CLASS_ROCE),
	  .who = FX_WHO_POD, .ce = 1 },
	{ "v4 cnp to pod", TO_POD4(FR_CNP, 0xc2), RX(RN_CLASS_CNP), .who = FX_WHO_POD },
	{ "v4 cnp ce to pod counted as ce", TO_POD4(FR_CNP, 0xc3), RX(RN_CLASS_CNP),
	  .who = FX_WHO_POD, .ce = 1 },
	{ "v4 tcp ce is not roce ce", TO_POD4(FR_TCP, 3), RX(RN_CLASS_TCP), .who = FX_WHO_POD },
	{ "v4 udp to pod", TO_POD4(FR_UDP, 0), RX(RN_CLASS_UDP), .who = FX_WHO_POD },
	{ "v4 icmp to pod", TO_POD4(FR_ICMP, 0), RX(RN_CLASS_OTHER), .who = FX_WHO_POD },
	{ "v4 roce to the second pod", R4(fx_pod2_mac, "10.0.0.3", FR_ROCE, 0),
	  RX(RN_CLASS_ROCE), .who = FX_WHO_POD2 },
	{ "v4 roce to ipvlan pod by destination ip", R4(fx_host_mac, FX_POD3_IP, FR_ROCE, 0),
	  RX(RN_CLASS_ROCE), .who = FX_WHO_POD3 },
	{ "v4 roce to host is unknown", R4(fx_host_mac, "10.0.0.1", FR_ROCE, 0),
	  RX(RN_CLASS_ROCE), .who = FX_WHO_UNKNOWN },
	{ "v4 roce ce to host: master ce", R4(fx_host_mac, "10.0.0.1", FR_ROCE, 3),
	  RX(RN_CLASS_ROCE), .who = FX_WHO_UNKNOWN, .ce = 1 },
	{ "v4 tcp to host is unknown", R4(fx_host_mac, "10.0.0.1", FR_TCP, 0),
	  RX(RN_CLASS_TCP), .who = FX_WHO_UNKNOWN },
	{ "broadcast arp is unknown other", { .src_mac = fx_peer_mac, .l4 = FR_ARP,
	  .saddr = "10.0.0.100", .daddr = "10.0.0.2" }, RX(RN_CLASS_OTHER),
	  .who = FX_WHO_UNKNOWN },
	{ "broadcast udp is unknown", R4(bcast, "10.0.0.255", FR_UDP, 0), RX(RN_CLASS_UDP),
	  .who = FX_WHO_UNKNOWN },
	{ "v4 non-first fragment is other", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
	  .payload = 64, .frag_offset = 3 }, RX(RN_CLASS_OTHER), .who = FX_WHO_POD },
	{ "vlan v4 roce to pod", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac, .vlan = 100,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE, .payload = 64,
	  .tos = 3 }, RX(RN_CLASS_ROCE), .who = FX_WHO_POD, .ce = 1 },
	{ "qinq v4 roce to pod, ce", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .outer_vlan = 200, .vlan = 100, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2",
	  .l4 = FR_ROCE, .payload = 64, .tos = 3 }, RX(RN_CLASS_ROCE), .who = FX_WHO_POD, .ce = 1 },
	{ "vlan v6 cnp to pod", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac, .vlan = 100,
	  .family = 6, .saddr = "fd00::100", .daddr = "fd00::2", .l4 = FR_CNP, .payload = 64 },
	  RX(RN_CLASS_CNP), .who = FX_WHO_POD },
	{ "v6 roce to pod", TO_POD6(FR_ROCE, 0x68), RX(RN_CLASS_ROCE), .who = FX_WHO_POD },
	{ "v6 roce ce to pod", TO_POD6(FR_ROCE, 0x6b), RX(RN_CLASS_ROCE), .who = FX_WHO_POD,
	  .ce = 1 },
	{ "v6 tcp to pod", TO_POD6(FR_TCP, 0), RX(RN_CLASS_TCP), .who = FX_WHO_POD },
	{ "v6 udp to pod", TO_POD6(FR_UDP, 0), RX(RN_CLASS_UDP), .who = FX_WHO_POD },
	{ "v6 icmpv6 to pod", TO_POD6(FR_ICMP, 0), RX(RN_CLASS_OTHER), .who = FX_WHO_POD },
	/* bigger than one page: a multi-buffer frame, whole length counted */
	{ "multi-buffer 6000-byte udp (mtu 9000)", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_peer_mac, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2",
	  .l4 = FR_UDP, .payload = 6000 - 42 }, .mtu = 9000, RX(RN_CLASS_UDP),
	  .who = FX_WHO_POD },
	/* a GRO aggregate (veth, generic XDP) counts as its MTU-sized segments:
	 * 20000 bytes = 19946 of IP, 19906 of payload / 1460 per segment = 14 */
	{ "gro aggregate of 14 tcp segments", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_TCP,
	  .payload = 20000 - 54 }, .mtu = 1500, RX(RN_CLASS_TCP), .who = FX_WHO_POD,
	  .segs = 14 },
	/* malformed at every header boundary */
	{ "truncated: vlan tag missing", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .vlan = 9, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
	  .payload = 64 }, .cut = 14, RX(0), .malformed = RN_MALFORMED_VLAN },
	{ "truncated: half a vlan tag", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .vlan = 9, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
	  .payload = 64 }, .cut = 16, RX(0), .malformed = RN_MALFORMED_VLAN },
	{ "truncated: no ipv4 header", TO_POD4(FR_ROCE, 0), .cut = 14, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half an ipv4 header", TO_POD4(FR_ROCE, 0), .cut = 24, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: ipv4 header only", TO_POD4(FR_ROCE, 0), .cut = 34, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half a udp header", TO_POD4(FR_ROCE, 0), .cut = 38, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: half a bth", TO_POD4(FR_ROCE, 0), .cut = 48, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: payload cut", TO_POD4(FR_ROCE, 0), .cut = 80, RX(0),
	  .malformed = RN_MALFORMED_IPV4 },
	{ "truncated: no ipv6 header", TO_POD6(FR_ROCE, 0), .cut = 14, RX(0),
	  .malformed = RN_MALFORMED_IPV6 },
	{ "truncated: half an ipv6 header", TO_POD6(FR_ROCE, 0), .cut = 34, RX(0),
	  .malformed = RN_MALFORMED_IPV6 },
	{ "truncated: ipv6 header only", TO_POD6(FR_ROCE, 0), .cut = 54, RX(0),
	  .malformed = RN_MALFORMED_IPV6 },
	{ "truncated: ipv6 half a bth", TO_POD6(FR_ROCE, 0), .cut = 68, RX(0),
	  .malformed = RN_MALFORMED_IPV6 },
	{ "udp 4791 too short for a bth", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_UDP, .payload = 6,
	  .dport = 4791 }, RX(0), .malformed = RN_MALFORMED_BTH },
	{ "v6 udp 4791 too short for a bth", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 6, .saddr = "fd00::100", .daddr = "fd00::2", .l4 = FR_UDP, .payload = 11,
	  .dport = 4791 }, RX(0), .malformed = RN_MALFORMED_BTH },
	{ "tcp data offset below 5", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_TCP, .payload = 64,
	  .tcp_doff = 2 }, RX(0), .malformed = RN_MALFORMED_L4 },
	{ "ipv4 ihl below 5", TO_POD4(FR_ROCE, 0), .patch_off = 0, .patch_len = 1,
	  .patch = { 0x43 }, RX(0), .malformed = RN_MALFORMED_IPV4 },
	{ "ipv6 ethertype carrying version 4", TO_POD6(FR_ROCE, 0), .patch_off = 0,
	  .patch_len = 1, .patch = { 0x46 }, RX(0), .malformed = RN_MALFORMED_IPV6 },
};

/* Five MACs in one index bucket: four fill its ways, the fifth lives in the
 * overflow hash; every one is still found, and removing the fifth clears
 * the bucket's overflow count. */
static void overflow_checks(struct dp_env *env, struct tap *tap)
{
	char macs[5][18];
	__u32 bucket = 0, n = 0, ovf = 1;
	struct check c = { 0 };

	for (unsigned int v = 0; v < 65536 && n < 5; v++) {
		struct rn_pod_key k = { .mac = { 2, 0x42, 0, 0, (__u8)(v >> 8), (__u8)v } };
		__u32 b = rn_pod_index_bucket(rn_pod_key_bits(&k));

		if (n && b != bucket)
			continue;
		bucket = b;
		rn_mac_format(k.mac, macs[n++]);
	}
	CHECK_EQ(&c, "MACs found in one bucket", n, 5);
	for (__u32 i = 0; i < n && !c.failed; i++) {
		const char *const ips[] = { "10.1.0.1", NULL };

		CHECK_EQ(&c, "publish", dp_env_pod(env, i, macs[i], ips, -1), 0);
	}
	bpf_map_lookup_elem(env->m.pod_ovf, &bucket, &ovf);
	CHECK_EQ(&c, "overflow count of the full bucket", ovf, 1);
	for (__u32 i = 0; i < n && !c.failed; i++) {
		uint8_t frame[256], mac[6];
		struct frame_layout lo;
		struct frame_spec f = { .dst_mac = mac, .src_mac = fx_peer_mac, .family = 4,
					.saddr = "10.0.0.100", .daddr = "10.1.0.1", .l4 = FR_ROCE,
					.payload = 16 };
		struct dp_snapshot a, b;
		__u32 len, ret;

		rn_mac_parse(macs[i], mac);
		len = (__u32)frame_build(&f, frame, sizeof(frame), &lo);
		dp_snapshot(env, &b);
		CHECK_EQ(&c, "test run", dp_run_xdp(env, frame, &len, &ret), 0);
		dp_snapshot(env, &a);
		CHECK_EQ(&c, i == 4 ? "pod in the overflow hash counted" : "pod in a bucket way counted",
			 a.pod[i].traffic[RN_DIR_RX][RN_CLASS_ROCE].packets -
			 b.pod[i].traffic[RN_DIR_RX][RN_CLASS_ROCE].packets, 1);
	}
	rn_registry_remove_slot(&env->m, 4);
	ovf = 1;
	bpf_map_lookup_elem(env->m.pod_ovf, &bucket, &ovf);
	CHECK_EQ(&c, "overflow count after removing the overflowed pod", ovf, 0);
	for (__u32 i = 0; i < 4; i++)
		rn_registry_remove_slot(&env->m, i);
	tap_report(tap, "index bucket overflow: found through the hash, then cleaned up", &c);
}

int main(void)
{
	struct tap tap = { 0 };
	struct xdp_rx *skel;
	struct dp_env env;

	skel = xdp_rx__open();
	if (!skel || dp_env_open(&env) || dp_env_share(&env, skel->obj) ||
	    xdp_rx__load(skel) || fx_pods(&env)) {
		printf("not ok 1 - load xdp_rx with fixture maps and pods\n1..1\n");
		return 1;
	}
	env.prog_fd = bpf_program__fd(skel->progs.rn_xdp_rx);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		fx_run(&env, &fixtures[i], RN_DIR_RX, 1, &tap);
	overflow_checks(&env, &tap);
	xdp_rx__destroy(skel);
	dp_env_close(&env);
	return tap_finish(&tap);
}
