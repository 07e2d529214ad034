// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "ipam/alloc_pick.h"
#include "ipam/pool_set.h"

/* The (*skip + 1)-th free usable address in [lo, hi], if any; *skip counts
 * down the free addresses passed over, *found keeps the last one. */
static int nth_free(const struct rn_pool *p, rn_u128 lo, rn_u128 hi, unsigned int *skip,
		    struct rn_alloc_iter *it, bool *found, rn_u128 *out, struct rn_error *e)
{
	bool have_taken = false, at_end = false;
	rn_u128 cand, taken = 0;
	int r;

	if (lo > hi || !rn_seg_next(p->segs, p->n_segs, lo, &cand) || cand > hi)
		return 0;
	r = it->seek(it->ctx, cand, e);
	if (r < 0)
		return r;
	for (;;) {
		/* the smallest allocated address >= cand, if any */
		while (!at_end && (!have_taken || taken < cand)) {
			r = it->next(it->ctx, &taken, e);
			if (r < 0)
				return r;
			have_taken = r == 1;
			at_end = r == 0;
		}
		if (!have_taken || taken != cand) {
			*found = true;
			*out = cand;
			if (*skip == 0)
				return 1;
			(*skip)--;
		}
		/* the next usable address */
		if (cand == hi || !rn_seg_next(p->segs, p->n_segs, cand + 1, &cand) || cand > hi)
			return 0;
	}
}

int rn_alloc_pick(const struct rn_pool *p, bool has_cursor, rn_u128 cursor, unsigned int skip,
		  struct rn_alloc_iter *it, rn_u128 *out, struct rn_error *e)
{
	rn_u128 first, last;
	bool found = false;
	int r;

	if (!p->n_segs)
		return 0;	/* nothing usable (a pool cut down to a node's blocks) */
	first = p->segs[0].lo;
	last = p->segs[p->n_segs - 1].hi;

	if (!has_cursor || cursor >= last || cursor < first) {
		r = nth_free(p, first, last, &skip, it, &found, out, e);
	} else {
		r = nth_free(p, cursor + 1, last, &skip, it, &found, out, e);
		if (r == 0)
			r = nth_free(p, first, cursor, &skip, it, &found, out, e);
	}
	if (r < 0)
		return r;
	return r == 1 || found;
}
