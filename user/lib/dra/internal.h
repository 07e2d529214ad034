/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the DRA module; its interface is dra.h. */
#ifndef RDMANET_DRA_INTERNAL_H
#define RDMANET_DRA_INTERNAL_H

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

#endif
