// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "discover.h"
#include "log.h"
#include "rdma/model.h"
#include "rdma/rdma_config.h"
#include "rdma/roce_netdevs.h"

static int discover(const char *sysfs_root, const struct rn_rdma_selectors *sel,
		    char names[][RN_IFNAMSIZ], int max)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	int n, err;

	rn_rdma_roots_init(&roots, sysfs_root);
	/* netlink names a soft-RoCE port's netdev; verbs adds nothing here */
	err = rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK, &e);
	if (err) {
		rn_warn("discover: %s", e.msg);
		return err;
	}
	n = rn_rdma_roce_netdevs(&m, sel, names, max);
	rn_rdma_model_free(&m);
	return n;
}

int rn_discover_roce_netdevs(const char *sysfs_root, char names[][RN_IFNAMSIZ], int max)
{
	return discover(sysfs_root, NULL, names, max);
}

int rn_discover_roce_netdevs_config(const struct rn_config *c, char names[][RN_IFNAMSIZ],
				    int max)
{
	struct rn_rdma_config rc;

	rn_rdma_config_get(c, &rc);
	return discover(rc.sysfs_root, &rc.selectors, names, max);
}
