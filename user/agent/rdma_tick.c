// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Placeholder until the RDMA device model lands. */
#include "rdma_tick.h"

void rn_rdma_agent_tick(const struct rn_config *c)
{
	(void)c;
}
