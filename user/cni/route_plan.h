/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Which routes an attachment gets, decided before any is installed.
 *
 * With policy routing (the default), like Spiderpool's coordinator: every
 * route of the interface lives in its own table — its subnet, a default via
 * its pool's gateway, the pool's and the config's routes — and a rule
 * `from <address> lookup <table>` sends what the pod emits from that address
 * there. The main table keeps only the kernel's subnet route, so the pod's
 * default route (on its primary interface) never moves, and each rail
 * answers from itself.
 *
 * Without it, the pool's and the config's routes go into the main table, as
 * the reference plugins do. A route without "gw" goes via the pool's gateway
 * when there is one, else straight out of the interface. */
#ifndef RDMANET_CNI_ROUTE_PLAN_H
#define RDMANET_CNI_ROUTE_PLAN_H

#include "attachment.h"
#include "cni_error.h"
#include "netconf.h"

/* Fills a->routes from a->addrs, the config and a->table (0: no policy
 * routing). Identical destinations in one table are kept once. */
int cni_plan_routes(const struct cni_netconf *c, struct cni_attachment *a,
		    struct cni_err *err);

#endif
