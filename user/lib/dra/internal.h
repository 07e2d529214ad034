/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the DRA module; its interface is dra.h. */
#ifndef RDMANET_DRA_INTERNAL_H
#define RDMANET_DRA_INTERNAL_H

#include <stdbool.h>
#include <string.h>

#include <stdatomic.h>

#include "dra/dra.h"

struct rn_dra_driver {
	struct rn_dra_config cfg;
	struct rn_dra_claim_source *src;
	struct rn_dra_prepared *claims;	/* what is prepared, as in the state file */
	int n_claims, cap;
};

/* state.c: <state_dir>/prepared.json, read whole and written whole
 * (a temporary file, fsync'd, renamed: a crash leaves the old or the new) */
int dra_state_load(struct rn_dra_driver *d, struct rn_error *e);
int dra_state_save(const struct rn_dra_driver *d, struct rn_error *e);
struct rn_dra_prepared *dra_state_find(struct rn_dra_driver *d, const char *uid);

/* cdi.c: the claim's spec <cdi_dir>/rdmanet.io-claim_<uid>.json */
int dra_cdi_write(const struct rn_dra_config *cfg, const struct rn_rdma_model *m,
		  const struct rn_dra_prepared *p, const struct rn_dra_device *const *devs,
		  struct rn_error *e);
bool dra_cdi_exists(const struct rn_dra_config *cfg, const char *uid);
int dra_cdi_remove(const struct rn_dra_config *cfg, const char *uid, struct rn_error *e);
void dra_cdi_id(const char *uid, const char *device, char *buf, size_t size);

/* holds.c: a VF held for a claim (the CNI's exclusive-mode hold) */
int dra_vf_hold(const struct rn_dra_config *cfg, const struct rn_dra_device *vf,
		const struct rn_dra_prepared *p, struct rn_error *e);
int dra_vf_release(const struct rn_dra_config *cfg, const char *pci, const char *uid,
		   struct rn_error *e);

/* health.c: the driver's counters, kept for the process (a driver thread
 * restarted by a config reload goes on counting: a counter never goes
 * backwards); any thread */
enum dra_count {
	DRA_PREPARE_OK, DRA_PREPARE_FAILED, DRA_UNPREPARE_OK, DRA_UNPREPARE_FAILED,
	DRA_PUBLISH_OK, DRA_PUBLISH_FAILED, DRA_N_COUNTS
};
void dra_count(enum dra_count which);
unsigned long long dra_counted(enum dra_count which);
/* What the kubelet-side thread says about itself: written by it, read by
 * the agent's main thread. */
struct dra_live {
	atomic_bool registered;
	atomic_int prepared;
	atomic_llong beat_ms;		/* its last pass (monotonic ms); 0 none yet */
};
void dra_live_beat(struct dra_live *l);
/* h from the thread's live state, the process counters and the publisher
 * (NULL: none runs) */
struct rn_dra_slicer;
void dra_health_fill(const struct dra_live *l, const char *driver,
		     struct rn_dra_slicer *slicer, struct rn_dra_health *h);
/* the server this process runs, for rn_metrics_dra: set by rn_dra_start,
 * cleared by rn_dra_stop (both on the agent's main thread, as the export) */
struct rn_dra_server *dra_agent_server(void);

/* A result's request is "<request>" or, from a prioritized list
 * (firstAvailable), "<request>/<subrequest>"; kubelet's containers and the
 * network config name the request alone (as the Go kubeletplugin helper
 * strips it: resourceclaim.BaseRequestRef). True when result names request. */
static inline bool rn_dra_request_is(const char *result, const char *request)
{
	size_t n = strcspn(result, "/");

	return n == strlen(request) && !strncmp(result, request, n);
}

#endif
