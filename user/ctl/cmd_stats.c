// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl stats [--pod NS/NAME] [--master IF] [-b|--bytes] [-j]: the
 * data path's counters, per pod and per master. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "datapath/datapath.h"

/* Human output: one table of pods and one of masters, a row per direction,
 * each row complete (grep finds a pod's or a master's tx row by its name),
 * packets per class, or bytes with --bytes (the headers say which). ECN CE
 * is counted on rx and the marking on tx: each its own column, "-" where
 * it does not apply. */
static unsigned long long val(const struct rn_traffic *t, int bytes)
{
	return bytes ? t->bytes : t->packets;
}

static void print_head(const char *name, int bytes, int width)
{
	char head[32], *h;

	snprintf(head, sizeof(head), "%s_%s", name, bytes ? "bytes" : "pkts");
	for (h = head; *h; h++)
		*h = (char)(*h - 32 * (*h >= 'a' && *h <= 'z'));
	printf(" %*s", width, head);
}

static void print_class_heads(int bytes)
{
	for (int c = 0; c < RN_CLASS_MAX; c++)
		print_head(rn_class_names[c], bytes, 12);
}

static void print_row(int w, const char *who, const char *ifname, const char *master,
		      const char *dir, const struct rn_traffic t[RN_CLASS_MAX], int bytes,
		      const char *ce, const char *marked, const char *drops)
{
	printf("%-*s %-15s %-15s %-3s", w, who, ifname, master, dir);
	for (int c = 0; c < RN_CLASS_MAX; c++)
		printf(" %12llu", val(&t[c], bytes));
	printf(" %12s %12s %12s\n", ce, marked, drops);
}

static const char *num(char *buf, size_t size, unsigned long long v)
{
	snprintf(buf, size, "%llu", v);
	return buf;
}

static void print_pods(const struct rn_stats *s, const char *pod, const char *master,
		       int bytes)
{
	int w = 16;

	for (int i = 0; i < s->n_pods; i++) {
		int n = (int)(strlen(s->pods[i].ent.meta.ns) + 1 + strlen(s->pods[i].ent.meta.name));

		w = n > w ? n : w;
	}
	printf("%-*s %-15s %-15s %-3s", w, "POD", "IFNAME", "MASTER", "DIR");
	print_class_heads(bytes);
	printf(" %12s %12s %12s\n", "ECN_CE", "MARKED", "DROPS");
	for (int i = 0; i < s->n_pods; i++) {
		const struct rn_pod_stats *ps = &s->pods[i];
		char name[RN_NS_LEN + RN_POD_NAME_LEN + 2], drops[32], ce[32], marked[32];

		if (!rn_stats_pod_selected(ps, pod, master))
			continue;
		snprintf(name, sizeof(name), "%s/%s", ps->ent.meta.ns, ps->ent.meta.name);
		print_row(w, name, ps->ent.meta.ifname, ps->ent.master, "rx",
			  ps->ctr.traffic[RN_DIR_RX], bytes,
			  num(ce, sizeof(ce), ps->ctr.rx_ecn_ce), "-", "-");
		print_row(w, name, ps->ent.meta.ifname, ps->ent.master, "tx",
			  ps->ctr.traffic[RN_DIR_TX], bytes, "-",
			  num(marked, sizeof(marked), ps->ctr.tx_marked),
			  num(drops, sizeof(drops),
			      ps->ctr.drops[RN_VIOLATION_SPOOFED_SOURCE]));
	}
}

static void print_masters(const struct rn_stats *s, const char *master, int bytes)
{
	printf("\n%-15s %7s %-6s %-6s %-7s %-3s", "MASTER", "IFINDEX", "XDP", "TC", "POLICY",
	       "DIR");
	print_class_heads(bytes);
	print_head("unknown", bytes, 13);
	printf(" %12s\n", "MALFORMED");
	for (int i = 0; i < s->n_masters; i++) {
		const struct rn_master_stats *ms = &s->masters[i];
		const struct rn_master *mi = &ms->info;
		unsigned long long mal = 0, unk[RN_DIR_MAX] = { 0, 0 };

		if (master && strcmp(mi->ifname, master))
			continue;
		for (int r = 1; r < RN_MALFORMED_MAX; r++)
			mal += ms->ctr.malformed[r];
		for (int d = 0; d < RN_DIR_MAX; d++)
			for (int c = 0; c < RN_CLASS_MAX; c++)
				unk[d] += val(&ms->ctr.unknown[d][c], bytes);
		for (int d = 0; d < RN_DIR_MAX; d++) {
			printf("%-15s %7u %-6s %-6s %-7s", mi->ifname, mi->ifindex,
			       rn_xdp_state_names[mi->xdp < 3 ? mi->xdp : 0],
			       rn_tc_state_names[mi->tc < 3 ? mi->tc : 0],
			       rn_policy_names[mi->policy < 3 ? mi->policy : 0]);
			printf(" %-3s", rn_dir_names[d]);
			for (int c = 0; c < RN_CLASS_MAX; c++)
				printf(" %12llu", val(&ms->total[d][c], bytes));
			printf(" %13llu", unk[d]);
			/* malformed is one count per master, not per direction */
			if (d == 0)
				printf(" %12llu\n", mal);
			else
				printf(" %12s\n", "-");
		}
	}
}

/* --pod names a pod: one that is not registered is an error, as --master's
 * master that is not attached is */
static bool pod_known(const struct rn_stats *s, const char *pod)
{
	for (int i = 0; i < s->n_pods; i++)
		if (rn_stats_pod_selected(&s->pods[i], pod, NULL))
			return true;
	return false;
}

static int stats_show(struct ctl *ctl, const struct ctl_args *a)
{
	const char *pod = ctl_arg(a, "--pod"), *master = ctl_arg(a, "--master");
	int bytes = ctl_flag(a, "--bytes");
	struct rn_error e = { 0 };
	struct rn_stats s;
	int found = 0;

	if (rn_stats_load(ctl->cfg.bpf.pin_dir, &s, &e))
		return ctl_fail("%s", e.msg);
	if (master) {
		for (int i = 0; i < s.n_masters; i++)
			found |= !strcmp(s.masters[i].info.ifname, master);
		if (!found) {
			rn_stats_free(&s);
			return ctl_fail("stats: master %s is not attached", master);
		}
	}
	if (pod && !pod_known(&s, pod)) {
		rn_stats_free(&s);
		return ctl_fail("stats: pod %s is not registered", pod);
	}
	if (ctl->json) {
		/* streamed pod by pod: 1,024 pods as one tree cost more than the
		 * counters themselves */
		if (ctl->pretty)
			ctl_print_json(ctl, rn_stats_json(&s, pod, master));
		else if (rn_stats_json_write(stdout, &s, pod, master, JSON_COMPACT))
			return ctl_fail("stats: write: %s", strerror(errno));
	} else {
		print_pods(&s, pod, master, bytes);
		if (!pod)
			print_masters(&s, master, bytes);
	}
	rn_stats_free(&s);
	return 0;
}

static const struct ctl_opt stats_opts[] = {
	{ "--pod", NULL, "NS/NAME", "only this pod" },
	{ "--master", NULL, "IF", "only pods on this master, and this master" },
	{ "--bytes", "-b", NULL, "bytes instead of packets" },
	{ NULL },
};

const struct ctl_object ctl_obj_stats = {
	.name = "stats",
	.help = "traffic counters per pod and per master, by traffic class",
	.verbs = (const struct ctl_verb[]){
		{ .opts = stats_opts, .run = stats_show,
		  .help = "per-pod rows (rx, tx) and per-master rows, packets per class" },
		{ .run = NULL },
	},
};
