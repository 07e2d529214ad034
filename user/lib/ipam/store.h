/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The one interface both stores (store_sqlite.c, store_etcd.c) implement.
 * ipam.c resolves requests into plans (which pools, per family, in order);
 * a store carries a plan out atomically: every address it returns is
 * durable, held by exactly one owner, and either all of a plan's families
 * are allocated or none. */
#ifndef RDMANET_IPAM_STORE_H
#define RDMANET_IPAM_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "ipam/ipam.h"
#include "ipam/ipam_settings.h"
#include "ipam/pool.h"

struct rn_store;

/* How a pool is written. */
enum rn_pool_write {
	RN_POOL_CREATE,		/* -EEXIST if the name exists */
	RN_POOL_IF_MISSING,	/* no-op if the name exists */
	RN_POOL_UPSERT,		/* replace a different definition */
};

struct rn_alloc_family {
	int family;			/* AF_INET or AF_INET6 */
	unsigned int n;
	const struct rn_pool *pools[RN_IPAM_MAX_POOLS];	/* in order of preference */
	/* Per pool: NULL, the whole pool; else only the addresses within
	 * these sorted disjoint runs (a node's blocks of a block pool; none
	 * if n_within is 0). Only the SQLite store takes it. */
	const struct rn_pool_seg *within[RN_IPAM_MAX_POOLS];
	unsigned int n_within[RN_IPAM_MAX_POOLS];
};

struct rn_alloc_plan {
	const char *container_id, *ifname, *pod_namespace, *pod_name, *node;
	unsigned int n_families;
	struct rn_alloc_family fam[2];
};

/* Which allocations a listing wants; NULL/empty fields match all. */
struct rn_alloc_filter {
	const char *pool;
	const struct rn_addr *addr;
	const char *container_id;
	const char *ifname;
};

struct rn_store_ops {
	const char *name;
	void (*close)(struct rn_store *s);
	/* Every stored pool (validated) with its from_config flag. */
	int (*pools_load)(struct rn_store *s, struct rn_ipam_pool_info **out, struct rn_error *e);
	/* Writes a pool after checking, atomically with the write, that it
	 * overlaps no other stored pool. Returns 1 if written, 0 if not. */
	int (*pool_write)(struct rn_store *s, const struct rn_pool *p, bool from_config,
			  enum rn_pool_write mode, struct rn_error *e);
	/* Returns the number of allocations dropped with the pool. */
	int (*pool_delete)(struct rn_store *s, const char *name, bool force, struct rn_error *e);
	/* Fills out[0..n_families-1] in plan order: addresses the owner already
	 * holds for a family, new ones otherwise. */
	int (*allocate)(struct rn_store *s, const struct rn_alloc_plan *plan,
			struct rn_ipam_allocation out[2], struct rn_error *e);
	int (*release_owner)(struct rn_store *s, const char *container_id, const char *ifname,
			     struct rn_error *e);
	int (*release_ip)(struct rn_store *s, const char *pool, const struct rn_addr *addr,
			  struct rn_error *e);
	/* Matching allocations sorted by pool and address; *out malloc'd. */
	int (*list)(struct rn_store *s, const struct rn_alloc_filter *f,
		    struct rn_ipam_allocation **out, struct rn_error *e);
	/* Allocation counts of every pool, in the order of pools[]. */
	int (*count)(struct rn_store *s, struct rn_ipam_pool_info *pools, int n,
		     struct rn_error *e);
	/* Store-specific invariants (see rn_ipam_check); returns problems found. */
	int (*check)(struct rn_store *s, char *report, size_t size, struct rn_error *e);
};

struct rn_store {
	const struct rn_store_ops *ops;
	const struct rn_ipam_settings *settings;
};

/* read_only: nothing is created or written (-ENOENT if there is no store
 * yet); the handle's reads see what writers committed. */
int rn_store_sqlite_open(struct rn_store **out, const struct rn_ipam_settings *st,
			 bool read_only, struct rn_error *e);
int rn_store_etcd_open(struct rn_store **out, const struct rn_ipam_settings *st,
		       struct rn_error *e);

/* A store that did not answer (why: its error, -EAGAIN): every call fails
 * with that error (store_down.c). */
int rn_store_down_open(struct rn_store **out, const struct rn_ipam_settings *st,
		       const struct rn_error *why, struct rn_error *e);

/* Checks p against every other pool in pools[0..n-1] (same name skipped). */
int rn_pool_check_against(const struct rn_pool *p, const struct rn_ipam_pool_info *pools,
			  int n, struct rn_error *e);

/* Checks p's usable set against the live allocations of every other pool
 * in pools[0..n-1] of its family that shares its scope (rn_pools_share_scope),
 * whatever those pools' current definitions: a pool redefined away from
 * addresses it still holds keeps them until they are released, and no
 * pool may be written to hand them out meanwhile. -EBUSY naming the first
 * address and its holder. Stores call it in the transaction of the write. */
int rn_pool_check_held(struct rn_store *s, const struct rn_pool *p,
		       const struct rn_ipam_pool_info *pools, int n, struct rn_error *e);

/* An allocation record for a plan's owner. */
void rn_alloc_fill(struct rn_ipam_allocation *a, const struct rn_alloc_plan *plan,
		   const char *pool, const struct rn_addr *addr, int64_t created);

/* Appends one line to a check report (kept NUL-terminated, truncated). */
void rn_check_note(char *report, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));


#endif
