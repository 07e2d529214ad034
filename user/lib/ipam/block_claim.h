/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-node address blocks of a pool ("block": a prefix length), claimed in
 * etcd and bound to a lease the node keeps alive:
 *
 *   P/nodes/<node>             {"lease": <id>}                  with the lease
 *   P/blocks/<pool>/<hex base> {"node": <node>, "lease": <id>,  with the lease
 *                               "len": <prefix length>}
 *
 * A block belongs to the node named in it for as long as the lease in it
 * lives: a claim is a transaction that creates the block key only if it is
 * absent, with the node's lease attached, so two nodes never hold one block
 * and a lease etcd has let expire (a node that stopped renewing it: gone, or
 * partitioned past the lease's TTL) takes its blocks back with it; another
 * node may then claim them. The node learns it lost them when its
 * keep-alive finds the lease gone, and a block it re-reads belongs to it
 * only if the block key still names it and its live lease
 * (rn_block_owned): a node that comes back never allocates from a block it
 * lost.
 *
 * "Still valid": a keep-alive sent at t that etcd answers with a TTL of T
 * seconds means the lease lives at least until t + T (etcd counts from
 * when it got the request, later than t). valid_until_ms is that bound on
 * CLOCK_BOOTTIME (runs through suspend; shared by the node's processes);
 * past it a node must not hand out addresses of its blocks (CNI "try again
 * later"), since etcd may have reclaimed them. */
#ifndef RDMANET_IPAM_BLOCK_CLAIM_H
#define RDMANET_IPAM_BLOCK_CLAIM_H

#include <stdbool.h>

#include "error.h"
#include "ipam/etcd_client.h"
#include "ipam/pool.h"

struct rn_block_lease {
	long long id;			/* etcd lease id, 0: none */
	long long ttl_s;		/* as etcd last answered */
	long long valid_until_ms;	/* CLOCK_BOOTTIME ms */
	bool granted;			/* rn_block_lease_get granted it: no block
					 * is bound to it yet */
};

struct rn_block {
	char pool[RN_POOL_NAME_MAX];
	int family;			/* the pool's */
	rn_u128 base;			/* first address of the block */
	unsigned int len;		/* prefix length */
	long long mod_revision;
	char node[RN_POOL_NODE_MAX];	/* the holder */
	long long lease;		/* the holder's lease */
};

/* Milliseconds on CLOCK_BOOTTIME. */
long long rn_block_now_ms(void);

/* The node's lease: the one P/nodes/<node> names if etcd still has it
 * (kept alive here), else a new one of ttl_s seconds, recorded there
 * (l->granted). */
int rn_block_lease_get(struct rn_etcd *c, const char *prefix, const char *node,
		       long long ttl_s, struct rn_block_lease *l, struct rn_error *e);
/* One keep-alive: refreshes valid_until_ms. -ENOENT if etcd no longer has
 * the lease (every block bound to it is lost: l->id becomes 0). */
int rn_block_lease_keepalive(struct rn_etcd *c, struct rn_block_lease *l, struct rn_error *e);
/* Gives the lease (and every block bound to it) back at once. */
int rn_block_lease_revoke(struct rn_etcd *c, struct rn_block_lease *l, struct rn_error *e);

/* Claims a free block of p (p->block must be set) for node under lease l:
 * the first free one from the node's start (block_pick.h) on, wrapping
 * around the pool's end. It reads the claimed block keys from the start in
 * a window of RN_BLOCK_CLAIM_WINDOW keys, the rest of the pool (in large
 * pages) only when the window holds no free block; a claim another node
 * won moves on to the next free block without reading again. 3 etcd
 * requests when the window has room: the window, the block's
 * per-allocation count, the claim. -ENOSPC if every block of the pool is
 * taken; -ENOENT if the lease is gone. */
#define RN_BLOCK_CLAIM_WINDOW	32
int rn_block_claim(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, const struct rn_pool *p, struct rn_block *out,
		   struct rn_error *e);
/* The blocks of pool (NULL: of every pool) that node holds under lease l
 * (node NULL: every claimed block, whoever holds it; l unused), in pool and
 * address order; *out malloc'd. Returns the count. */
int rn_block_list(struct rn_etcd *c, const char *prefix, const char *node,
		  const struct rn_block_lease *l, const char *pool, struct rn_block **out,
		  struct rn_error *e);
/* 1 if b is still node's under lease l (its mod_revision refreshed), 0 if
 * not (gone, or someone else's). */
int rn_block_owned(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, struct rn_block *b, struct rn_error *e);
/* Gives one block back if it is unchanged since read, with its published
 * addresses (block_publish.h): 1 released, 0 not (already gone or
 * changed). */
int rn_block_release(struct rn_etcd *c, const char *prefix, const struct rn_block *b,
		     struct rn_error *e);

/* The block's key: P/blocks/<pool>/<hex base> (RN_ETCD_KEY_MAX bytes). */
void rn_block_key(char *out, const char *prefix, const char *pool, int family, rn_u128 base);

/* Addresses of the block: [base, base + 2^(bits - len) - 1]. */
rn_u128 rn_block_last(int family, rn_u128 base, unsigned int len);

#endif
