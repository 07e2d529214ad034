/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One Prometheus textfile with everything rdmanet knows about the node:
 * written by rdmanetd periodically and by `rdmanetctl export`. */
#ifndef RDMANET_NODE_H
#define RDMANET_NODE_H

#include "config.h"
#include "error.h"

#define RN_TEXTFILE_NAME "rdmanet.prom"

int rn_export_textfile(const struct rn_config *c, const char *dir, struct rn_error *e);

#endif
