// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "ipam/alloc_pick.h"
#include "ipam/pool_set.h"

/* The first free usable address in [lo, hi], if any. */
static int first_free(const struct rn_pool *p, rn_u128 lo, rn_u128 hi, struct rn_alloc_iter *it,
		      rn_u128 *out, struct rn_error *e)
{
	rn_u128 cand, taken;
	int r;

	if (lo > hi || !rn_seg_next(p->segs, p->n_segs, lo, &cand) || cand > hi)
		return 0;
	r = it->seek(it->ctx, cand, e);
	if (r < 0)
		return r;
	for (;;) {
		r = it->next(it->ctx, &taken, e);
		if (r < 0)
			return r;
		if (r == 0 || taken > cand)
			break;
		if (taken < cand)
			continue;
		/* cand is taken: the next usable address */
		if (cand == hi || !rn_seg_next(p->segs, p->n_segs, cand + 1, &cand) || cand > hi)
			return 0;
	}
	*out = cand;
	return 1;
}

int rn_alloc_pick(const struct rn_pool *p, bool has_cursor, rn_u128 cursor,
		  struct rn_alloc_iter *it, rn_u128 *out, struct rn_error *e)
{
	rn_u128 first = p->segs[0].lo, last = p->segs[p->n_segs - 1].hi;
	int r;

	if (!has_cursor || cursor >= last || cursor < first)
		return first_free(p, first, last, it, out, e);
	r = first_free(p, cursor + 1, last, it, out, e);
	if (r)
		return r;
	return first_free(p, first, cursor, it, out, e);
}
