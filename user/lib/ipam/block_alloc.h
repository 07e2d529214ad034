/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Allocation from block pools (pools with "block") of the etcd store: the
 * addresses come from the node-local SQLite store (ipam.path), inside the
 * blocks the node holds in etcd (block_claim.h), so an ADD makes no round
 * trip to etcd while the node's blocks have room and its lease is known
 * valid.
 *
 * The node's view of its claims is <path>.blocks (JSON, root-only,
 * replaced atomically; changed under the OFD lock <path>.blocks.lock):
 *   {"boot_id", "node", "lease", "ttl_s", "valid_until_ms" (CLOCK_BOOTTIME),
 *    "blocks": [{"pool", "base", "len", "mod"}]}
 * A view is valid on the boot that wrote it, for its node, until
 * valid_until_ms less a margin (RN_BLOCK_MARGIN_MS). The agent keeps it
 * valid (rn_block_alloc_tick: keep-alive, a reserve block claimed before
 * the last one is full, empty blocks given back after a grace); an ADD
 * that finds it past its bound renews it from etcd itself, and if etcd
 * does not answer it fails with -EAGAIN (CNI code 11), never handing out
 * an address of a block that may be another node's by now. A view renewed
 * under a new lease holds only what etcd says that lease holds: blocks the
 * node lost (its lease expired) are never allocated from again. An ADD
 * whose blocks are full claims one (a round trip) and goes on. */
#ifndef RDMANET_IPAM_BLOCK_ALLOC_H
#define RDMANET_IPAM_BLOCK_ALLOC_H

#include "error.h"
#include "ipam/block_claim.h"
#include "ipam/store.h"

#define RN_BLOCK_MARGIN_MS	2000	/* stop this long before the lease may end */

struct rn_block_alloc;
struct rn_alloc_plan;	/* store.h, which may be mid-include here (via ipam.h) */

int rn_block_alloc_open(struct rn_block_alloc **out, const struct rn_ipam_settings *st,
			const char *node, struct rn_error *e);
void rn_block_alloc_close(struct rn_block_alloc *ba);
/* The node-local store (for releases and lookups of block allocations). */
struct rn_store *rn_block_alloc_store(struct rn_block_alloc *ba);

/* The node's view of its blocks is valid now (an ADD would need no etcd
 * to know its blocks are its own). */
bool rn_block_alloc_valid(struct rn_block_alloc *ba);

/* The blocks of pool the view at st->path says node holds, as sorted
 * disjoint segments in *out (malloc'd; none without a view), read under
 * the shared lock: no etcd, no lease taken, nothing created. Whether the
 * view is still valid is not asked: for what may be handed out next (the
 * agent's pre-checks), not for handing it out. */
int rn_block_view_segs(const struct rn_ipam_settings *st, const char *node, const char *pool,
		       struct rn_pool_seg **out, unsigned int *n, struct rn_error *e);

/* plan: every pool a block pool. Fills out as rn_store_ops.allocate. */
int rn_block_alloc_allocate(struct rn_block_alloc *ba, struct rn_alloc_plan *plan,
			    struct rn_ipam_allocation out[2], struct rn_error *e);

struct rn_block_tick {
	unsigned int reserve_pct;	/* claim another block when less than this
					 * share of a block is free in the pool's */
	long long release_grace_ms;	/* give back a block empty this long */
};
/* The agent's periodic work over the block pools pools[0..n-1]: keep the
 * lease alive, claim reserves, release blocks empty past the grace,
 * adopt the pools' live per-allocation addresses (block_adopt.h, once
 * per pool and handle), and publish what the node holds in its blocks
 * (block_publish.h, not counted). Returns how many blocks were claimed or released
 * plus how many addresses were adopted. */
int rn_block_alloc_tick(struct rn_block_alloc *ba, const struct rn_pool *pools, unsigned int n,
			const struct rn_block_tick *t, struct rn_error *e);

#endif
