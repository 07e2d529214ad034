/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Hooks the RDMA device module gives the rest: config validation and metrics. */
#ifndef RDMANET_RDMA_CONFIG_H
#define RDMANET_RDMA_CONFIG_H

#include <stdio.h>

#include "config.h"
#include "error.h"

/* Validates c->rdma (netns mode, selectors); called by rn_config_*. */
int rn_rdma_config_check(const struct rn_config *c, struct rn_error *e);
/* HCA hardware counters and GID facts for the textfile; never fails the export. */
void rn_metrics_rdma(FILE *f, const struct rn_config *c);

#endif
