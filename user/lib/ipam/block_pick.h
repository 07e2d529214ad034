/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The blocks of a pool as a sequence, and where a node's search for a free
 * one starts (block_claim.c).
 *
 * A pool's blocks are the aligned prefixes of its block length that hold at
 * least one usable address, in address order: block k is the k-th of them.
 * A node starts its search at block hash(node) mod count, not at the first
 * block: nodes claiming at once (a cluster starting) then look at different
 * parts of the pool instead of all racing for the first free block, and a
 * claim reads the claimed blocks near its start (a bounded window), not
 * every block of the pool. The start depends on the node's name only, so a
 * node's blocks of a pool tend to lie together. */
#ifndef RDMANET_IPAM_BLOCK_PICK_H
#define RDMANET_IPAM_BLOCK_PICK_H

#include <stdbool.h>

#include "ipam/pool.h"

/* How many blocks of p->block the pool has (saturates at ~0). */
rn_u128 rn_block_count(const struct rn_pool *p);
/* The base of block k; false if k >= rn_block_count(p). */
bool rn_block_nth(const struct rn_pool *p, rn_u128 k, rn_u128 *base);
/* The base of the block after the one at base; false if it is the last. */
bool rn_block_after(const struct rn_pool *p, rn_u128 base, rn_u128 *next);
/* The base of the block where node's search starts; false if the pool has
 * no block. */
bool rn_block_start(const struct rn_pool *p, const char *node, rn_u128 *base);

#endif
