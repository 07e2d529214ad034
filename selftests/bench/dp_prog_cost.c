// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Cost per packet of the data-path programs over an empty program of the
 * same type, via BPF_PROG_TEST_RUN with repeat, on RoCEv2 frames of a
 * registered pod. Prints one JSON object.
 *
 *   dp_prog_cost [--repeat N] [--rounds N]
 *
 * Each round runs every program once with `repeat` repetitions (the kernel
 * reports the mean ns per repetition); rounds interleave programs so load
 * from the rest of the machine hits them alike; medians over rounds. In tc
 * the skb is reused across repetitions, so the TOS rewrite happens on the
 * first one and the rest take the already-marked compare-and-skip path. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "dp_env.h"
#include "fixture.h"
#include "tc_egress.skel.h"
#include "xdp_rx.skel.h"

static int empty_prog(enum bpf_prog_type type, int retval)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = retval },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(type, "rn_empty", "GPL", insns, 2, NULL);
}

static double run(int fd, const void *frame, __u32 len, int repeat)
{
	static unsigned char out[4096];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = repeat);

	if (bpf_prog_test_run_opts(fd, &opts))
		return -1;
	return opts.duration;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int repeat = 1000000, rounds = 15;
	struct dp_env env;
	struct xdp_rx *xdp;
	struct tc_egress *tc;
	uint8_t rx_frame[512], tx_frame[512];
	struct frame_layout lo;
	struct frame_spec rx = { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac, .family = 4,
				 .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
				 .payload = 256 };
	struct frame_spec tx = { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4,
				 .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE,
				 .payload = 256 };
	__u32 rx_len, tx_len;
	int xdp_empty, tc_empty;
	double *v[4];

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
	}
	xdp = xdp_rx__open();
	tc = tc_egress__open();
	if (!xdp || !tc || dp_env_open(&env) || dp_env_share(&env, xdp->obj) ||
	    dp_env_share(&env, tc->obj) || xdp_rx__load(xdp) || tc_egress__load(tc) ||
	    fx_pods(&env)) {
		fprintf(stderr, "dp_prog_cost: cannot load the data-path programs\n");
		return 1;
	}
	/* the costliest configuration: policy enforced, ECN marking on */
	dp_env_master(&env, RN_POLICY_ENFORCE, RN_ECN_ECT0, 26, 48, 1500, RN_XDP_NATIVE);
	xdp_empty = empty_prog(BPF_PROG_TYPE_XDP, XDP_PASS);
	tc_empty = empty_prog(BPF_PROG_TYPE_SCHED_CLS, 0);
	if (xdp_empty < 0 || tc_empty < 0) {
		fprintf(stderr, "dp_prog_cost: cannot load empty programs: %s\n", strerror(errno));
		return 1;
	}
	rx_len = (__u32)frame_build(&rx, rx_frame, sizeof(rx_frame), &lo);
	tx_len = (__u32)frame_build(&tx, tx_frame, sizeof(tx_frame), &lo);

	for (int k = 0; k < 4; k++)
		v[k] = calloc((size_t)rounds, sizeof(double));
	for (int r = 0; r < rounds; r++) {
		v[0][r] = run(xdp_empty, rx_frame, rx_len, repeat);
		v[1][r] = run(bpf_program__fd(xdp->progs.rn_xdp_rx), rx_frame, rx_len, repeat);
		v[2][r] = run(tc_empty, tx_frame, tx_len, repeat);
		v[3][r] = run(bpf_program__fd(tc->progs.rn_tc_egress), tx_frame, tx_len, repeat);
		for (int k = 0; k < 4; k++)
			if (v[k][r] < 0) {
				fprintf(stderr, "dp_prog_cost: test run failed: %s\n", strerror(errno));
				return 1;
			}
	}
	double xe = median(v[0], rounds), xr = median(v[1], rounds);
	double te = median(v[2], rounds), tr = median(v[3], rounds);

	printf("{\"repeat\": %d, \"rounds\": %d, \"frame\": \"RoCEv2 IPv4 %u bytes, registered pod\", "
	       "\"xdp_empty_ns\": %.1f, \"xdp_rx_ns\": %.1f, \"xdp_added_ns\": %.1f, "
	       "\"tc_empty_ns\": %.1f, \"tc_egress_ns\": %.1f, \"tc_added_ns\": %.1f}\n",
	       repeat, rounds, rx_len, xe, xr, xr - xe, te, tr, tr - te);
	xdp_rx__destroy(xdp);
	tc_egress__destroy(tc);
	dp_env_close(&env);
	return 0;
}
