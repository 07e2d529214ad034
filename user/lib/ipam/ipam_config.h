/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Hooks the IPAM module gives the rest: config validation and metrics. */
#ifndef RDMANET_IPAM_CONFIG_H
#define RDMANET_IPAM_CONFIG_H

#include <stdio.h>

#include "config.h"
#include "error.h"

/* Validates c->ipam (store settings) and c->pools; called by rn_config_*. */
int rn_ipam_config_check(const struct rn_config *c, struct rn_error *e);
/* Pool usage families for the textfile; never fails the export. */
void rn_metrics_pools(FILE *f, const struct rn_config *c);

#endif
