// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>

#include "ipam/cluster_check.h"

int rn_ipam_pool_cluster_check(const struct rn_ipam_settings *st, const struct rn_pool *p,
			       struct rn_error *e)
{
	char who[64];

	/* etcd: every node allocates through one cluster-wide store */
	if (st->store != RN_IPAM_STORE_SQLITE || p->n_nodes == 1)
		return 0;
	if (p->n_nodes)
		snprintf(who, sizeof(who), "its %u nodes would each", p->n_nodes);
	else
		snprintf(who, sizeof(who), "every node (no \"nodes\") would");
	return rn_fail(e, -EINVAL,
		       "pool \"%s\": %s allocate from it on its own with the node-local store "
		       "(sqlite) of a \"deployment\": \"cluster\" config, handing the same "
		       "addresses to pods on different nodes; give the pool one node "
		       "(\"nodes\": [\"<node>\"], a subnet per node) or use the cluster store "
		       "(\"ipam\": {\"store\": \"etcd\", ...}, with a \"block\" per pool so that "
		       "nodes allocate on their own)", p->name, who);
}
