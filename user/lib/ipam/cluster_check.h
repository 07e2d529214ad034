/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pools that would hand one address to two nodes. A config marked
 * "deployment": "cluster" reaches every node of a cluster (the DaemonSet's
 * ConfigMap). With the node-local store (SQLite) each node allocates from
 * its own copy of a pool, so a pool that more than one node may use gives
 * the first address of its range to the first pod of every node. Such a
 * pool is refused, naming it and the ways out: one node per pool (a subnet
 * per node), or a store shared by the cluster (etcd). With etcd every
 * allocation is a compare-and-swap across the cluster: safe. */
#ifndef RDMANET_IPAM_CLUSTER_CHECK_H
#define RDMANET_IPAM_CLUSTER_CHECK_H

#include <stdbool.h>

#include "error.h"
#include "ipam/ipam_settings.h"
#include "ipam/pool.h"

/* 0 if p cannot be allocated from independently by two nodes of a cluster
 * deployment using store st; -EINVAL with the reason and the way out. */
int rn_ipam_pool_cluster_check(const struct rn_ipam_settings *st, const struct rn_pool *p,
			       struct rn_error *e);

#endif
