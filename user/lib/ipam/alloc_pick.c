// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

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

static const struct rn_alloc_prefer *prefer;
static unsigned int n_prefer;

void rn_alloc_prefer_set(const struct rn_alloc_prefer *p, unsigned int n)
{
	prefer = n ? p : NULL;
	n_prefer = n;
}

/* 1 if addr is allocated (the iterator is left positioned anywhere). */
static int allocated(struct rn_alloc_iter *it, rn_u128 addr, struct rn_error *e)
{
	rn_u128 taken;
	int r = it->seek(it->ctx, addr, e);

	if (r < 0)
		return r;
	r = it->next(it->ctx, &taken, e);
	if (r < 0)
		return r;
	return r == 1 && taken == addr;
}

/* The (*skip + 1)-th preferred address of p that is usable and free. */
static int preferred(const struct rn_pool *p, unsigned int *skip, struct rn_alloc_iter *it,
		     rn_u128 *out, struct rn_error *e)
{
	for (unsigned int i = 0; i < n_prefer; i++) {
		int r;

		if (strcmp(prefer[i].pool, p->name) ||
		    !rn_seg_contains(p->segs, p->n_segs, prefer[i].addr))
			continue;
		r = allocated(it, prefer[i].addr, e);
		if (r < 0)
			return r;
		if (r)
			continue;
		if (*skip == 0) {
			*out = prefer[i].addr;
			return 1;
		}
		(*skip)--;
	}
	return 0;
}

int rn_alloc_pick(const struct rn_pool *p, bool has_cursor, rn_u128 cursor, unsigned int skip,
		  struct rn_alloc_iter *it, rn_u128 *out, struct rn_error *e)
{
	rn_u128 first, last;
	bool found = false;
	int r;

	if (!p->n_segs)
		return 0;	/* nothing usable (a pool cut down to a node's blocks) */
	r = preferred(p, &skip, it, out, e);
	if (r)
		return r;
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
