/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A snapshot of every counter in the data path, summed over CPUs. */
#ifndef RDMANET_STATS_H
#define RDMANET_STATS_H

#include <stdio.h>
#include <jansson.h>
#include <rdmanet/master.h>
#include <rdmanet/pod.h>
#include <rdmanet/pod_guard.h>

#include "error.h"
#include "maps.h"
#include "registry.h"

struct rn_pod_stats {
	struct rn_pod_entry ent;
	struct rn_pod_counters ctr;
	struct rn_pod_reasons refused;	/* by the per-pod program */
	bool has_refused;		/* its counters are pinned */
};

struct rn_master_stats {
	__u32 slot;
	struct rn_master info;
	struct rn_master_counters ctr;
	/* totals over the master's pods plus its unknown traffic */
	struct rn_traffic total[RN_DIR_MAX][RN_CLASS_MAX];
};

struct rn_stats {
	struct rn_pod_stats *pods;
	int n_pods;
	struct rn_master_stats masters[RN_MAX_MASTERS];
	int n_masters;
};

extern const char *const rn_class_names[RN_CLASS_MAX];
extern const char *const rn_dir_names[RN_DIR_MAX];
extern const char *const rn_violation_names[RN_VIOLATION_MAX];
extern const char *const rn_malformed_names[RN_MALFORMED_MAX];
extern const char *const rn_pod_reason_names[RN_REASON_MAX];
extern const char *const rn_xdp_state_names[3];
extern const char *const rn_tc_state_names[3];

int rn_stats_collect(const struct rn_maps *m, struct rn_stats *s, struct rn_error *e);
/* Opens the pinned maps under pin_dir, collects, closes. */
int rn_stats_load(const char *pin_dir, struct rn_stats *s, struct rn_error *e);
void rn_stats_free(struct rn_stats *s);

/* The `rdmanetctl stats -j` object; pod_filter "NS/NAME" and master_filter
 * (an ifname) may be NULL. */
json_t *rn_stats_json(const struct rn_stats *s, const char *pod_filter, const char *master_filter);
/* The same object written to f one pod at a time (each pod's tree is
 * built, dumped and freed in turn), so 1,024 pods never sit in memory as
 * one JSON tree. Returns 0 or -EIO. */
int rn_stats_json_write(FILE *f, const struct rn_stats *s, const char *pod_filter,
			const char *master_filter, size_t json_flags);
/* True if the pod passes both filters (NULL: any): "NS/NAME" (or just
 * "NAME" in any namespace), and the master's ifname. */
int rn_stats_pod_selected(const struct rn_pod_stats *ps, const char *pod_filter,
			  const char *master_filter);

#endif
