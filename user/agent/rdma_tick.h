/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The agent's periodic RDMA work: hardware QoS (default_roce_tos,
 * traffic_class) in line with the config, GID table changes logged. */
#ifndef RDMANET_AGENT_RDMA_TICK_H
#define RDMANET_AGENT_RDMA_TICK_H

#include "config.h"

void rn_rdma_agent_tick(const struct rn_config *c);
/* A new config: its netns mode is applied at the next tick. */
void rn_rdma_agent_config_changed(void);

#endif
