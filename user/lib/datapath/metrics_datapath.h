/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The data path's counters as Prometheus metric families. */
#ifndef RDMANET_METRICS_DATAPATH_H
#define RDMANET_METRICS_DATAPATH_H

#include <stdio.h>

#include "stats.h"

void rn_metrics_datapath(FILE *f, const struct rn_stats *s);

#endif
