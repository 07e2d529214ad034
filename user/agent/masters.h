/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bringing the masters in the data path in line with the config: slots,
 * per-master policy and QoS, attachments. Idempotent, run at start and on
 * every tick (a recreated or renamed netdev gets reattached). */
#ifndef RDMANET_AGENT_MASTERS_H
#define RDMANET_AGENT_MASTERS_H

#include "config.h"
#include "error.h"
#include "datapath/datapath.h"

/* Returns the number of masters set up; problems with one master are
 * logged and do not stop the others. */
int rn_masters_reconcile(const struct rn_config *c, const struct rn_maps *m);
/* The same, and *wanted: how many masters the config names (or discovery
 * found), for the health file's "attached as configured" */
int rn_masters_reconcile_counted(const struct rn_config *c, const struct rn_maps *m, int *n_wanted);
/* Detaches everything from every in-use master slot and clears it. */
int rn_masters_teardown(const struct rn_config *c, const struct rn_maps *m);
/* Without maps of this build's layout the masters are unknown (another
 * build's agent attached them): takes our programs off every interface of
 * this netns instead. Returns the number of interfaces looked at. */
int rn_masters_detach_unknown(const struct rn_config *c);

#endif
