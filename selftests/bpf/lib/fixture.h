/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The fixture table shape shared by the data-path program tests, and the
 * checks every fixture gets: verdict, output bytes, counter deltas. */
#ifndef RDMANET_TEST_FIXTURE_H
#define RDMANET_TEST_FIXTURE_H

#include <rdmanet/traffic.h>

#include "check.h"
#include "dp_env.h"
#include "frame.h"

/* Well-known actors in every fixture. */
#define FX_POD_MAC   "02:00:00:00:00:0a"	/* slot FX_POD, 10.0.0.2 fd00::2 */
#define FX_POD2_MAC  "02:00:00:00:00:0b"	/* slot FX_POD2, 10.0.0.3, DSCP 34 */
#define FX_HOST_MAC  "02:00:00:00:00:01"	/* the master itself: not a pod */
#define FX_PEER_MAC  "02:00:00:00:00:ff"	/* the far end of the wire */
#define FX_POD3_IP   "10.0.0.50"		/* slot FX_POD3, IP-keyed (ipvlan) */
#define FX_POD 5
#define FX_POD2 6
#define FX_POD3 7
#define FX_POD2_DSCP 34

extern const uint8_t fx_pod_mac[6], fx_pod2_mac[6], fx_host_mac[6], fx_peer_mac[6];

enum fx_who { FX_NOBODY = 0, FX_WHO_POD, FX_WHO_POD2, FX_WHO_POD3, FX_WHO_UNKNOWN };
enum fx_ecn { FX_ECN_DEFAULT = 0 /* ect0 */, FX_ECN_OFF, FX_ECN_ECT1 };

struct fx {
	const char *name;
	struct frame_spec f;
	size_t cut;		/* truncate the frame to this length (0: whole) */
	int patch_off;		/* if patch_len: overwrite bytes at l3 + patch_off */
	int patch_len;
	uint8_t patch[4];
	__u32 gso;		/* tc: skb gso_segs (0: not GSO) */
	__u32 mtu;		/* master MTU (0: 1500) */
	enum rn_policy policy;
	enum fx_ecn ecn;
	enum rn_xdp_state xdp;	/* master's XDP state (tc ingress cares) */
	/* expectations */
	int verdict;
	int tos;		/* TOS/traffic class out; -1: frame unchanged */
	enum fx_who who;	/* whose counter moves (tx for tc, rx for XDP) */
	int rx;			/* tc ingress without XDP: `who` counted as rx */
	enum fx_who also_rx;	/* tc ingress: the receiving pod counted too */
	int cls;
	__u32 segs;		/* packets counted; 0: 1 */
	int marked, violation, drop, ce;
	int malformed;		/* enum rn_malformed, 0: well-formed */
};

/* Builds the frame, runs it, checks everything; dir is the counter
 * direction the program fills for fx->who. */
void fx_run(struct dp_env *env, const struct fx *fx, enum rn_dir dir, int is_xdp,
	    struct tap *tap);
/* Registers the three fixture pods on master slot 0. */
int fx_pods(struct dp_env *env);

#endif
