// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Placeholder until the IP pools land. */
#include "ipam/ipam_config.h"

int rn_ipam_config_check(const struct rn_config *c, struct rn_error *e)
{
	(void)c;
	(void)e;
	return 0;
}

void rn_metrics_pools(FILE *f, const struct rn_config *c)
{
	(void)f;
	(void)c;
}
