// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Loading the whole model, from every source asked for. Apart from the rest
 * of model.c so that a binary using only the model's types and lookups (the
 * CNI plugin) does not link the loaders, and with them libibverbs: a
 * dynamic library the plugin never calls costs each of its runs the time
 * to map and relocate it. */
#include <string.h>

#include "rdma/model.h"
#include "rdma/model_sources.h"

int rn_rdma_model_load(struct rn_rdma_model *m, const struct rn_rdma_roots *roots,
		       unsigned int sources, struct rn_error *e)
{
	int err;

	memset(m, 0, sizeof(*m));
	m->netns_mode = RN_NETNS_UNKNOWN;
	m->verbs_devices = -1;
	m->roots = *roots;
	err = rn_rdma_load_sysfs(m, e);
	if (err) {
		rn_rdma_model_free(m);
		return err;
	}
	m->sources |= RN_RDMA_SRC_SYSFS;
	if (roots->overridden && (sources & (RN_RDMA_SRC_NETLINK | RN_RDMA_SRC_VERBS))) {
		rn_rdma_model_note(m, "sysfs root %s is not the live /sys: RDMA netlink and "
				   "libibverbs not consulted", roots->sys);
		sources &= ~(unsigned int)(RN_RDMA_SRC_NETLINK | RN_RDMA_SRC_VERBS);
	}
	if ((sources & RN_RDMA_SRC_NETLINK) && !rn_rdma_load_netlink(m, sources))
		m->sources |= RN_RDMA_SRC_NETLINK;
	if ((sources & RN_RDMA_SRC_VERBS) && !rn_rdma_load_verbs(m))
		m->sources |= RN_RDMA_SRC_VERBS;
	if ((sources & RN_RDMA_SRC_COUNTERS) && !(m->sources & RN_RDMA_SRC_NETLINK))
		rn_rdma_load_sysfs_counters(m);
	if (m->netns_mode == RN_NETNS_UNKNOWN)
		rn_rdma_load_sysfs_netns_mode(m);
	rn_rdma_model_sort(m);
	return 0;
}
