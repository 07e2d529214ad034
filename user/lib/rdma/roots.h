/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Where the RDMA model looks: the sysfs root and, next to it, the dev and
 * etc directories ("/sys" -> "/dev", "/etc"; "/tmp/x/sys" -> "/tmp/x/dev",
 * "/tmp/x/etc"), so a fixture tree shaped like a host is one directory.
 * configfs is <sysfs root>/kernel/config, where it is mounted on a host. */
#ifndef RDMANET_RDMA_ROOTS_H
#define RDMANET_RDMA_ROOTS_H

#include <limits.h>
#include <stdbool.h>

#define RN_SYSFS_ROOT_ENV "RDMANET_SYSFS_ROOT"

struct rn_rdma_roots {
	char sys[PATH_MAX];
	char dev[PATH_MAX];
	char etc[PATH_MAX];
	bool overridden;	/* not the live /sys */
};

/* $RDMANET_SYSFS_ROOT, else configured (may be NULL or ""), else /sys. */
void rn_rdma_roots_init(struct rn_rdma_roots *r, const char *configured);

#endif
