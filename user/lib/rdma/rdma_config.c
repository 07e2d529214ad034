// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Placeholder until the RDMA device model lands. */
#include "rdma/rdma_config.h"

int rn_rdma_config_check(const struct rn_config *c, struct rn_error *e)
{
	(void)c;
	(void)e;
	return 0;
}

void rn_metrics_rdma(FILE *f, const struct rn_config *c)
{
	(void)f;
	(void)c;
}
