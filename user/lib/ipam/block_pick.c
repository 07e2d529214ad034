// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The blocks of a pool as a sequence (block_pick.h). */
#include <stdint.h>

#include "ipam/block_claim.h"
#include "ipam/block_pick.h"
#include "ipam/pool_set.h"

static unsigned int host_bits(const struct rn_pool *p)
{
	unsigned int bits = rn_pool_family(p) == AF_INET ? 32 : 128;

	return p->block >= bits ? 0 : bits - p->block;
}

/* Block numbers (address >> host bits) are what is counted: segment i's
 * blocks are [lo >> h, hi >> h], less its first if the segment before it
 * ends in that block (segments are sorted and disjoint). */
static rn_u128 block_no(const struct rn_pool *p, rn_u128 a)
{
	unsigned int h = host_bits(p);

	return h >= 128 ? 0 : a >> h;
}

static bool seg_blocks(const struct rn_pool *p, unsigned int i, rn_u128 *first, rn_u128 *last)
{
	*first = block_no(p, p->segs[i].lo);
	*last = block_no(p, p->segs[i].hi);
	if (i && block_no(p, p->segs[i - 1].hi) == *first) {
		if (*first == *last)
			return false;
		(*first)++;
	}
	return true;
}

static rn_u128 base_of(const struct rn_pool *p, rn_u128 no)
{
	unsigned int h = host_bits(p);

	return h >= 128 ? 0 : no << h;
}

rn_u128 rn_block_count(const struct rn_pool *p)
{
	rn_u128 n = 0, first, last, add;

	for (unsigned int i = 0; i < p->n_segs; i++) {
		if (!seg_blocks(p, i, &first, &last))
			continue;
		add = last - first + 1;
		if (!add || n + add < n)
			return ~(rn_u128)0;
		n += add;
	}
	return n;
}

bool rn_block_nth(const struct rn_pool *p, rn_u128 k, rn_u128 *base)
{
	rn_u128 first, last;

	for (unsigned int i = 0; i < p->n_segs; i++) {
		if (!seg_blocks(p, i, &first, &last))
			continue;
		if (k <= last - first) {
			*base = base_of(p, first + k);
			return true;
		}
		k -= last - first + 1;
	}
	return false;
}

bool rn_block_after(const struct rn_pool *p, rn_u128 base, rn_u128 *next)
{
	rn_u128 last = rn_block_last(rn_pool_family(p), base, p->block), a;

	if (last == ~(rn_u128)0 || (rn_pool_family(p) == AF_INET && last >= 0xffffffffu))
		return false;
	if (!rn_seg_next(p->segs, p->n_segs, last + 1, &a))
		return false;
	*next = base_of(p, block_no(p, a));
	return true;
}

bool rn_block_start(const struct rn_pool *p, const char *node, rn_u128 *base)
{
	rn_u128 n = rn_block_count(p);
	uint64_t h = 14695981039346656037ULL;

	for (const unsigned char *s = (const unsigned char *)node; *s; s++) {
		h ^= *s;
		h *= 1099511628211ULL;		/* FNV-1a */
	}
	/* mixed (murmur3's finalizer): names that differ in their last
	 * character ("node-1", "node-2") land far apart, not in neighbours */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return n && rn_block_nth(p, (rn_u128)h % n, base);
}
