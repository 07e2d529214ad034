// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/roots.h"

void rn_rdma_roots_init(struct rn_rdma_roots *r, const char *configured)
{
	const char *env = getenv(RN_SYSFS_ROOT_ENV);
	const char *root = env && env[0] ? env : configured && configured[0] ? configured : "/sys";
	size_t len, parent;

	memset(r, 0, sizeof(*r));
	snprintf(r->sys, sizeof(r->sys), "%s", root);
	len = strlen(r->sys);
	while (len > 1 && r->sys[len - 1] == '/')
		r->sys[--len] = '\0';
	r->overridden = strcmp(r->sys, "/sys") != 0;
	/* the directory holding the sysfs root holds dev/ and etc/ too */
	parent = len;
	while (parent > 0 && r->sys[parent - 1] != '/')
		parent--;
	snprintf(r->dev, sizeof(r->dev), "%.*sdev", (int)parent, r->sys);
	snprintf(r->etc, sizeof(r->etc), "%.*setc", (int)parent, r->sys);
}
