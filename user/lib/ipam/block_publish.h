/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Who holds which address of a block, published lazily to etcd so that
 * `rdmanetctl pool show` and `ip show` on any node can answer for every
 * node's blocks (a node allocates from its own store, block_alloc.h):
 *
 *   P/used/<pool>/<hex block base>  {"node", "at" (unix s), "addrs":
 *       [{"ip", "container_id", "ifname", "namespace", "pod", "created"}]}
 *
 * put under the node's lease (it goes with the lease, as the block does).
 * The agent's tick rewrites the key of each of its blocks whose addresses
 * changed since it last did, at most every RN_BLOCK_PUBLISH_MIN_MS, in one
 * transaction per tick (nothing on the ADD path); rn_block_release deletes
 * a block's record in the transaction that gives the block back. So a published record is at most one tick interval
 * plus RN_BLOCK_PUBLISH_MIN_MS old while the node's agent runs and etcd
 * answers; "at" says when it was written. It is a report, never used to
 * decide what to hand out. */
#ifndef RDMANET_IPAM_BLOCK_PUBLISH_H
#define RDMANET_IPAM_BLOCK_PUBLISH_H

#include <jansson.h>

#include "error.h"
#include "ipam/block_claim.h"
#include "ipam/ipam.h"
#include "ipam/ipam_settings.h"

#define RN_BLOCK_PUBLISH_MIN_MS	10000

struct rn_block_pub;		/* what this node last published, per block */

struct rn_block_pub_addr {
	struct rn_ipam_allocation a;	/* a.node: the publisher */
	long long at;			/* unix seconds the record was written */
};

void rn_block_pub_free(struct rn_block_pub *pub);

/* The tick's publication: blocks[0..n-1] (the node's, under lease l) with
 * the allocations of the node's store. *pub (NULL at first) remembers what
 * was published. Returns the number of keys written or deleted (0 when
 * nothing changed or the last publication is younger than min_ms). */
int rn_block_publish(struct rn_etcd *c, const char *prefix, const char *node,
		     const struct rn_block_lease *l, const struct rn_block *blocks, int n,
		     const struct rn_ipam_allocation *allocs, int n_allocs, long long min_ms,
		     struct rn_block_pub **pub, struct rn_error *e);

/* Every published address of pool (NULL: of every pool), in pool and
 * block order; with addr, only that address (its block's key alone is
 * read: pools[0..n_pools-1] give the block sizes). *out malloc'd;
 * returns the count. */
int rn_block_published(const struct rn_ipam_settings *st, const char *pool,
		       const struct rn_addr *addr, const struct rn_pool *pools,
		       unsigned int n_pools, struct rn_block_pub_addr **out, struct rn_error *e);

/* P/used/<pool>/<hex base> (RN_ETCD_KEY_MAX bytes). */
void rn_block_used_key(char *out, const char *prefix, const char *pool, int family,
		       rn_u128 base);

/* A published address as JSON: the allocation's fields and
 * "published_at" (when its record was written). */
json_t *rn_block_pub_addr_to_json(const struct rn_block_pub_addr *p);

#endif
