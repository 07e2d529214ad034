/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The agent's part in block pools (ipam/block_alloc.h): at every tick it
 * keeps the node's lease alive, so the node's view of its blocks stays
 * valid and an ADD needs no etcd, claims a reserve block before a pool's
 * last one is full, and gives back blocks that stayed empty past a grace. */
#ifndef RDMANET_AGENT_IPAM_BLOCKS_H
#define RDMANET_AGENT_IPAM_BLOCKS_H

#include "config.h"

#define RN_BLOCK_RESERVE_PCT	50		/* of a block, free in the pool's */
#define RN_BLOCK_RELEASE_GRACE_MS (10 * 60 * 1000LL)

void rn_ipam_blocks_tick(const struct rn_config *c);

#endif
