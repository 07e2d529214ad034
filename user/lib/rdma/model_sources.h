/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The three fillers of the RDMA model, called by rn_rdma_model_load in
 * this order: sysfs, netlink, verbs. The last two add to what sysfs found
 * and return non-zero (after a note in the model) when unavailable. */
#ifndef RDMANET_RDMA_MODEL_SOURCES_H
#define RDMANET_RDMA_MODEL_SOURCES_H

#include "error.h"
#include "rdma/model.h"

int rn_rdma_load_sysfs(struct rn_rdma_model *m, struct rn_error *e);
/* ports/N/hw_counters: what the counters are without RDMA netlink */
void rn_rdma_load_sysfs_counters(struct rn_rdma_model *m);
/* ib_core's netns_mode parameter (Y shared, N exclusive) */
void rn_rdma_load_sysfs_netns_mode(struct rn_rdma_model *m);

int rn_rdma_load_netlink(struct rn_rdma_model *m, unsigned int sources);
int rn_rdma_load_verbs(struct rn_rdma_model *m);

#endif
