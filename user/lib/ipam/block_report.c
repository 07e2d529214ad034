// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/block_report.h"
#include "ipam/etcd_client.h"
#include "ipam/store.h"

/* This node's allocations, from its own store; none if it has none yet. */
static int local_allocations(const struct rn_ipam_settings *st, struct rn_ipam_allocation **out,
			     struct rn_error *e)
{
	struct rn_ipam_settings local = *st;
	struct rn_alloc_filter all = { 0 };
	struct rn_store *s;
	int n, err;

	*out = NULL;
	local.store = RN_IPAM_STORE_SQLITE;
	err = rn_store_sqlite_open(&s, &local, true, e);
	if (err == -ENOENT)
		return 0;
	if (err)
		return err;
	n = s->ops->list(s, &all, out, e);
	s->ops->close(s);
	return n;
}

int rn_block_report(const struct rn_ipam_settings *st, const char *node, const char *pool,
		    struct rn_block_usage **out, struct rn_error *e)
{
	struct rn_ipam_allocation *allocs = NULL;
	struct rn_block *blocks = NULL;
	struct rn_etcd *c;
	int n, n_allocs = 0;

	*out = NULL;
	if (st->store != RN_IPAM_STORE_ETCD)
		return rn_fail(e, -EINVAL, "ipam: blocks live in etcd (ipam.store \"etcd\")");
	n = rn_etcd_open(&c, st, e);
	if (n)
		return n;
	n = rn_block_list(c, st->prefix, NULL, NULL, pool, &blocks, e);
	rn_etcd_close(c);
	if (n < 0)
		return n;
	if (n)
		n_allocs = local_allocations(st, &allocs, e);
	if (n_allocs < 0) {
		free(blocks);
		return n_allocs;
	}
	*out = calloc((size_t)n + 1, sizeof(**out));
	if (!*out) {
		free(blocks);
		free(allocs);
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	}
	for (int i = 0; i < n; i++) {
		struct rn_block_usage *u = &(*out)[i];
		rn_u128 last = rn_block_last(blocks[i].family, blocks[i].base, blocks[i].len);

		u->b = blocks[i];
		u->size = (unsigned long long)(last - blocks[i].base) + 1;
		u->used_here = strcmp(blocks[i].node, node) ? -1 : 0;
		for (int k = 0; k < n_allocs && u->used_here >= 0; k++) {
			rn_u128 a = rn_addr_to_u128(&allocs[k].addr);

			if (!strcmp(allocs[k].pool, blocks[i].pool) &&
			    allocs[k].addr.family == blocks[i].family &&
			    a >= blocks[i].base && a <= last)
				u->used_here++;
		}
	}
	free(blocks);
	free(allocs);
	return n;
}
