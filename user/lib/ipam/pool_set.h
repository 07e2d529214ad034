/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Sorted, disjoint runs of 128-bit integers (a pool's usable addresses). */
#ifndef RDMANET_IPAM_POOL_SET_H
#define RDMANET_IPAM_POOL_SET_H

#include <stdbool.h>

#include "ipam/pool.h"

void rn_seg_sort(struct rn_pool_seg *s, unsigned int n);
/* Sorts and joins overlapping or adjacent runs in place; returns the count. */
unsigned int rn_seg_merge(struct rn_pool_seg *s, unsigned int n);
/* Removes holes (any order, may overlap; sorted in place) from the sorted
 * disjoint *segs, reallocating it. */
int rn_seg_subtract(struct rn_pool_seg **segs, unsigned int *n,
		    struct rn_pool_seg *holes, unsigned int n_holes);
/* Keeps of the sorted disjoint *segs only what the sorted disjoint keep
 * holds, reallocating it. */
int rn_seg_intersect(struct rn_pool_seg **segs, unsigned int *n,
		     const struct rn_pool_seg *keep, unsigned int n_keep);
rn_u128 rn_seg_size(const struct rn_pool_seg *s, unsigned int n);
bool rn_seg_contains(const struct rn_pool_seg *s, unsigned int n, rn_u128 v);
/* The smallest member >= v, if any. */
bool rn_seg_next(const struct rn_pool_seg *s, unsigned int n, rn_u128 v, rn_u128 *out);
bool rn_seg_first_shared(const struct rn_pool_seg *a, unsigned int na,
			 const struct rn_pool_seg *b, unsigned int nb, rn_u128 *shared);

#endif
