/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Round-robin choice of a free address in a pool, shared by both stores:
 * the first usable address after the pool's cursor (the last one handed
 * out) that is not allocated, wrapping to the start of the pool once. A
 * just-released address is therefore the last to be reused. The store
 * supplies its allocated addresses in ascending order through an iterator,
 * and the pick walks them in step with the usable runs, so its cost is the
 * number of allocated addresses between the cursor and the first gap. */
#ifndef RDMANET_IPAM_ALLOC_PICK_H
#define RDMANET_IPAM_ALLOC_PICK_H

#include <stdbool.h>

#include "error.h"
#include "ipam/pool.h"

struct rn_alloc_iter {
	/* Positions at the first allocated address >= from. */
	int (*seek)(void *ctx, rn_u128 from, struct rn_error *e);
	/* The next allocated address in ascending order: 1, or 0 at the end. */
	int (*next)(void *ctx, rn_u128 *addr, struct rn_error *e);
	void *ctx;
};

/* Returns 1 with *out set, 0 if the pool is full, or a negative error.
 * skip > 0 passes over that many free addresses first (concurrent
 * allocators spreading out after a lost race); if fewer are free, the last
 * free one found is taken. */
int rn_alloc_pick(const struct rn_pool *p, bool has_cursor, rn_u128 cursor, unsigned int skip,
		  struct rn_alloc_iter *it, rn_u128 *out, struct rn_error *e);

/* Addresses this process would rather have (the CNI plugin's ADD: those
 * rdmanetd found free on the wire moments ago, ipam/precheck_table.h): the
 * pick takes the first of a pool's that is usable in the pool (a pool cut
 * down to a node's blocks included) and not allocated, in the order given,
 * before the round-robin one; skip passes over them as over any free
 * address. Set for the whole process until set again (n 0: none); the
 * array must stay valid meanwhile. */
struct rn_alloc_prefer {
	const char *pool;
	rn_u128 addr;
};
void rn_alloc_prefer_set(const struct rn_alloc_prefer *p, unsigned int n);

#endif
