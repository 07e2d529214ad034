// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "discover.h"
#include "log.h"
#include "rdma/rdma.h"

/* Discovery runs every tick: a failure is logged when it starts or
 * changes, and its end once, not every tick. */
static int last_err;

static int discover(const char *sysfs_root, const struct rn_rdma_selectors *sel,
		    char names[][RN_IFNAMSIZ], int max)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	int n;

	rn_rdma_roots_init(&roots, sysfs_root);
	n = rn_rdma_discover_roce_netdevs(&roots, sel, names, max, &e);
	if (n < 0 && n != last_err)
		rn_warn("discover: cannot tell which netdevs back RoCE ports: %s", e.msg);
	else if (n >= 0 && last_err)
		rn_info("discover: RDMA devices readable again (%d RoCE netdev%s)", n,
			n == 1 ? "" : "s");
	last_err = n < 0 ? n : 0;
	return n;
}

int rn_discover_roce_netdevs_config(const struct rn_config *c, char names[][RN_IFNAMSIZ],
				    int max)
{
	struct rn_rdma_config rc;

	rn_rdma_config_get(c, &rc);
	return discover(rc.sysfs_root, &rc.selectors, names, max);
}
