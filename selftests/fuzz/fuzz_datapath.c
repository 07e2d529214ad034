// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Fuzzes the data path's packet parser where it runs: the real XDP and tc
 * programs in the kernel, through BPF_PROG_TEST_RUN, on arbitrary frames.
 * Invariants checked on every input:
 *  - XDP always passes and never changes a byte;
 *  - tc egress passes (or drops only a registered pod's frame under
 *    enforce) and changes at most the IPv4 TOS + header checksum or the IPv6
 *    traffic class, only of a UDP 4791 packet, leaving a valid checksum;
 *  - every frame is accounted exactly once: one class counter or one
 *    malformed reason moves.
 * Input: byte 0 picks the policy and GSO segments, the rest is the frame. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "dp_env.h"
#include "fixture.h"
#include "frame.h"
#include "tc_egress.skel.h"
#include "xdp_rx.skel.h"

static struct dp_env env;
static struct xdp_rx *xdp;
static struct tc_egress *tc;

static void setup(void)
{
	xdp = xdp_rx__open();
	tc = tc_egress__open();
	if (!xdp || !tc || dp_env_open(&env) || dp_env_share(&env, xdp->obj) ||
	    dp_env_share(&env, tc->obj) || xdp_rx__load(xdp) || tc_egress__load(tc) ||
	    fx_pods(&env)) {
		fprintf(stderr, "fuzz_datapath: cannot load the data-path programs (root?)\n");
		abort();
	}
}

static __u64 accounted(const struct dp_snapshot *s)
{
	__u64 n = 0;

	for (int p = 0; p < 8; p++)
		for (int d = 0; d < RN_DIR_MAX; d++)
			for (int c = 0; c < RN_CLASS_MAX; c++)
				n += s->pod[p].traffic[d][c].packets;
	for (int d = 0; d < RN_DIR_MAX; d++)
		for (int c = 0; c < RN_CLASS_MAX; c++)
			n += s->master.unknown[d][c].packets;
	for (int r = 0; r < RN_MALFORMED_MAX; r++)
		n += s->master.malformed[r];
	for (int p = 0; p < 8; p++)
		n += s->pod[p].drops[0];
	return n;
}

/* Independent of the BPF parser: where is the IP header, is it UDP 4791? */
static int roce_l3(const uint8_t *f, size_t len, size_t *l3, int *fam)
{
	size_t off = 12;
	uint16_t proto;

	if (len < 14)
		return 0;
	proto = (uint16_t)(f[12] << 8 | f[13]);
	if (proto == 0x8100 || proto == 0x88a8) {
		if (len < 18)
			return 0;
		proto = (uint16_t)(f[16] << 8 | f[17]);
		off = 16;
	}
	*l3 = off + 2;
	if (proto == 0x0800 && len >= *l3 + 20) {
		size_t ihl = (size_t)(f[*l3] & 0xf) * 4;

		*fam = 4;
		return f[*l3 + 9] == 17 && len >= *l3 + ihl + 4 &&
		       (f[*l3 + ihl + 2] << 8 | f[*l3 + ihl + 3]) == 4791;
	}
	if (proto == 0x86dd && len >= *l3 + 40) {
		*fam = 6;
		return 1;	/* extension headers: any UDP 4791 behind them */
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t frame[2048];
	struct dp_snapshot a, b;
	__u32 len, ret;
	size_t l3;
	int fam = 0;

	if (!xdp)
		setup();
	if (size < 1 + 14 || size > 1 + 1500)
		return 0;
	enum rn_policy policy = (enum rn_policy)(data[0] % 3);
	__u32 gso = (data[0] >> 2) & 7;
	len = (__u32)(size - 1);

	dp_env_master(&env, policy, RN_ECN_ECT0, 26, 48, 1500, RN_XDP_NATIVE);

	memcpy(frame, data + 1, len);
	dp_snapshot(&env, &b);
	if (dp_run_xdp(&env, frame, &len, &ret) == 0) {
		dp_snapshot(&env, &a);
		if (ret != DP_XDP_PASS || len != size - 1 || memcmp(frame, data + 1, len))
			abort();	/* XDP must pass every frame untouched */
		if (accounted(&a) - accounted(&b) < 1)
			abort();	/* and account for it */
	}

	len = (__u32)(size - 1);
	memcpy(frame, data + 1, len);
	dp_snapshot(&env, &b);
	if (dp_run_tc(&env, frame, &len, gso, gso ? 1400 : 0, &ret) != 0)
		return 0;	/* the kernel refused the frame (cut IP header) */
	dp_snapshot(&env, &a);
	if (ret != DP_TC_OK && !(ret == DP_TC_SHOT && policy == RN_POLICY_ENFORCE))
		abort();
	if (accounted(&a) - accounted(&b) < 1)
		abort();
	if (memcmp(frame, data + 1, len)) {
		const uint8_t *in = data + 1;

		if (!roce_l3(in, len, &l3, &fam))
			abort();	/* only RoCE is ever rewritten */
		for (size_t i = 0; i < len; i++) {
			int tos_byte = fam == 4 ? (i == l3 + 1 || i == l3 + 10 || i == l3 + 11)
						: (i == l3 || i == l3 + 1);

			if (frame[i] != in[i] && !tos_byte)
				abort();
		}
		if (fam == 6 && ((frame[l3] ^ in[l3]) & 0xf0 || (frame[l3 + 1] ^ in[l3 + 1]) & 0x0f))
			abort();	/* version and flow label untouched */
		if (fam == 4 && frame_ipv4_csum(in + l3, 20) == (in[l3 + 10] << 8 | in[l3 + 11]) &&
		    (in[l3] & 0xf) == 5 &&
		    frame_ipv4_csum(frame + l3, 20) != (frame[l3 + 10] << 8 | frame[l3 + 11]))
			abort();	/* a valid checksum stays valid */
	}
	return 0;
}
