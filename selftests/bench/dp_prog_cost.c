// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Cost per packet of the data-path programs over an empty program of the
 * same type, via BPF_PROG_TEST_RUN with repeat, on RoCEv2 frames of a
 * registered pod. Prints one JSON object.
 *
 *   dp_prog_cost [--repeat N] [--rounds N] [--calls N]
 *
 * Each round runs every program once with `repeat` repetitions (the kernel
 * reports the mean ns per repetition); rounds interleave programs so load
 * from the rest of the machine hits them alike; medians over rounds, with
 * the spread (min, max) of the added cost across rounds.
 *
 * In tc the kernel reuses one skb across repetitions, so with `repeat` the
 * TOS rewrite happens on the first one and the rest take the
 * already-marked path ("tc_reused"). Marking itself is measured with
 * `calls` test runs of one repetition each: every call builds a fresh skb
 * from the Not-ECT frame, so every run marks ("tc_fresh"), and again with
 * the skb flagged GSO (10 segments of 1400: "tc_fresh_gso"). The empty
 * program is measured the same way in the same round. BPF_PROG_TEST_RUN
 * builds only linear skbs, so a non-linear skb cannot be measured here.
 *
 * The per-pod program (pod_egress.bpf.c) runs on the pod's own interface,
 * before the master's egress: "pod_added" is its cost over the empty tc
 * program, on the same frame from the pod, in enforce (null where the
 * kernel refuses it). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "dp_env.h"
#include "fixture.h"
#include "pod_egress.skel.h"
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

/* Mean ns of `calls` single runs, each on a fresh skb built from frame;
 * gso_segs != 0 flags the skb GSO. *tos_out: the TOS byte of the last
 * output (at IPv4 offset 15), to check that the runs did mark. */
static double run_fresh(int fd, const void *frame, __u32 len, int calls, __u32 gso_segs,
			int *tos_out)
{
	static unsigned char out[4096];
	struct __sk_buff ctx = { .gso_segs = gso_segs, .gso_size = gso_segs ? 1400 : 0 };
	double sum = 0;

	for (int i = 0; i < calls; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = len,
			    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

		if (gso_segs) {
			opts.ctx_in = &ctx;
			opts.ctx_size_in = sizeof(ctx);
		}
		if (bpf_prog_test_run_opts(fd, &opts))
			return -1;
		sum += opts.duration;
	}
	*tos_out = out[15];
	return sum / calls;
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

struct spread {
	double median, min, max;
};

static struct spread spread_of(double *v, int n)
{
	struct spread s;

	qsort(v, (size_t)n, sizeof(*v), cmp);
	s.median = median(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	return s;
}

enum { XE, XR, TE, TR, FE, FR, GE, GR, PR, NV };

/* The per-pod program, its test runs' interface (loopback of this netns)
 * mapped to FX_POD; -1 where the kernel refuses it. */
static int pod_prog(struct pod_egress **skel, struct dp_env *env)
{
	struct rn_pod_dev d = { .ifindex = 1, .slot = FX_POD };
	socklen_t clen = sizeof(d.netns_cookie);
	int sock = socket(AF_INET, SOCK_DGRAM, 0), ok;
	__u32 slot = FX_POD, at;
	struct rn_pod pod;

	ok = sock >= 0 && !getsockopt(sock, SOL_SOCKET, 71 /* SO_NETNS_COOKIE */,
				      &d.netns_cookie, &clen);
	if (sock >= 0)
		close(sock);
	*skel = ok ? pod_egress__open() : NULL;
	if (!*skel || dp_env_share(env, (*skel)->obj) || pod_egress__load(*skel) ||
	    bpf_map_lookup_elem(env->m.pod_info, &slot, &pod))
		return -1;
	memcpy(&d.key_bits, &pod, sizeof(d.key_bits));
	at = rn_pod_dev_bucket(d.netns_cookie, 1) * RN_POD_DEV_WAYS;
	if (bpf_map_update_elem(bpf_map__fd((*skel)->maps.rn_pod_dev_v1), &at, &d, BPF_ANY))
		return -1;
	return bpf_program__fd((*skel)->progs.rn_pod_egress);
}

int main(int argc, char **argv)
{
	int repeat = 1000000, rounds = 15, calls = 20000, tos_fresh = 0, tos_gso = 0, tos_empty;
	struct dp_env env;
	struct xdp_rx *xdp;
	struct tc_egress *tc;
	struct pod_egress *pod = NULL;
	uint8_t rx_frame[512], tx_frame[512];
	struct frame_layout lo;
	struct frame_spec rx = { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac, .family = 4,
				 .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
				 .payload = 256 };
	struct frame_spec tx = { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4,
				 .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE,
				 .payload = 256 };
	__u32 rx_len, tx_len;
	int xdp_empty, tc_empty, xfd, tfd, pfd;
	double *v[NV], *xa, *ta, *fa, *ga, *pa;
	char pod_json[160] = "\"pod_added_ns\": null";

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--repeat"))
			repeat = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rounds"))
			rounds = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--calls"))
			calls = atoi(argv[i + 1]);
	}
	if (repeat < 1 || rounds < 1 || calls < 1) {
		fprintf(stderr, "dp_prog_cost: --repeat, --rounds and --calls must be positive\n");
		return 1;
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
	tc_empty = empty_prog(BPF_PROG_TYPE_SCHED_CLS, -1);
	if (xdp_empty < 0 || tc_empty < 0) {
		fprintf(stderr, "dp_prog_cost: cannot load empty programs: %s\n", strerror(errno));
		return 1;
	}
	pfd = pod_prog(&pod, &env);
	xfd = bpf_program__fd(xdp->progs.rn_xdp_rx);
	tfd = bpf_program__fd(tc->progs.rn_tc_egress);
	rx_len = (__u32)frame_build(&rx, rx_frame, sizeof(rx_frame), &lo);
	tx_len = (__u32)frame_build(&tx, tx_frame, sizeof(tx_frame), &lo);

	for (int k = 0; k < NV; k++)
		v[k] = calloc((size_t)rounds, sizeof(double));
	xa = calloc((size_t)rounds, sizeof(double));
	ta = calloc((size_t)rounds, sizeof(double));
	fa = calloc((size_t)rounds, sizeof(double));
	ga = calloc((size_t)rounds, sizeof(double));
	pa = calloc((size_t)rounds, sizeof(double));
	for (int r = 0; r < rounds; r++) {
		v[XE][r] = run(xdp_empty, rx_frame, rx_len, repeat);
		v[XR][r] = run(xfd, rx_frame, rx_len, repeat);
		v[TE][r] = run(tc_empty, tx_frame, tx_len, repeat);
		v[TR][r] = run(tfd, tx_frame, tx_len, repeat);
		v[FE][r] = run_fresh(tc_empty, tx_frame, tx_len, calls, 0, &tos_empty);
		v[FR][r] = run_fresh(tfd, tx_frame, tx_len, calls, 0, &tos_fresh);
		v[GE][r] = run_fresh(tc_empty, tx_frame, tx_len, calls, 10, &tos_empty);
		v[GR][r] = run_fresh(tfd, tx_frame, tx_len, calls, 10, &tos_gso);
		v[PR][r] = pfd < 0 ? 0 : run(pfd, tx_frame, tx_len, repeat);
		for (int k = 0; k < NV; k++)
			if (v[k][r] < 0) {
				fprintf(stderr, "dp_prog_cost: test run failed: %s\n", strerror(errno));
				return 1;
			}
		xa[r] = v[XR][r] - v[XE][r];
		ta[r] = v[TR][r] - v[TE][r];
		fa[r] = v[FR][r] - v[FE][r];
		ga[r] = v[GR][r] - v[GE][r];
		pa[r] = v[PR][r] - v[TE][r];
	}
	/* every fresh run must have marked: DSCP 26, ECT(0) */
	if (tos_fresh != (26 << 2 | 2) || tos_gso != (26 << 2 | 2)) {
		fprintf(stderr, "dp_prog_cost: fresh runs did not mark (tos 0x%x, gso 0x%x)\n",
			tos_fresh, tos_gso);
		return 1;
	}
	struct spread x = spread_of(xa, rounds), t = spread_of(ta, rounds);
	struct spread f = spread_of(fa, rounds), g = spread_of(ga, rounds);
	struct spread pd = spread_of(pa, rounds);

	if (pfd >= 0)
		snprintf(pod_json, sizeof(pod_json), "\"pod_egress_ns\": %.1f, \"pod_added_ns\": "
			 "%.1f, \"pod_added_min_ns\": %.1f, \"pod_added_max_ns\": %.1f",
			 median(v[PR], rounds), pd.median, pd.min, pd.max);

	printf("{\"repeat\": %d, \"rounds\": %d, \"calls\": %d, "
	       "\"frame\": \"RoCEv2 IPv4 %u bytes, Not-ECT, registered pod, enforce\", "
	       "\"xdp_empty_ns\": %.1f, \"xdp_rx_ns\": %.1f, \"xdp_added_ns\": %.1f, "
	       "\"xdp_added_min_ns\": %.1f, \"xdp_added_max_ns\": %.1f, "
	       "\"tc_empty_ns\": %.1f, \"tc_egress_ns\": %.1f, \"tc_added_ns\": %.1f, "
	       "\"tc_added_min_ns\": %.1f, \"tc_added_max_ns\": %.1f, "
	       "\"tc_fresh_empty_ns\": %.1f, \"tc_fresh_ns\": %.1f, \"tc_fresh_added_ns\": %.1f, "
	       "\"tc_fresh_added_min_ns\": %.1f, \"tc_fresh_added_max_ns\": %.1f, "
	       "\"tc_fresh_gso_empty_ns\": %.1f, \"tc_fresh_gso_ns\": %.1f, "
	       "\"tc_fresh_gso_added_ns\": %.1f, \"tc_fresh_gso_added_min_ns\": %.1f, "
	       "\"tc_fresh_gso_added_max_ns\": %.1f, %s}\n",
	       repeat, rounds, calls, rx_len,
	       median(v[XE], rounds), median(v[XR], rounds), x.median, x.min, x.max,
	       median(v[TE], rounds), median(v[TR], rounds), t.median, t.min, t.max,
	       median(v[FE], rounds), median(v[FR], rounds), f.median, f.min, f.max,
	       median(v[GE], rounds), median(v[GR], rounds), g.median, g.min, g.max, pod_json);
	pod_egress__destroy(pod);
	xdp_rx__destroy(xdp);
	tc_egress__destroy(tc);
	dp_env_close(&env);
	return 0;
}
