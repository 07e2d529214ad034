// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the pool parser and validator (rn_pool_from_text) on
 * arbitrary bytes. Nothing may crash, leak or read past the input; a
 * rejection must say why; an accepted pool must survive a round trip
 * through its canonical JSON unchanged, its usable set must be non-empty,
 * sorted and disjoint, and it must overlap itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/pool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_segments(const struct rn_pool *p)
{
	if (!p->n_segs || !p->size)
		abort();
	for (unsigned int i = 0; i < p->n_segs; i++) {
		struct rn_addr lo;

		if (p->segs[i].lo > p->segs[i].hi)
			abort();
		if (i && p->segs[i].lo <= p->segs[i - 1].hi)
			abort();
		rn_addr_from_u128(&lo, rn_pool_family(p), p->segs[i].lo);
		if (!rn_pool_usable(p, &lo) || !rn_prefix_contains(&p->subnet, &lo))
			abort();
		if (p->has_gateway && rn_addr_equal(&lo, &p->gateway))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_error e = { 0 };
	struct rn_pool p, q;
	char *s = malloc(size + 1), *text;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (rn_pool_from_text(&p, s, "fuzz", &e)) {
		if (!e.msg[0] || e.code >= 0)
			abort();	/* a rejection must say why */
		free(s);
		return 0;
	}
	check_segments(&p);
	if (!rn_pool_check_overlap(&p, &p, NULL))
		abort();
	text = rn_pool_to_text(&p);
	if (!text || rn_pool_from_text(&q, text, "roundtrip", &e) || !rn_pool_equal(&p, &q) ||
	    p.size != q.size || p.n_segs != q.n_segs)
		abort();
	free(text);
	rn_pool_free(&q);
	rn_pool_free(&p);
	free(s);
	return 0;
}
