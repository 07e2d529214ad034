/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Hooks the IPAM module gives the rest: config validation, metrics, and
 * the agent's sync of config pools into the store. */
#ifndef RDMANET_IPAM_CONFIG_H
#define RDMANET_IPAM_CONFIG_H

#include <stdio.h>

#include "config.h"
#include "error.h"

/* Validates c->ipam (store settings) and c->pools; called by rn_config_*. */
int rn_ipam_config_check(const struct rn_config *c, struct rn_error *e);
/* Pool usage families for the textfile; never fails the export. Reads the
 * store (read-only: nothing is created or written) only when the config
 * uses IPAM (an "ipam" section or pools) or the SQLite file exists, so
 * nodes without IPAM get no IPAM families. A SQLite store not created yet
 * is up with no pools. */
void rn_metrics_pools(FILE *f, const struct rn_config *c);
/* rdmanetd at start: upserts the config's pools into the store
 * (rn_ipam_sync). Returns pools written, or a negative error in e. */
int rn_ipam_agent_sync(const struct rn_config *c, struct rn_error *e);

#endif
