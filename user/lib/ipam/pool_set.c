// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The usable set of a pool as sorted, disjoint runs of 128-bit integers:
 * membership, size and overlap between pools are merges over short lists,
 * whatever the size of the subnet (an IPv6 /64 is one run). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/pool.h"
#include "ipam/pool_set.h"

rn_u128 rn_addr_to_u128(const struct rn_addr *a)
{
	size_t n = rn_addr_len(a);
	rn_u128 v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | a->b[i];
	return v;
}

void rn_addr_from_u128(struct rn_addr *a, int family, rn_u128 v)
{
	size_t n = family == AF_INET ? 4 : 16;

	memset(a, 0, sizeof(*a));
	a->family = family;
	for (size_t i = n; i-- > 0;) {
		a->b[i] = (uint8_t)v;
		v >>= 8;
	}
}

unsigned long long rn_u128_sat64(rn_u128 v)
{
	return v > (rn_u128)~0ULL ? ~0ULL : (unsigned long long)v;
}

static int seg_cmp(const void *a, const void *b)
{
	const struct rn_pool_seg *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void rn_seg_sort(struct rn_pool_seg *s, unsigned int n)
{
	qsort(s, n, sizeof(*s), seg_cmp);
}

unsigned int rn_seg_merge(struct rn_pool_seg *s, unsigned int n)
{
	unsigned int out = 0;

	rn_seg_sort(s, n);
	for (unsigned int i = 0; i < n; i++) {
		if (out && (s[out - 1].hi == ~(rn_u128)0 || s[i].lo <= s[out - 1].hi + 1)) {
			if (s[i].hi > s[out - 1].hi)
				s[out - 1].hi = s[i].hi;
			continue;
		}
		s[out++] = s[i];
	}
	return out;
}

int rn_seg_subtract(struct rn_pool_seg **segs, unsigned int *n,
		    struct rn_pool_seg *holes, unsigned int n_holes)
{
	/* every hole can split one run in two: room for n + n_holes runs */
	struct rn_pool_seg *out = calloc(*n + n_holes + 1, sizeof(*out));
	unsigned int o = 0, h = 0;

	if (!out)
		return -ENOMEM;
	n_holes = rn_seg_merge(holes, n_holes);
	for (unsigned int i = 0; i < *n; i++) {
		rn_u128 lo = (*segs)[i].lo, hi = (*segs)[i].hi;
		bool alive = true;

		while (h < n_holes && holes[h].hi < lo)
			h++;
		for (unsigned int k = h; alive && k < n_holes && holes[k].lo <= hi; k++) {
			if (holes[k].lo > lo)
				out[o++] = (struct rn_pool_seg){ lo, holes[k].lo - 1 };
			if (holes[k].hi >= hi)
				alive = false;
			else
				lo = holes[k].hi + 1;
		}
		if (alive)
			out[o++] = (struct rn_pool_seg){ lo, hi };
	}
	free(*segs);
	*segs = out;
	*n = o;
	return 0;
}

int rn_seg_intersect(struct rn_pool_seg **segs, unsigned int *n,
		     const struct rn_pool_seg *keep, unsigned int n_keep)
{
	/* each run of the result starts a run of one side: at most n + n_keep */
	struct rn_pool_seg *out = calloc(*n + n_keep + 1, sizeof(*out));
	unsigned int o = 0, i = 0, k = 0;

	if (!out)
		return -ENOMEM;
	while (i < *n && k < n_keep) {
		rn_u128 lo = (*segs)[i].lo > keep[k].lo ? (*segs)[i].lo : keep[k].lo;
		rn_u128 hi = (*segs)[i].hi < keep[k].hi ? (*segs)[i].hi : keep[k].hi;

		if (lo <= hi)
			out[o++] = (struct rn_pool_seg){ lo, hi };
		if ((*segs)[i].hi < keep[k].hi)
			i++;
		else
			k++;
	}
	free(*segs);
	*segs = out;
	*n = o;
	return 0;
}

rn_u128 rn_seg_size(const struct rn_pool_seg *s, unsigned int n)
{
	rn_u128 total = 0;

	for (unsigned int i = 0; i < n; i++) {
		rn_u128 len = s[i].hi - s[i].lo + 1;

		/* a whole IPv6 space wraps to 0: saturate */
		total = len == 0 || total + len < total ? ~(rn_u128)0 : total + len;
	}
	return total;
}

bool rn_seg_contains(const struct rn_pool_seg *s, unsigned int n, rn_u128 v)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (v < s[mid].lo)
			hi = mid;
		else if (v > s[mid].hi)
			lo = mid + 1;
		else
			return true;
	}
	return false;
}

bool rn_seg_next(const struct rn_pool_seg *s, unsigned int n, rn_u128 v, rn_u128 *out)
{
	unsigned int lo = 0, hi = n;

	/* first run whose hi >= v */
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (s[mid].hi < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n)
		return false;
	*out = v < s[lo].lo ? s[lo].lo : v;
	return true;
}

bool rn_seg_first_shared(const struct rn_pool_seg *a, unsigned int na,
			 const struct rn_pool_seg *b, unsigned int nb, rn_u128 *shared)
{
	unsigned int i = 0, j = 0;

	while (i < na && j < nb) {
		if (a[i].hi < b[j].lo) {
			i++;
		} else if (b[j].hi < a[i].lo) {
			j++;
		} else {
			*shared = a[i].lo > b[j].lo ? a[i].lo : b[j].lo;
			return true;
		}
	}
	return false;
}

int rn_pool_family(const struct rn_pool *p)
{
	return p->subnet.addr.family;
}

bool rn_pool_usable(const struct rn_pool *p, const struct rn_addr *a)
{
	return a->family == rn_pool_family(p) &&
	       rn_seg_contains(p->segs, p->n_segs, rn_addr_to_u128(a));
}

bool rn_pool_serves_master(const struct rn_pool *p, const char *master)
{
	if (!master || !master[0] || !p->n_masters)
		return true;
	for (unsigned int i = 0; i < p->n_masters; i++)
		if (!strcmp(p->masters[i], master))
			return true;
	return false;
}

bool rn_pool_serves_node(const struct rn_pool *p, const char *node)
{
	if (!node || !node[0] || !p->n_nodes)
		return true;
	for (unsigned int i = 0; i < p->n_nodes; i++)
		if (!strcmp(p->nodes[i], node))
			return true;
	return false;
}

static bool masters_intersect(const struct rn_pool *a, const struct rn_pool *b)
{
	if (!a->n_masters || !b->n_masters)
		return true;
	for (unsigned int i = 0; i < a->n_masters; i++)
		if (rn_pool_serves_master(b, a->masters[i]))
			return true;
	return false;
}

static bool nodes_intersect(const struct rn_pool *a, const struct rn_pool *b)
{
	if (!a->n_nodes || !b->n_nodes)
		return true;
	for (unsigned int i = 0; i < a->n_nodes; i++)
		if (rn_pool_serves_node(b, a->nodes[i]))
			return true;
	return false;
}

bool rn_pools_share_scope(const struct rn_pool *a, const struct rn_pool *b)
{
	return masters_intersect(a, b) && nodes_intersect(a, b);
}

int rn_pool_check_overlap(const struct rn_pool *a, const struct rn_pool *b, struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	struct rn_addr addr;
	rn_u128 shared;

	if (rn_pool_family(a) != rn_pool_family(b) || !masters_intersect(a, b))
		return 0;
	if (!rn_seg_first_shared(a->segs, a->n_segs, b->segs, b->n_segs, &shared))
		return 0;
	rn_addr_from_u128(&addr, rn_pool_family(a), shared);
	return rn_fail(e, -EINVAL,
		       "pool \"%s\" overlaps pool \"%s\" on a shared master (both can hand out %s)",
		       a->name, b->name, rn_addr_format(&addr, buf));
}
