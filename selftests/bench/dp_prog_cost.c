// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Cost per packet of the data-path programs over an empty program of the
 * same type, via BPF_PROG_TEST_RUN, on RoCEv2 frames of a registered pod.
 * Prints one JSON object.
 *
 *   dp_prog_cost [--repeat N] [--rounds N] [--calls N]
 *
 * Every measurement is paired: the empty program, the program, the empty
 * program again, back to back (a few ms in all), and the program's added
 * cost is its time less the mean of the two empty runs beside it. This
 * machine's speed drifts by half within seconds (other guests on the
 * host); a baseline taken a second away, as the rounds of one run of every
 * program in turn had it, carried that drift into each difference
 * (pod_added 9 to 39 ns over one run's rounds). The medians over rounds
 * are reported, with the 10th and 90th percentiles of the added cost.
 *
 * With `repeat` the kernel runs the program `repeat` times on one skb and
 * reports the mean ns per repetition. In tc it reuses that skb, so the TOS
 * rewrite happens on the first one and the rest take the already-marked
 * path ("tc_added"). Marking itself is measured with `calls` test runs of
 * one repetition each: every call builds a fresh skb from the Not-ECT
 * frame, so every run marks ("tc_fresh"), and again with the skb flagged
 * GSO (10 segments of 1400: "tc_fresh_gso"). BPF_PROG_TEST_RUN builds only
 * linear skbs, so a non-linear skb cannot be measured here.
 *
 * The per-pod program (pod_egress.bpf.c) runs on the pod's own interface,
 * before the master's egress: "pod_added" is its cost over the empty tc
 * program, on the same frame from the pod, in enforce (null where the
 * kernel refuses it); "pod_general" is the same frame through the general
 * parser, as a frame the common-frame shortcut does not take (a tagged
 * one, ARP, NDP) goes. "pod_aa" is the same program loaded a second time,
 * paired with the first: what two copies of one program differ by here
 * (where the JIT placed each, the machine), the noise floor of a
 * comparison between two builds. */
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

/* The per-pod program, its test runs' interface (loopback of this netns)
 * mapped to FX_POD; -1 where the kernel refuses it. general_only: every
 * frame through the general parser (rn_general_only), without the
 * common-frame shortcut. */
static int pod_prog(struct pod_egress **skel, struct dp_env *env, int general_only)
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
	if (*skel)
		(*skel)->rodata->rn_general_only = general_only;
	if (!*skel || dp_env_share(env, (*skel)->obj) || pod_egress__load(*skel) ||
	    bpf_map_lookup_elem(env->m.pod_info, &slot, &pod))
		return -1;
	memcpy(&d.key_bits, &pod, sizeof(d.key_bits));
	at = rn_pod_dev_bucket(d.netns_cookie, 1) * RN_POD_DEV_WAYS;
	if (bpf_map_update_elem(bpf_map__fd((*skel)->maps.rn_pod_dev_v1), &at, &d, BPF_ANY))
		return -1;
	return bpf_program__fd((*skel)->progs.rn_pod_egress);
}

/* One program's paired measurements: prog between two runs of base. */
struct measure {
	const char *name;	/* JSON key prefix */
	int base, prog;
	int fresh;		/* 0: one run of `repeat`; else `calls` fresh-skb runs */
	__u32 gso_segs;
	const void *frame;
	__u32 len;
	double *empty, *total, *added;
	int tos;		/* the program's last fresh output's TOS byte */
};

static double time_of(const struct measure *m, int fd, int repeat, int calls, int *tos)
{
	return m->fresh ? run_fresh(fd, m->frame, m->len, calls, m->gso_segs, tos)
			: run(fd, m->frame, m->len, repeat);
}

static int measure_round(struct measure *m, int r, int repeat, int calls)
{
	int tos_empty;
	double e1 = time_of(m, m->base, repeat, calls, &tos_empty);
	double t = time_of(m, m->prog, repeat, calls, &m->tos);
	double e2 = time_of(m, m->base, repeat, calls, &tos_empty);

	if (e1 < 0 || t < 0 || e2 < 0)
		return -1;
	m->empty[r] = (e1 + e2) / 2;
	m->total[r] = t;
	m->added[r] = t - m->empty[r];
	return 0;
}

static double percentile(const double *sorted, int n, int pct)
{
	return sorted[(n - 1) * pct / 100];
}

/* base_key: .., total_key: .., "<name>_added_ns": .. (medians),
 * "<name>_added_p10_ns", "<name>_added_p90_ns" */
static void print_measure(struct measure *m, int rounds, const char *base_key,
			  const char *total_key)
{
	double e = median(m->empty, rounds), t = median(m->total, rounds);
	double a = median(m->added, rounds);	/* sorts added */

	printf(", \"%s\": %.1f, \"%s\": %.1f, \"%s_added_ns\": %.1f, "
	       "\"%s_added_p10_ns\": %.1f, \"%s_added_p90_ns\": %.1f", base_key, e, total_key, t,
	       m->name, a, m->name, percentile(m->added, rounds, 10), m->name,
	       percentile(m->added, rounds, 90));
}

int main(int argc, char **argv)
{
	int repeat = 100000, rounds = 101, calls = 2000;
	struct dp_env env;
	struct xdp_rx *xdp;
	struct tc_egress *tc;
	struct pod_egress *pod = NULL, *pod2 = NULL, *podg = NULL;
	uint8_t rx_frame[512], tx_frame[512];
	struct frame_layout lo;
	struct frame_spec rx = { .dst_mac = fx_pod_mac, .src_mac = fx_peer_mac, .family = 4,
				 .saddr = "10.0.0.100", .daddr = "10.0.0.2", .l4 = FR_ROCE,
				 .payload = 256 };
	struct frame_spec tx = { .dst_mac = fx_peer_mac, .src_mac = fx_pod_mac, .family = 4,
				 .saddr = "10.0.0.2", .daddr = "10.0.0.100", .l4 = FR_ROCE,
				 .payload = 256 };
	__u32 rx_len, tx_len;
	int xdp_empty, tc_empty, pfd, pfd2, pfdg, nm = 0;
	struct measure ms[7];

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
	pfd = pod_prog(&pod, &env, 0);
	pfd2 = pfd < 0 ? -1 : pod_prog(&pod2, &env, 0);
	pfdg = pfd < 0 ? -1 : pod_prog(&podg, &env, 1);
	rx_len = (__u32)frame_build(&rx, rx_frame, sizeof(rx_frame), &lo);
	tx_len = (__u32)frame_build(&tx, tx_frame, sizeof(tx_frame), &lo);

	ms[nm++] = (struct measure){ .name = "xdp", .base = xdp_empty, .frame = rx_frame,
				     .len = rx_len, .prog = bpf_program__fd(xdp->progs.rn_xdp_rx) };
	ms[nm++] = (struct measure){ .name = "tc", .base = tc_empty, .frame = tx_frame,
				     .len = tx_len,
				     .prog = bpf_program__fd(tc->progs.rn_tc_egress) };
	ms[nm++] = ms[1];
	ms[nm - 1].name = "tc_fresh";
	ms[nm - 1].fresh = 1;
	ms[nm++] = ms[2];
	ms[nm - 1].name = "tc_fresh_gso";
	ms[nm - 1].gso_segs = 10;
	if (pfd >= 0 && pfd2 >= 0 && pfdg >= 0) {
		ms[nm++] = (struct measure){ .name = "pod", .base = tc_empty, .prog = pfd,
					     .frame = tx_frame, .len = tx_len };
		ms[nm++] = (struct measure){ .name = "pod_general", .base = tc_empty, .prog = pfdg,
					     .frame = tx_frame, .len = tx_len };
		ms[nm++] = (struct measure){ .name = "pod_aa", .base = pfd, .prog = pfd2,
					     .frame = tx_frame, .len = tx_len };
	}
	for (int k = 0; k < nm; k++) {
		ms[k].empty = calloc((size_t)rounds, sizeof(double));
		ms[k].total = calloc((size_t)rounds, sizeof(double));
		ms[k].added = calloc((size_t)rounds, sizeof(double));
		if (!ms[k].empty || !ms[k].total || !ms[k].added)
			return 1;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nm; k++)
			if (measure_round(&ms[k], r, repeat, calls)) {
				fprintf(stderr, "dp_prog_cost: test run failed: %s\n", strerror(errno));
				return 1;
			}
	/* every fresh run must have marked: DSCP 26, ECT(0) */
	if (ms[2].tos != (26 << 2 | 2) || ms[3].tos != (26 << 2 | 2)) {
		fprintf(stderr, "dp_prog_cost: fresh runs did not mark (tos 0x%x, gso 0x%x)\n",
			ms[2].tos, ms[3].tos);
		return 1;
	}
	printf("{\"repeat\": %d, \"rounds\": %d, \"calls\": %d, "
	       "\"frame\": \"RoCEv2 IPv4 %u bytes, Not-ECT, registered pod, enforce\"",
	       repeat, rounds, calls, rx_len);
	print_measure(&ms[0], rounds, "xdp_empty_ns", "xdp_rx_ns");
	print_measure(&ms[1], rounds, "tc_empty_ns", "tc_egress_ns");
	print_measure(&ms[2], rounds, "tc_fresh_empty_ns", "tc_fresh_ns");
	print_measure(&ms[3], rounds, "tc_fresh_gso_empty_ns", "tc_fresh_gso_ns");
	if (nm > 4) {
		print_measure(&ms[4], rounds, "pod_empty_ns", "pod_egress_ns");
		print_measure(&ms[5], rounds, "pod_general_empty_ns", "pod_general_ns");
		print_measure(&ms[6], rounds, "pod_aa_first_ns", "pod_aa_second_ns");
	} else {
		printf(", \"pod_added_ns\": null");
	}
	printf("}\n");
	pod_egress__destroy(podg);
	pod_egress__destroy(pod2);
	pod_egress__destroy(pod);
	xdp_rx__destroy(xdp);
	tc_egress__destroy(tc);
	dp_env_close(&env);
	return 0;
}
