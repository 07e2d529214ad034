/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Hooks the RDMA device module gives the rest: config validation and metrics.
 *
 * The config's "rdma" section:
 *   "rdma": { "netns_mode": "shared" | "exclusive",       (default shared)
 *             "selectors": { "vendors": ["15b3"], "deviceIDs": ["1017"],
 *                            "drivers": ["mlx5_core"], "ifNames": ["ens1f0np0"],
 *                            "linkTypes": ["ether"] },  (RDMA shared device plugin's)
 *             "sysfs_root": "/sys" }                     ($RDMANET_SYSFS_ROOT wins) */
#ifndef RDMANET_RDMA_CONFIG_H
#define RDMANET_RDMA_CONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "config.h"
#include "error.h"
#include "rdma/model.h"
#include "rdma/roots.h"
#include "rdma/selectors.h"

struct rn_rdma_config {
	enum rn_netns_mode netns_mode;
	bool netns_mode_given;		/* in the file, not the default */
	struct rn_rdma_selectors selectors;
	char sysfs_root[PATH_MAX];	/* "" : /sys */
};

/* Validates c->rdma (netns mode, selectors); called by rn_config_*. */
int rn_rdma_config_check(const struct rn_config *c, struct rn_error *e);
/* HCA hardware counters and GID facts for the textfile; never fails the export. */
void rn_metrics_rdma(FILE *f, const struct rn_config *c);

/* The section parsed; rdma may be NULL (all defaults). */
int rn_rdma_config_parse(json_t *rdma, struct rn_rdma_config *out, struct rn_error *e);
/* The parsed section of a checked config (defaults if it cannot be). */
void rn_rdma_config_get(const struct rn_config *c, struct rn_rdma_config *out);
/* Roots from the config, the environment override applied. */
void rn_rdma_config_roots(const struct rn_config *c, struct rn_rdma_roots *roots);

#endif
