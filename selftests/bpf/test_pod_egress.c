// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The per-pod program (bpf/pod_egress.bpf.c) through BPF_PROG_TEST_RUN: what
 * it refuses and why, its fail-closed paths (malformed headers, a third
 * VLAN tag, more IPv6 extension headers than the parser walks, ND options
 * beyond those walked), what passes (own traffic, ARP probes, DAD), monitor
 * against enforce, and frames of an interface no pod owns. Each fixture
 * checks the verdict, the reason counted and the pod's violation/drop, once
 * through the program as loaded and once with every frame sent through the
 * general parser (rn_general_only); then both take the same mutated frames
 * and must agree on each, so the common-frame shortcut (rn_pod_passes_fast)
 * passes nothing the parser would refuse. The test run's skb is on the
 * current netns's loopback (ifindex 1), which the fixture maps to FX_POD. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fixture.h"
#include "pod_egress.skel.h"

/* the pod's MAC (02:00:00:00:00:0a) with its first four bytes changed */
static const uint8_t fx_far_mac[6] = { 0x06, 0x11, 0x22, 0x33, 0x00, 0x0a };

#define OK DP_TC_OK
#define SHOT DP_TC_SHOT
#define NONE (-1)

struct pfx {
	const char *name;
	struct frame_spec f;
	enum rn_policy policy;	/* 0 here means enforce, unless off */
	int off;
	int third_tag;		/* add an 802.1Q tag before the first one */
	int ext;		/* IPv6 destination-options headers to insert */
	int nd_pad_opts;	/* 8-byte ND options (nonce) before the link-layer one */
	size_t cut;
	int unmapped;		/* the interface is no pod's */
	int mf;			/* IPv4: set more-fragments (a first fragment) */
	int ip_keyed;		/* the pod is IP-keyed (ipvlan) */
	__u32 verdict;
	int reason;		/* enum rn_pod_reason, NONE */
	int malformed;		/* enum rn_malformed when reason is MALFORMED */
};

#define V4(smac, src) { .dst_mac = fx_peer_mac, .src_mac = smac, .family = 4, .saddr = src, \
	.daddr = "10.0.0.100", .l4 = FR_UDP, .payload = 32 }
#define V6(smac, src, l4_) { .dst_mac = fx_peer_mac, .src_mac = smac, .family = 6, \
	.saddr = src, .daddr = "fd00::100", .l4 = l4_, .payload = 32 }
#define ARP(sha, spa, tpa) { .src_mac = fx_pod_mac, .arp_sha = sha, .l4 = FR_ARP, \
	.saddr = spa, .daddr = tpa }
#define NA(target, lla) { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 6, \
	.saddr = "fd00::2", .daddr = "ff02::1", .l4 = FR_ICMP, .payload = 24, \
	.icmp_type = 136, .nd_target = target, .nd_lla = lla }

/* an NS (a question: its target is no claim) from source src */
#define NS_FROM(src) { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 6, \
	.saddr = src, .daddr = "ff02::1:ff00:100", .l4 = FR_ICMP, .payload = 24, \
	.icmp_type = 135, .nd_target = "fd00::100", .nd_lla = fx_pod_mac }

static const struct pfx fixtures[] = {
	{ "own v4 passes", V4(fx_pod_mac, "10.0.0.2"), .verdict = OK, .reason = NONE },
	{ "own v6 passes", V6(fx_pod_mac, "fd00::2", FR_UDP), .verdict = OK, .reason = NONE },
	{ "forged Ethernet source refused", V4(fx_pod2_mac, "10.0.0.2"), .verdict = SHOT,
	  .reason = RN_REASON_SOURCE_MAC },
	{ "the master's MAC as source refused", V4(fx_host_mac, "10.0.0.2"), .verdict = SHOT,
	  .reason = RN_REASON_SOURCE_MAC },
	{ "foreign v4 source refused", V4(fx_pod_mac, "10.0.0.3"), .verdict = SHOT,
	  .reason = RN_REASON_SOURCE_IP },
	{ "foreign v6 source refused", V6(fx_pod_mac, "fd00::99", FR_UDP), .verdict = SHOT,
	  .reason = RN_REASON_SOURCE_IP },
	/* the unowned sources a pod may use, IPv4 and IPv6 (the program checks
	 * each family on its own path) */
	{ "v4 from 0.0.0.0 (DHCP) passes", V4(fx_pod_mac, "0.0.0.0"), .verdict = OK,
	  .reason = NONE },
	{ "forged Ethernet source from 0.0.0.0 refused", V4(fx_pod2_mac, "0.0.0.0"),
	  .verdict = SHOT, .reason = RN_REASON_SOURCE_MAC },
	{ "monitor: foreign source counted, passed", V4(fx_pod_mac, "10.0.0.3"),
	  .policy = RN_POLICY_MONITOR, .verdict = OK, .reason = RN_REASON_SOURCE_IP },
	{ "off: nothing checked", V4(fx_pod2_mac, "10.0.0.3"), .off = 1,
	  .verdict = OK, .reason = NONE },
	{ "interface of no pod: passes, nothing counted", V4(fx_pod2_mac, "10.0.0.3"),
	  .unmapped = 1, .verdict = OK, .reason = NONE },
	{ "gratuitous ARP for another address refused", ARP(NULL, "10.0.0.3", "10.0.0.3"),
	  .verdict = SHOT, .reason = RN_REASON_ARP_CLAIM },
	{ "ARP with another sender MAC refused", ARP(fx_pod2_mac, "10.0.0.2", "10.0.0.100"),
	  .verdict = SHOT, .reason = RN_REASON_ARP_CLAIM },
	{ "ARP probe (RFC 5227) passes", ARP(NULL, "0.0.0.0", "10.0.0.2"), .verdict = OK,
	  .reason = NONE },
	{ "own gratuitous ARP passes", ARP(NULL, "10.0.0.2", "10.0.0.2"), .verdict = OK,
	  .reason = NONE },
	{ "NA for another address refused", NA("fd00::3", fx_pod_mac), .verdict = SHOT,
	  .reason = RN_REASON_ND_CLAIM },
	{ "NA with another target link-layer address refused", NA("fd00::2", fx_pod2_mac),
	  .verdict = SHOT, .reason = RN_REASON_ND_CLAIM },
	{ "own NA passes", NA("fd00::2", fx_pod_mac), .verdict = OK, .reason = NONE },
	/* link-local: fx_pod_mac 02:00:00:00:00:0a is fe80::ff:fe00:a (EUI-64) */
	{ "NA for its own link-local address passes", NA("fe80::ff:fe00:a", fx_pod_mac),
	  .verdict = OK, .reason = NONE },
	{ "NA for a router's link-local address refused", NA("fe80::1", fx_pod_mac),
	  .verdict = SHOT, .reason = RN_REASON_ND_CLAIM },
	{ "NA for its MAC's link-local without EUI-64's ff:fe refused",
	  NA("fe80::12:3400:a", fx_pod_mac), .verdict = SHOT, .reason = RN_REASON_ND_CLAIM },
	{ "NA for a link-local outside fe80::/64 refused", NA("fe80:1::ff:fe00:a", fx_pod_mac),
	  .verdict = SHOT, .reason = RN_REASON_ND_CLAIM },
	/* an ipvlan pod's own is its interface's dev_id form: loopback's dev_id
	 * is 0, so EUI-64 here; a sibling ipvlan (same MAC, dev_id 2) is
	 * fe80::200:0:200:a, not its own */
	{ "ipvlan pod: NA for a sibling's link-local (dev_id 2) refused",
	  NA("fe80::200:0:200:a", fx_pod_mac), .ip_keyed = 1, .verdict = SHOT,
	  .reason = RN_REASON_ND_CLAIM },
	{ "ipvlan pod: NS from a sibling's link-local (dev_id 2) refused",
	  NS_FROM("fe80::200:0:200:a"), .ip_keyed = 1, .verdict = SHOT,
	  .reason = RN_REASON_SOURCE_IP },
	{ "ipvlan pod: NA for its own link-local (its interface's dev_id, 0) passes",
	  NA("fe80::ff:fe00:a", fx_pod_mac), .ip_keyed = 1, .verdict = OK, .reason = NONE },
	{ "NS from its own link-local address passes", NS_FROM("fe80::ff:fe00:a"),
	  .verdict = OK, .reason = NONE },
	{ "NS from a router's link-local address refused", NS_FROM("fe80::1"),
	  .verdict = SHOT, .reason = RN_REASON_SOURCE_IP },
	{ "DAD NS from :: passes", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .family = 6, .saddr = "::", .daddr = "ff02::1:ff00:77", .l4 = FR_ICMP, .payload = 24,
	  .icmp_type = 135, .nd_target = "fd00::77" }, .verdict = OK, .reason = NONE },
	/* fail-closed */
	{ "third VLAN tag refused", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .outer_vlan = 100, .vlan = 5, .l4 = FR_ARP, .saddr = "10.0.0.3", .daddr = "10.0.0.3" },
	  .third_tag = 1, .verdict = SHOT, .reason = RN_REASON_VLAN_DEPTH },
	{ "QinQ own ARP passes", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .outer_vlan = 100, .vlan = 5, .l4 = FR_ARP, .saddr = "10.0.0.2", .daddr = "10.0.0.9" },
	  .verdict = OK, .reason = NONE },
	{ "NA behind three destination options checked", NA("fd00::3", fx_pod_mac), .ext = 3,
	  .verdict = SHOT, .reason = RN_REASON_ND_CLAIM },
	{ "own NA behind three destination options passes", NA("fd00::2", fx_pod_mac),
	  .ext = 3, .verdict = OK, .reason = NONE },
	{ "NA behind four destination options refused", NA("fd00::2", fx_pod_mac), .ext = 4,
	  .verdict = SHOT, .reason = RN_REASON_IPV6_EXT_DEPTH },
	{ "UDP behind four destination options refused", V6(fx_pod_mac, "fd00::2", FR_UDP),
	  .ext = 4, .verdict = SHOT, .reason = RN_REASON_IPV6_EXT_DEPTH },
	{ "NA with its link-layer option after three others refused", NA("fd00::2", fx_pod_mac),
	  .nd_pad_opts = 3, .verdict = SHOT, .reason = RN_REASON_ND_UNFINISHED },
	{ "NA with its link-layer option after two others passes", NA("fd00::2", fx_pod_mac),
	  .nd_pad_opts = 2, .verdict = OK, .reason = NONE },
	{ "tcp data offset below 5 refused (malformed)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100",
	  .l4 = FR_TCP, .payload = 64, .tcp_doff = 3 }, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_L4 },
	{ "udp 4791 without a BTH refused (malformed)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100",
	  .l4 = FR_UDP, .payload = 6, .dport = 4791 }, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_BTH },
	/* the edges of the common-frame shortcut: the parser decides these */
	{ "own v4, tot_len past the frame refused (malformed)", V4(fx_pod_mac, "10.0.0.2"),
	  .cut = 14 + 20 + 8 + 8, .verdict = SHOT, .reason = RN_REASON_MALFORMED,
	  .malformed = RN_MALFORMED_IPV4 },
	{ "own v6, payload length past the frame refused (malformed)",
	  V6(fx_pod_mac, "fd00::2", FR_UDP), .cut = 14 + 40 + 8 + 8, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_IPV6 },
	{ "own v6, tcp data offset below 5 refused (malformed)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 6, .saddr = "fd00::2", .daddr = "fd00::100",
	  .l4 = FR_TCP, .payload = 64, .tcp_doff = 3 }, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_L4 },
	{ "own v6, udp 4791 without a BTH refused (malformed)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 6, .saddr = "fd00::2", .daddr = "fd00::100",
	  .l4 = FR_UDP, .payload = 6, .dport = 4791 }, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_BTH },
	{ "own v4 RoCE passes", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4,
	  .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 64 },
	  .verdict = OK, .reason = NONE },
	{ "own v4 later fragment passes", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_UDP,
	  .payload = 64, .frag_offset = 8 }, .verdict = OK, .reason = NONE },
	{ "foreign v4 later fragment refused", { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac,
	  .family = 4, .saddr = "10.0.0.3", .daddr = "10.0.0.100", .l4 = FR_UDP,
	  .payload = 64, .frag_offset = 8 }, .verdict = SHOT, .reason = RN_REASON_SOURCE_IP },
	{ "own v6 TCP passes", V6(fx_pod_mac, "fd00::2", FR_TCP), .verdict = OK,
	  .reason = NONE },
	{ "a source MAC differing from the pod's in its first bytes refused",
	  V4(fx_far_mac, "10.0.0.2"), .verdict = SHOT, .reason = RN_REASON_SOURCE_MAC },
	{ "own v4 first fragment, tcp data offset below 5 refused (malformed)",
	  { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100", .l4 = FR_TCP, .payload = 64, .tcp_doff = 3 }, .mf = 1,
	  .verdict = SHOT, .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_L4 },
	{ "vlan tag cut short refused (malformed)", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .vlan = 5, .family = 4, .saddr = "10.0.0.2",
	  .daddr = "10.0.0.100", .l4 = FR_UDP, .payload = 64 }, .cut = 16, .verdict = SHOT,
	  .reason = RN_REASON_MALFORMED, .malformed = RN_MALFORMED_VLAN },
};

/* Inserts len bytes at off. */
static size_t splice_in(uint8_t *buf, size_t n, size_t off, const uint8_t *what, size_t len)
{
	memmove(buf + off + len, buf + off, n - off);
	memcpy(buf + off, what, len);
	return n + len;
}

static size_t build(const struct pfx *fx, uint8_t *buf, size_t size)
{
	struct frame_layout lo;
	size_t n = frame_build(&fx->f, buf, size, &lo);

	if (fx->nd_pad_opts) {
		/* nonce options (type 14, 8 bytes) before the link-layer one,
		 * which frame_build puts right after the 24-byte NA */
		size_t at = lo.l3 + 40 + 24;
		uint16_t plen;

		for (int i = 0; i < fx->nd_pad_opts; i++) {
			const uint8_t nonce[8] = { 14, 1, 1, 2, 3, 4, 5, 6 };

			n = splice_in(buf, n, at, nonce, 8);
		}
		plen = (uint16_t)(buf[lo.l3 + 4] << 8 | buf[lo.l3 + 5]) + 8 * fx->nd_pad_opts;
		buf[lo.l3 + 4] = plen >> 8;
		buf[lo.l3 + 5] = plen & 0xff;
	}
	for (int i = 0; i < fx->ext; i++) {
		/* destination options, 8 bytes: next header, length 0, PadN */
		uint8_t dopt[8] = { buf[lo.l3 + 6], 0, 1, 4, 0, 0, 0, 0 };
		uint16_t plen = (uint16_t)(buf[lo.l3 + 4] << 8 | buf[lo.l3 + 5]) + 8;

		n = splice_in(buf, n, lo.l3 + 40, dopt, 8);
		buf[lo.l3 + 6] = 60;
		buf[lo.l3 + 4] = plen >> 8;
		buf[lo.l3 + 5] = plen & 0xff;
	}
	if (fx->mf)
		buf[lo.l3 + 6] |= 0x20;
	if (fx->third_tag) {
		const uint8_t tag[4] = { 0x81, 0x00, 0x00, 0x07 };

		n = splice_in(buf, n, 12, tag, 4);
	}
	return fx->cut ? fx->cut : n;
}

static int map_dev(int dev_fd, const struct dp_env *env, __u64 cookie, int on)
{
	struct rn_pod_dev v = { .netns_cookie = cookie, .ifindex = 1, .slot = FX_POD };
	__u32 at = rn_pod_dev_bucket(cookie, 1) * RN_POD_DEV_WAYS, slot = FX_POD;
	struct rn_pod pod;

	if (!on)
		memset(&v, 0, sizeof(v));
	else if (bpf_map_lookup_elem(env->m.pod_info, &slot, &pod))
		return -1;
	else
		memcpy(&v.key_bits, &pod, sizeof(v.key_bits));
	return bpf_map_update_elem(dev_fd, &at, &v, BPF_ANY);
}

/* Sets or clears the fixture pod's IP-keyed flag. */
static int set_ip_keyed(const struct dp_env *env, int on)
{
	__u32 slot = FX_POD;
	struct rn_pod pod;

	if (bpf_map_lookup_elem(env->m.pod_info, &slot, &pod))
		return -1;
	pod.flags = on ? pod.flags | RN_POD_F_IP_KEYED : pod.flags & ~RN_POD_F_IP_KEYED;
	return bpf_map_update_elem(env->m.pod_info, &slot, &pod, BPF_EXIST);
}

static void run(struct dp_env *env, int dev_fd, int rsn_fd, __u64 cookie, const struct pfx *fx,
		const char *how, struct tap *tap)
{
	char name[256];
	struct rn_pod_reasons r0, r1;
	struct dp_snapshot s0, s1;
	static uint8_t buf[2048];
	struct check c = { 0 };
	__u32 len, verdict = 0;
	int refused = fx->reason != NONE;

	dp_env_master(env, fx->off ? RN_POLICY_OFF : fx->policy ? fx->policy : RN_POLICY_ENFORCE,
		      RN_ECN_ECT0, 26, 48, 1500, RN_XDP_NONE);
	len = (__u32)build(fx, buf, sizeof(buf));
	CHECK_TRUE(&c, "frame built", len > 0);
	CHECK_EQ(&c, "map the interface", map_dev(dev_fd, env, cookie, !fx->unmapped), 0);
	CHECK_EQ(&c, "IP-keyed as the fixture says", set_ip_keyed(env, fx->ip_keyed), 0);
	dp_snapshot(env, &s0);
	rn_maps_percpu_sum(&env->m, rsn_fd, FX_POD, &r0, sizeof(r0));
	CHECK_EQ(&c, "test run", dp_run_tc(env, buf, &len, 0, 0, &verdict), 0);
	dp_snapshot(env, &s1);
	rn_maps_percpu_sum(&env->m, rsn_fd, FX_POD, &r1, sizeof(r1));
	CHECK_EQ(&c, "verdict", verdict, fx->verdict);
	for (int i = 0; i < RN_REASON_MAX; i++)
		CHECK_EQ(&c, "reason counted", r1.denied[i] - r0.denied[i],
			 refused && i == fx->reason);
	for (int i = 0; i < RN_MALFORMED_MAX; i++)
		CHECK_EQ(&c, "malformed reason counted", r1.malformed[i] - r0.malformed[i],
			 fx->malformed && i == fx->malformed);
	CHECK_EQ(&c, "violation", s1.pod[FX_POD].violations[0] - s0.pod[FX_POD].violations[0],
		 refused);
	CHECK_EQ(&c, "drop", s1.pod[FX_POD].drops[0] - s0.pod[FX_POD].drops[0],
		 fx->verdict == SHOT);
	map_dev(dev_fd, env, cookie, 1);
	set_ip_keyed(env, 0);
	snprintf(name, sizeof(name), "%s%s", fx->name, how);
	tap_report(tap, name, &c);
}

/* One frame through the program at prog_fd: its verdict, and the reason
 * (or -1) and malformed reason it counted, as one number to compare
 * (VERDICT_CLEAN_PASS: passed, nothing counted). */
#define VERDICT_OF(verdict, why) ((long)(verdict) * 100000 + (why))
#define VERDICT_CLEAN_PASS VERDICT_OF(OK, -1)

static long verdict_of(struct dp_env *env, int prog_fd, int rsn_fd, const uint8_t *frame,
		       __u32 len)
{
	static uint8_t buf[2048];
	struct rn_pod_reasons r0, r1;
	__u32 verdict = 0;
	long why = -1;

	memcpy(buf, frame, len);
	env->prog_fd = prog_fd;
	rn_maps_percpu_sum(&env->m, rsn_fd, FX_POD, &r0, sizeof(r0));
	if (dp_run_tc(env, buf, &len, 0, 0, &verdict))
		return -2;
	rn_maps_percpu_sum(&env->m, rsn_fd, FX_POD, &r1, sizeof(r1));
	for (int i = 0; i < RN_REASON_MAX; i++)
		if (r1.denied[i] != r0.denied[i])
			why = i;
	for (int i = 0; i < RN_MALFORMED_MAX; i++)
		if (r1.malformed[i] != r0.malformed[i])
			why = why * 100 + i;
	return VERDICT_OF(verdict, why);
}

/* Own frames of every kind the shortcut takes, with bytes of their
 * headers changed at random (source MAC, ethertype, IP header, L4 header,
 * BTH) and some cut short: the loaded program and the general parser alone must
 * give the same verdict and reasons for every one. */
static void differential(struct dp_env *env, int fast_fd, int general_fd, int rsn_fd,
			 struct tap *tap)
{
	static const struct frame_spec seeds[] = {
		{ .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2",
		  .daddr = "10.0.0.100", .l4 = FR_ROCE, .payload = 32 },
		{ .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2",
		  .daddr = "10.0.0.100", .l4 = FR_TCP, .payload = 32 },
		V4(fx_pod_mac, "10.0.0.2"),
		{ .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 6, .saddr = "fd00::2",
		  .daddr = "fd00::100", .l4 = FR_ROCE, .payload = 32 },
		V6(fx_pod_mac, "fd00::2", FR_TCP),
		V6(fx_pod_mac, "fd00::2", FR_UDP),
	};
	static const uint8_t odd[] = { 0x00, 0x01, 0x05, 0x06, 0x11, 0x14, 0x3a, 0x40, 0x45,
				       0x46, 0x60, 0x81, 0x86, 0xdd, 0x08, 0x12, 0xb7, 0xff };
	struct check c = { 0 };
	const int n_seeds = (int)(sizeof(seeds) / sizeof(seeds[0]));
	int n = 20000, passed = 0, passing = 0;
	char diag[160] = "";

	srandom(23);
	dp_env_master(env, RN_POLICY_ENFORCE, RN_ECN_ECT0, 26, 48, 1500, RN_XDP_NONE);
	for (int i = 0; i < n; i++) {
		const struct frame_spec *f = &seeds[i % n_seeds];
		uint8_t frame[512];
		struct frame_layout lo;
		__u32 len = (__u32)frame_build(f, frame, sizeof(frame), &lo);
		long a, b;

		for (int k = 1 + (int)(random() % 3); k > 0; k--) {
			size_t at = 6 + (size_t)random() % (lo.end_l4 + 4 - 6);

			frame[at] = random() % 2 ? odd[random() % sizeof(odd)] : (uint8_t)random();
		}
		/* a length field (IPv4 tot_len at 16, IPv6 payload_len at 18)
		 * set small: under the header, or short of the frame */
		if (random() % 4 == 0) {
			size_t at = 16 + 2 * (size_t)(random() % 2);
			long v = random() % 64;

			frame[at] = 0;
			frame[at + 1] = (uint8_t)v;
		}
		if (random() % 4 == 0)
			len = 14 + (__u32)random() % (len - 13);
		a = verdict_of(env, fast_fd, rsn_fd, frame, len);
		b = verdict_of(env, general_fd, rsn_fd, frame, len);
		if (a == b) {
			passed++;
			passing += a == VERDICT_CLEAN_PASS;
		} else if (!diag[0]) {
			snprintf(diag, sizeof(diag), "frame %d (seed %d, %u bytes): %ld against %ld",
				 i, i % n_seeds, len, a, b);
		}
	}
	CHECK_TRUE(&c, diag, !diag[0]);
	CHECK_EQ(&c, "frames where both agree", passed, n);
	/* the mutations must leave some frames the shortcut passes */
	CHECK_TRUE(&c, "some mutated frames still pass", passing > n / 20);
	tap_report(tap, "shortcut and general parser agree on 20,000 mutated own frames", &c);
}

/* The second load shares every map of the first (the env's among them),
 * except its own .rodata, which carries rn_general_only. */
static int share_pod_maps(struct pod_egress *from, struct bpf_object *to)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, to) {
		struct bpf_map *src = bpf_object__find_map_by_name(from->obj, bpf_map__name(map));

		if (bpf_map__is_internal(map))
			continue;
		bpf_map__set_pin_path(map, NULL);
		if (!src || bpf_map__reuse_fd(map, bpf_map__fd(src)))
			return -1;
	}
	return 0;
}

int main(void)
{
	struct tap tap = { 0 };
	struct pod_egress *skel, *general;
	int dev_fd, rsn_fd;
	struct dp_env env;
	socklen_t clen = sizeof(__u64);
	__u64 cookie = 0;
	int sock = socket(AF_INET, SOCK_DGRAM, 0);

	if (sock < 0 || getsockopt(sock, SOL_SOCKET, 71 /* SO_NETNS_COOKIE */, &cookie, &clen)) {
		printf("1..0 # SKIP no SO_NETNS_COOKIE\n");
		return 0;
	}
	close(sock);
	skel = pod_egress__open();
	if (!skel || dp_env_open(&env) || dp_env_share(&env, skel->obj)) {
		printf("not ok 1 - open pod_egress with fixture maps\n1..1\n");
		return 1;
	}
	if (pod_egress__load(skel)) {
		printf("1..0 # SKIP kernel refuses rn_pod_egress (bpf_cast_to_kern_ctx and "
		       "kernel BTF: Linux 6.3)\n");
		return 0;
	}
	if (fx_pods(&env)) {
		printf("not ok 1 - fixture pods\n1..1\n");
		return 1;
	}
	general = pod_egress__open();
	if (general)
		general->rodata->rn_general_only = 1;
	if (!general || share_pod_maps(skel, general->obj) || pod_egress__load(general)) {
		printf("not ok 1 - load rn_pod_egress with the general parser only\n1..1\n");
		return 1;
	}
	dev_fd = bpf_map__fd(skel->maps.rn_pod_dev_v1);
	rsn_fd = bpf_map__fd(skel->maps.rn_pod_rsn_v1);
	env.prog_fd = bpf_program__fd(skel->progs.rn_pod_egress);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		run(&env, dev_fd, rsn_fd, cookie, &fixtures[i], "", &tap);
	env.prog_fd = bpf_program__fd(general->progs.rn_pod_egress);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		run(&env, dev_fd, rsn_fd, cookie, &fixtures[i], " (general parser)", &tap);
	differential(&env, bpf_program__fd(skel->progs.rn_pod_egress),
		     bpf_program__fd(general->progs.rn_pod_egress), rsn_fd, &tap);
	pod_egress__destroy(general);
	pod_egress__destroy(skel);
	dp_env_close(&env);
	return tap_finish(&tap);
}
