// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>

#include "config.h"
#include "metrics_datapath.h"
#include "textfile.h"

/* container_id keeps two sandboxes of one pod (the old one not yet gone)
 * from producing the same series */
#define POD_LABELS(ps) "namespace", (ps)->ent.meta.ns, "pod", (ps)->ent.meta.name, \
	"interface", (ps)->ent.meta.ifname, "master", (ps)->ent.master, \
	"container_id", (ps)->ent.meta.container_id

static void pod_traffic(FILE *f, const struct rn_stats *s, int bytes)
{
	const char *name = bytes ? "rdmanet_pod_bytes_total" : "rdmanet_pod_packets_total";

	rn_metric_family(f, name, "counter", bytes ?
			 "L2 bytes of a pod interface seen on its RoCE master, by direction and class." :
			 "Packets of a pod interface seen on its RoCE master, by direction and class.");
	for (int i = 0; i < s->n_pods; i++) {
		const struct rn_pod_stats *ps = &s->pods[i];

		for (int d = 0; d < RN_DIR_MAX; d++)
			for (int c = 0; c < RN_CLASS_MAX; c++) {
				const char *labels[] = { POD_LABELS(ps), "direction", rn_dir_names[d],
							 "class", rn_class_names[c], NULL };
				const struct rn_traffic *t = &ps->ctr.traffic[d][c];

				rn_metric_sample(f, name, labels, bytes ? t->bytes : t->packets);
			}
	}
}

static void pod_scalars(FILE *f, const struct rn_stats *s)
{
	rn_metric_family(f, "rdmanet_pod_ecn_ce_packets_total", "counter",
			 "RoCEv2 packets received by a pod interface with ECN CE set.");
	for (int i = 0; i < s->n_pods; i++) {
		const char *labels[] = { POD_LABELS(&s->pods[i]), NULL };

		rn_metric_sample(f, "rdmanet_pod_ecn_ce_packets_total", labels,
				 s->pods[i].ctr.rx_ecn_ce);
	}
	rn_metric_family(f, "rdmanet_pod_marked_packets_total", "counter",
			 "RoCEv2 packets sent by a pod interface whose DSCP/ECN was rewritten.");
	for (int i = 0; i < s->n_pods; i++) {
		const char *labels[] = { POD_LABELS(&s->pods[i]), NULL };

		rn_metric_sample(f, "rdmanet_pod_marked_packets_total", labels,
				 s->pods[i].ctr.tx_marked);
	}
	rn_metric_family(f, "rdmanet_pod_policy_violations_total", "counter",
			 "Packets of a pod interface that broke the source-address policy (monitor and enforce).");
	for (int i = 0; i < s->n_pods; i++)
		for (int r = 0; r < RN_VIOLATION_MAX; r++) {
			const char *labels[] = { POD_LABELS(&s->pods[i]), "reason",
						 rn_violation_names[r], NULL };

			rn_metric_sample(f, "rdmanet_pod_policy_violations_total", labels,
					 s->pods[i].ctr.violations[r]);
		}
	rn_metric_family(f, "rdmanet_pod_dropped_packets_total", "counter",
			 "Packets of a pod interface dropped by the enforced source-address policy.");
	for (int i = 0; i < s->n_pods; i++)
		for (int r = 0; r < RN_VIOLATION_MAX; r++) {
			const char *labels[] = { POD_LABELS(&s->pods[i]), "reason",
						 rn_violation_names[r], NULL };

			rn_metric_sample(f, "rdmanet_pod_dropped_packets_total", labels,
					 s->pods[i].ctr.drops[r]);
		}
}

static void master_traffic(FILE *f, const struct rn_stats *s, int unknown, int bytes)
{
	char name[64];

	snprintf(name, sizeof(name), "rdmanet_master_%s%s_total", unknown ? "unknown_" : "",
		 bytes ? "bytes" : "packets");
	rn_metric_family(f, name, "counter", unknown ?
			 "Traffic on a RoCE master that belongs to no registered pod (host, broadcast), by direction and class." :
			 "All traffic on a RoCE master (registered pods and the rest), by direction and class.");
	for (int i = 0; i < s->n_masters; i++) {
		const struct rn_master_stats *ms = &s->masters[i];

		for (int d = 0; d < RN_DIR_MAX; d++)
			for (int c = 0; c < RN_CLASS_MAX; c++) {
				const char *labels[] = { "master", ms->info.ifname, "direction",
							 rn_dir_names[d], "class", rn_class_names[c],
							 NULL };
				const struct rn_traffic *t = unknown ? &ms->ctr.unknown[d][c]
								     : &ms->total[d][c];

				rn_metric_sample(f, name, labels, bytes ? t->bytes : t->packets);
			}
	}
}

static void master_scalars(FILE *f, const struct rn_stats *s)
{
	rn_metric_family(f, "rdmanet_master_malformed_packets_total", "counter",
			 "Frames on a RoCE master that failed to parse and were passed unmodified, by reason.");
	for (int i = 0; i < s->n_masters; i++)
		for (int r = 1; r < RN_MALFORMED_MAX; r++) {
			const char *labels[] = { "master", s->masters[i].info.ifname, "reason",
						 rn_malformed_names[r], NULL };

			rn_metric_sample(f, "rdmanet_master_malformed_packets_total", labels,
					 s->masters[i].ctr.malformed[r]);
		}
	rn_metric_family(f, "rdmanet_master_info", "gauge",
			 "Attach state and policy of a RoCE master; the value is always 1.");
	for (int i = 0; i < s->n_masters; i++) {
		const struct rn_master *mi = &s->masters[i].info;
		const char *labels[] = { "master", mi->ifname,
					 "xdp", rn_xdp_state_names[mi->xdp < 3 ? mi->xdp : 0],
					 "tc", rn_tc_state_names[mi->tc < 3 ? mi->tc : 0],
					 "policy", rn_policy_names[mi->policy < 3 ? mi->policy : 0],
					 NULL };

		rn_metric_sample(f, "rdmanet_master_info", labels, 1);
	}
	rn_metric_family(f, "rdmanet_pods_registered", "gauge",
			 "Pod interfaces registered in the data path.");
	rn_metric_sample(f, "rdmanet_pods_registered", NULL, (unsigned long long)s->n_pods);
}

void rn_metrics_datapath(FILE *f, const struct rn_stats *s)
{
	pod_traffic(f, s, 0);
	pod_traffic(f, s, 1);
	pod_scalars(f, s);
	master_traffic(f, s, 0, 0);
	master_traffic(f, s, 0, 1);
	master_traffic(f, s, 1, 0);
	master_traffic(f, s, 1, 1);
	master_scalars(f, s);
}
