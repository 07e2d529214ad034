// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl stats [--pod NS/NAME] [--master IF] [-j] */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "maps.h"
#include "stats.h"

static void print_classes(const char *dir, const struct rn_traffic t[RN_CLASS_MAX])
{
	printf("    %s:", dir);
	for (int c = 0; c < RN_CLASS_MAX; c++)
		printf(" %s %llu/%llu", rn_class_names[c], (unsigned long long)t[c].packets,
		       (unsigned long long)t[c].bytes);
}

static void print_pod(const struct rn_pod_stats *ps)
{
	const struct rn_pod_counters *c = &ps->ctr;
	json_t *j = rn_stats_json(&(struct rn_stats){ .pods = (struct rn_pod_stats *)ps,
						      .n_pods = 1 }, NULL, NULL);
	json_t *pod = json_array_get(json_object_get(j, "pods"), 0);
	json_t *ip;
	size_t i;

	printf("%s/%s %s master %s mac %s", ps->ent.meta.ns, ps->ent.meta.name,
	       ps->ent.meta.ifname, ps->ent.master,
	       json_string_value(json_object_get(pod, "mac")));
	json_array_foreach(json_object_get(pod, "ips"), i, ip)
		printf(" %s", json_string_value(ip));
	if (ps->ent.pod.dscp_roce != RN_DSCP_INHERIT)
		printf(" dscp %u", ps->ent.pod.dscp_roce);
	printf("\n");
	json_decref(j);
	print_classes("rx", c->traffic[RN_DIR_RX]);
	printf(" ecn-ce %llu\n", (unsigned long long)c->rx_ecn_ce);
	print_classes("tx", c->traffic[RN_DIR_TX]);
	printf(" marked %llu\n", (unsigned long long)c->tx_marked);
	printf("    policy: violations spoofed_source %llu, drops spoofed_source %llu\n",
	       (unsigned long long)c->violations[RN_VIOLATION_SPOOFED_SOURCE],
	       (unsigned long long)c->drops[RN_VIOLATION_SPOOFED_SOURCE]);
}

static void print_master(const struct rn_master_stats *ms)
{
	const struct rn_master *mi = &ms->info;
	unsigned long long mal = 0;

	for (int r = 1; r < RN_MALFORMED_MAX; r++)
		mal += ms->ctr.malformed[r];
	printf("master %s ifindex %u xdp %s tc %s policy %s dscp %u/%u ecn %s mtu %u\n",
	       mi->ifname, mi->ifindex, rn_xdp_state_names[mi->xdp < 3 ? mi->xdp : 0],
	       rn_tc_state_names[mi->tc < 3 ? mi->tc : 0],
	       rn_policy_names[mi->policy < 3 ? mi->policy : 0], mi->dscp_roce, mi->dscp_cnp,
	       rn_ecn_names[mi->ecn < 3 ? mi->ecn : 0], mi->mtu);
	print_classes("total rx", ms->total[RN_DIR_RX]);
	printf("\n");
	print_classes("total tx", ms->total[RN_DIR_TX]);
	printf("\n");
	print_classes("unknown rx", ms->ctr.unknown[RN_DIR_RX]);
	printf(" ecn-ce %llu\n", (unsigned long long)ms->ctr.rx_ecn_ce);
	print_classes("unknown tx", ms->ctr.unknown[RN_DIR_TX]);
	printf(" marked %llu\n", (unsigned long long)ms->ctr.tx_marked);
	printf("    malformed %llu", mal);
	for (int r = 1; r < RN_MALFORMED_MAX; r++)
		if (ms->ctr.malformed[r])
			printf(" %s %llu", rn_malformed_names[r],
			       (unsigned long long)ms->ctr.malformed[r]);
	printf("\n");
}

int cmd_stats(struct ctl *ctl, int argc, char **argv)
{
	const char *pod = NULL, *master = NULL;
	struct rn_error e = { 0 };
	struct rn_stats s;
	int found = 0;

	for (int i = 1; i < argc; i++) {
		if (ctl_common_opt(ctl, argv[i]))
			continue;
		if (!strcmp(argv[i], "--pod") && i + 1 < argc)
			pod = argv[++i];
		else if (!strcmp(argv[i], "--master") && i + 1 < argc)
			master = argv[++i];
		else
			return ctl_fail("stats: unexpected argument \"%s\"", argv[i]);
	}
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
	if (ctl->json) {
		/* streamed pod by pod: 1,024 pods as one tree cost more than the
		 * counters themselves */
		if (ctl->pretty)
			ctl_print_json(ctl, rn_stats_json(&s, pod, master));
		else if (rn_stats_json_write(stdout, &s, pod, master, JSON_COMPACT))
			return ctl_fail("stats: write: %s", strerror(errno));
	} else {
		for (int i = 0; i < s.n_pods; i++) {
			if (pod && !rn_stats_pod_match(&s.pods[i].ent, pod))
				continue;
			if (master && strcmp(s.pods[i].ent.master, master))
				continue;
			print_pod(&s.pods[i]);
		}
		for (int i = 0; i < s.n_masters && !pod; i++)
			if (!master || !strcmp(s.masters[i].info.ifname, master))
				print_master(&s.masters[i]);
	}
	rn_stats_free(&s);
	return 0;
}
