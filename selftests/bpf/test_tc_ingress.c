// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tc ingress fixtures: macvlan bridge-mode pod-to-pod frames get the
 * sender's tx treatment (policy, marking, counting) and the receiver's rx
 * count unless generic XDP already counted it; everything else is left
 * alone. */
#include <stdio.h>

#include "fixture.h"
#include "tc_ingress.skel.h"

#define OK DP_TC_OK
#define SHOT DP_TC_SHOT
#define TOS(dscp, ecn) ((dscp) << 2 | (ecn))

#define A_TO_B(l4_, tos_) { .dst_mac = fx_pod2_mac, .src_mac = fx_pod_mac, .family = 4, \
	.tos = tos_, .saddr = "10.0.0.2", .daddr = "10.0.0.3", .l4 = l4_, .payload = 64 }

static const struct fx fixtures[] = {
	{ "pod-to-pod roce, native xdp: tx for the sender, rx for the receiver",
	  A_TO_B(FR_ROCE, 0), .xdp = RN_XDP_NATIVE, .verdict = OK, .tos = TOS(26, 2),
	  .who = FX_WHO_POD, .also_rx = FX_WHO_POD2, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "pod-to-pod roce, skb-mode xdp counted rx already: tx only",
	  A_TO_B(FR_ROCE, 0), .xdp = RN_XDP_SKB, .verdict = OK, .tos = TOS(26, 2),
	  .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .marked = 1 },
	{ "pod-to-pod tcp gso, no xdp", A_TO_B(FR_TCP, 0), .gso = 3, .xdp = RN_XDP_NONE,
	  .verdict = OK, .tos = -1, .who = FX_WHO_POD, .also_rx = FX_WHO_POD2,
	  .cls = RN_CLASS_TCP, .segs = 3 },
	{ "pod-to-pod to an unregistered mac: tx only", { .dst_mac = fx_peer_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.77",
	  .l4 = FR_UDP, .payload = 64 }, .xdp = RN_XDP_NATIVE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD, .cls = RN_CLASS_UDP },
	{ "pod-to-pod spoofed source dropped in enforce", { .dst_mac = fx_pod2_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.9", .daddr = "10.0.0.3",
	  .l4 = FR_ROCE, .payload = 64 }, .policy = RN_POLICY_ENFORCE, .xdp = RN_XDP_NATIVE,
	  .verdict = SHOT, .tos = -1, .who = FX_WHO_POD, .cls = RN_CLASS_ROCE, .violation = 1,
	  .drop = 1 },
	{ "pod-to-pod cnp ce to the receiver counted as ce", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_pod2_mac, .family = 4, .tos = 3, .saddr = "10.0.0.3",
	  .daddr = "10.0.0.2", .l4 = FR_CNP, .payload = 64 }, .xdp = RN_XDP_NATIVE,
	  .verdict = OK, .tos = TOS(48, 3), .who = FX_WHO_POD2, .also_rx = FX_WHO_POD,
	  .cls = RN_CLASS_CNP, .marked = 1 },
	{ "from the wire to a pod: left to xdp", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_peer_mac, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2",
	  .l4 = FR_ROCE, .payload = 64 }, .xdp = RN_XDP_NATIVE, .verdict = OK, .tos = -1 },
	{ "from the host to a pod: left alone", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_host_mac, .family = 4, .saddr = "10.0.0.1", .daddr = "10.0.0.2",
	  .l4 = FR_TCP, .payload = 64 }, .xdp = RN_XDP_NATIVE, .verdict = OK, .tos = -1 },
	/* no XDP on the master (veth under auto, or xdp_mode off): tc ingress
	 * does the rx accounting, with segments from the skb */
	{ "no xdp: from the wire to a pod counted rx", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_peer_mac, .family = 4, .tos = 3, .saddr = "10.0.0.100",
	  .daddr = "10.0.0.2", .l4 = FR_ROCE, .payload = 64 }, .xdp = RN_XDP_NONE,
	  .verdict = OK, .tos = -1, .who = FX_WHO_POD, .rx = 1, .cls = RN_CLASS_ROCE, .ce = 1 },
	{ "no xdp: gro tcp to a pod counted as its segments", { .dst_mac = fx_pod_mac,
	  .src_mac = fx_peer_mac, .family = 6, .saddr = "fd00::100", .daddr = "fd00::2",
	  .l4 = FR_TCP, .payload = 64 }, .gso = 7, .xdp = RN_XDP_NONE, .verdict = OK,
	  .tos = -1, .who = FX_WHO_POD, .rx = 1, .cls = RN_CLASS_TCP, .segs = 7 },
	{ "no xdp: to an ipvlan pod by destination ip", { .dst_mac = fx_host_mac,
	  .src_mac = fx_peer_mac, .family = 4, .saddr = "10.0.0.100", .daddr = FX_POD3_IP,
	  .l4 = FR_UDP, .payload = 64 }, .xdp = RN_XDP_NONE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_POD3, .rx = 1, .cls = RN_CLASS_UDP },
	{ "no xdp: to the host counted unknown", { .dst_mac = fx_host_mac,
	  .src_mac = fx_peer_mac, .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.1",
	  .l4 = FR_TCP, .payload = 64 }, .xdp = RN_XDP_NONE, .verdict = OK, .tos = -1,
	  .who = FX_WHO_UNKNOWN, .rx = 1, .cls = RN_CLASS_TCP },
	{ "no xdp: malformed counted", { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac,
	  .family = 4, .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_UDP, .payload = 6,
	  .dport = 4791 }, .xdp = RN_XDP_NONE, .verdict = OK, .tos = -1,
	  .malformed = RN_MALFORMED_BTH },
	{ "malformed pod-to-pod: passed, not counted here", { .dst_mac = fx_pod2_mac,
	  .src_mac = fx_pod_mac, .family = 4, .saddr = "10.0.0.2", .daddr = "10.0.0.3",
	  .l4 = FR_UDP, .payload = 6, .dport = 4791 }, .xdp = RN_XDP_NATIVE, .verdict = OK,
	  .tos = -1 },
};

int main(void)
{
	struct tap tap = { 0 };
	struct tc_ingress *skel;
	struct dp_env env;

	skel = tc_ingress__open();
	if (!skel || dp_env_open(&env) || dp_env_share(&env, skel->obj) ||
	    tc_ingress__load(skel) || fx_pods(&env)) {
		printf("not ok 1 - load tc_ingress with fixture maps and pods\n1..1\n");
		return 1;
	}
	env.prog_fd = bpf_program__fd(skel->progs.rn_tc_ingress);
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		fx_run(&env, &fixtures[i], RN_DIR_TX, 0, &tap);
	tc_ingress__destroy(skel);
	dp_env_close(&env);
	return tap_finish(&tap);
}
