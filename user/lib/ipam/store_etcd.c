// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The cluster store: etcd v3 (key layout in etcd_keys.h). Every write is
 * a compare-and-swap transaction; a transaction that loses a race is
 * retried from fresh reads until the operation's deadline (ipam.timeout_s),
 * after which the call fails with -EAGAIN. Reads are linearizable.
 * This file: the handle, its cache, paged reads, and the pools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipam/etcd_store.h"
#include "monotonic.h"

struct pool_cache *rn_et_cache_find(struct etcd_store *s, const char *pool)
{
	for (unsigned int i = 0; i < s->n_cache; i++)
		if (!strcmp(s->cache[i].name, pool))
			return &s->cache[i];
	return NULL;
}

struct pool_cache *rn_et_cache_get(struct etcd_store *s, const char *pool)
{
	struct pool_cache *c = rn_et_cache_find(s, pool), *grown;

	if (c)
		return c;
	grown = realloc(s->cache, (s->n_cache + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	s->cache = grown;
	c = &s->cache[s->n_cache++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", pool);
	return c;
}

void rn_et_cache_cursor(struct pool_cache *c, const struct rn_etcd_kv *kv, int family)
{
	struct rn_addr a;

	c->has_cursor = kv && kv->value && !rn_etcd_hex_addr(kv->value, kv->value_len, &a) &&
			(family == 0 || a.family == family);
	c->cursor = c->has_cursor ? rn_addr_to_u128(&a) : 0;
	c->cursor_mod = kv ? kv->mod_revision : 0;
}

/* Every key of [start, end) / under a prefix, in pages (etcd_client.h). */
int rn_et_get_all(struct etcd_store *s, const char *start, const char *end, bool keys_only,
		  struct rn_etcd_range *out, struct rn_error *e)
{
	return rn_etcd_get_all(s->c, start, end, keys_only, out, e);
}

int rn_et_get_prefix(struct etcd_store *s, const char *prefix, bool keys_only,
		     struct rn_etcd_range *out, struct rn_error *e)
{
	return rn_etcd_get_prefix(s->c, prefix, keys_only, out, e);
}

/* --- pools --------------------------------------------------------------------- */

/* Every pool record (deleting ones included, flagged). */
int rn_et_load_pool_recs(struct etcd_store *s, struct pool_rec **out, long long *revision,
			 struct rn_error *e)
{
	char start[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	struct pool_rec *recs;
	int err;

	*out = NULL;
	rn_etcd_key_pools(start, s->prefix);
	err = rn_et_get_prefix(s, start, false, &r, e);
	if (err)
		return err;
	recs = calloc(r.n + 1, sizeof(*recs));
	if (!recs) {
		rn_etcd_range_free(&r);
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	}
	for (size_t i = 0; i < r.n; i++) {
		err = rn_et_parse_pool_kv(&r.kvs[i], &recs[i], e);
		if (err) {
			for (size_t j = 0; j < i; j++)
				rn_pool_free(&recs[j].pool);
			free(recs);
			rn_etcd_range_free(&r);
			return err;
		}
	}
	if (revision)
		*revision = r.revision;
	*out = recs;
	err = (int)r.n;
	rn_etcd_range_free(&r);
	return err;
}

void rn_et_free_pool_recs(struct pool_rec *recs, int n)
{
	for (int i = 0; i < n; i++)
		rn_pool_free(&recs[i].pool);
	free(recs);
}

/* Live pools as pool infos (moved out of recs). */
int rn_et_recs_to_infos(struct pool_rec *recs, int n, struct rn_ipam_pool_info **out,
			struct rn_error *e)
{
	struct rn_ipam_pool_info *pools = calloc((size_t)n + 1, sizeof(*pools));
	int k = 0;

	if (!pools)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	for (int i = 0; i < n; i++) {
		if (recs[i].deleting)
			continue;
		pools[k].pool = recs[i].pool;
		pools[k].from_config = recs[i].from_config;
		memset(&recs[i].pool, 0, sizeof(recs[i].pool));
		k++;
	}
	*out = pools;
	return k;
}

/* The pools and their cursors in one read, filling the cache as well. */
int rn_et_pools_load(struct rn_store *base, struct rn_ipam_pool_info **out,
		     struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	char pools[RN_ETCD_KEY_MAX], cursors[RN_ETCD_KEY_MAX], *pend, *cend;
	struct rn_etcd_range res[2];
	struct pool_rec *recs;
	int n = 0, k, err;
	bool ok;

	rn_etcd_deadline(s->c);
	rn_etcd_key_pools(pools, s->prefix);
	rn_etcd_key_cursor(cursors, s->prefix, "");
	pend = rn_etcd_prefix_end(pools);
	cend = rn_etcd_prefix_end(cursors);
	err = !pend || !cend ? rn_fail(e, -ENOMEM, "etcd: out of memory") :
		rn_etcd_txn(s->c, NULL, json_pack("[o, o]",
						  rn_etcd_op_range(pools, pend, 0, false, false),
						  rn_etcd_op_range(cursors, cend, 0, false, false)),
			    NULL, &ok, res, 2, e);
	free(pend);
	free(cend);
	if (err)
		return err;
	recs = calloc(res[0].n + 1, sizeof(*recs));
	if (!recs)
		err = rn_fail(e, -ENOMEM, "etcd: out of memory");
	for (size_t i = 0; !err && i < res[0].n; i++, n++)
		err = rn_et_parse_pool_kv(&res[0].kvs[i], &recs[i], e);
	for (int i = 0; !err && i < n; i++) {
		struct pool_cache *c = rn_et_cache_get(s, recs[i].pool.name);
		char key[RN_ETCD_KEY_MAX];
		const struct rn_etcd_kv *cur = NULL;

		if (!c)
			continue;
		rn_etcd_key_cursor(key, s->prefix, recs[i].pool.name);
		for (size_t j = 0; j < res[1].n && !cur; j++)
			if (!strcmp(res[1].kvs[j].key, key))
				cur = &res[1].kvs[j];
		c->pool_mod = recs[i].mod_revision;
		rn_et_cache_cursor(c, cur, rn_pool_family(&recs[i].pool));
	}
	rn_etcd_range_free(&res[0]);
	rn_etcd_range_free(&res[1]);
	if (err) {
		rn_et_free_pool_recs(recs, n);
		return err;
	}
	k = rn_et_recs_to_infos(recs, n, out, e);
	rn_et_free_pool_recs(recs, n);
	return k;
}

static int et_pool_write(struct rn_store *base, const struct rn_pool *p, bool from_config,
			 enum rn_pool_write mode, struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	char key[RN_ETCD_KEY_MAX], dir[RN_ETCD_KEY_MAX];

	rn_etcd_key_pool(key, s->prefix, p->name);
	rn_etcd_key_pools(dir, s->prefix);
	rn_etcd_deadline(s->c);
	while (!rn_etcd_expired(s->c)) {
		struct rn_ipam_pool_info *infos;
		const struct pool_rec *old = NULL;
		struct pool_rec *recs;
		long long rev;
		bool ok = false;
		char *value, *end;
		int n, k, err = 0;

		n = rn_et_load_pool_recs(s, &recs, &rev, e);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			if (!strcmp(recs[i].pool.name, p->name))
				old = &recs[i];
		/* a pool being deleted exists for IF_MISSING (a node whose config
		 * still lists it opens its store all the same, and its other pools
		 * work; allocations from this one fail until it is gone) */
		if (old && (mode == RN_POOL_CREATE || (old->deleting && mode == RN_POOL_UPSERT)))
			err = rn_fail(e, -EEXIST, "ipam: pool \"%s\" already exists%s", p->name,
				      old->deleting ? " (being deleted: `rdmanetctl pool del "
				      "--force` finishes it)" : "");
		else if (old && (mode == RN_POOL_IF_MISSING || (rn_pool_equal(&old->pool, p) &&
								 old->from_config == from_config)))
			err = 1;
		if (err) {
			rn_et_free_pool_recs(recs, n);
			return err > 0 ? 0 : err;
		}
		k = rn_et_recs_to_infos(recs, n, &infos, e);
		err = k < 0 ? k : rn_pool_check_against(p, infos, k, e);
		/* an allocation racing this read lands in a pool whose current
		 * definition covers it, which the overlap check (and the pools/
		 * revision compared below) already rules out */
		if (!err && k >= 0)
			err = rn_pool_check_held(base, p, infos, k, e);
		if (k >= 0)
			rn_ipam_pools_free(infos, k);
		if (err) {
			rn_et_free_pool_recs(recs, n);
			return err;
		}
		value = rn_et_pool_value(p, from_config, false);
		end = rn_etcd_prefix_end(dir);
		/* nothing under pools/ changed since the overlap check read it */
		err = rn_etcd_txn(s->c, json_pack("[o, o]", rn_etcd_cmp_mod_range_less(dir, end,
											rev + 1),
						  old ? rn_etcd_cmp_mod(key, old->mod_revision) :
							rn_etcd_cmp_create(key, 0)),
				  json_pack("[o]", rn_etcd_op_put(key, value)), NULL, &ok, NULL, 0,
				  e);
		free(value);
		free(end);
		rn_et_free_pool_recs(recs, n);
		if (err)
			return err;
		if (ok)
			return 1;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: pool \"%s\": concurrent pool changes did not "
		       "settle within %u s: try again later", p->name,
		       s->base.settings->timeout_ms / 1000);
}

/* --- pool deletion -------------------------------------------------------------------- */

/* Marks a pool as being deleted: allocations compare the pool key, so none
 * lands once the mark is in. */
static int mark_deleting(struct etcd_store *s, const char *pkey, const struct pool_rec *rec,
			 struct rn_error *e)
{
	char *value = rn_et_pool_value(&rec->pool, rec->from_config, true);
	bool ok;
	int err;

	err = rn_etcd_txn(s->c, json_pack("[o]", rn_etcd_cmp_mod(pkey, rec->mod_revision)),
			  json_pack("[o]", rn_etcd_op_put(pkey, value)), NULL, &ok, NULL, 0, e);
	free(value);
	return err;
}

/* Releases every address of a pool (each with its owner record). Every
 * address is one step with a deadline of its own: a large pool takes as
 * long as it takes, in one run, while a store that stops answering still
 * fails within timeout_s. A run that is interrupted leaves the pool marked
 * and the rest of its addresses for the next run. */
static int drop_allocations(struct etcd_store *s, const char *name, const char *ips,
			    const char *end, int *dropped, struct rn_error *e)
{
	struct rn_etcd_range all;
	int err = rn_et_get_all(s, ips, end, true, &all, e);

	for (size_t i = 0; !err && i < all.n; i++) {
		char pool[RN_POOL_NAME_MAX];
		struct rn_addr a;
		int r;

		if (rn_etcd_parse_ip_key(all.kvs[i].key, s->prefix, pool, sizeof(pool), &a))
			continue;
		rn_etcd_deadline(s->c);
		r = rn_et_release_ip_once(s, name, &a, e);
		if (r < 0)
			err = r;
		else
			*dropped += r;
	}
	rn_etcd_range_free(&all);
	return err;
}

static int et_pool_delete(struct rn_store *base, const char *name, bool force,
			  struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	char pkey[RN_ETCD_KEY_MAX], ckey[RN_ETCD_KEY_MAX], ips[RN_ETCD_KEY_MAX], *end;
	int dropped = 0, err = 0;
	long long stuck_at = -1;
	bool done = false;

	rn_etcd_key_pool(pkey, s->prefix, name);
	rn_etcd_key_cursor(ckey, s->prefix, name);
	rn_etcd_key_ips(ips, s->prefix, name);
	end = rn_etcd_prefix_end(ips);
	if (!end)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	/* each pass (read, mark, drop, delete) gets its own deadline */
	while (!err && !done && (rn_etcd_deadline(s->c), true)) {
		struct rn_etcd_range res[2];
		struct pool_rec rec = { 0 };
		long long held;
		bool ok;

		/* the pool and how many addresses it holds, in one read */
		err = rn_etcd_txn(s->c, NULL, json_pack("[o, o]",
				  rn_etcd_op_range(pkey, NULL, 0, false, false),
				  rn_etcd_op_range(ips, end, 0, false, true)),
				  NULL, &ok, res, 2, e);
		if (err)
			break;
		held = res[1].count;
		if (!res[0].n)
			err = rn_fail(e, -ENOENT, "ipam: pool \"%s\" not found", name);
		else
			err = rn_et_parse_pool_kv(&res[0].kvs[0], &rec, e);
		if (!err && held && !force)
			err = rn_fail(e, -EBUSY, "ipam: pool \"%s\" still holds %lld address%s; "
				      "release them first or force the deletion", name, held,
				      held == 1 ? "" : "es");
		else if (!err && held && !rec.deleting)
			err = mark_deleting(s, pkey, &rec, e);
		else if (!err && held && held == stuck_at)
			/* a pass dropped nothing and the count did not move: keys
			 * this binary cannot release (they would loop for ever) */
			err = rn_fail(e, -EIO, "ipam: etcd: pool \"%s\": %lld address keys under "
				      "%s cannot be released", name, held, ips);
		else if (!err && held) {
			int before = dropped;

			err = drop_allocations(s, name, ips, end, &dropped, e);
			stuck_at = dropped == before ? held : -1;
		}
		else if (!err)
			/* empty: delete unless an allocation landed after the count */
			err = rn_etcd_txn(s->c, json_pack("[o, o]",
					  rn_etcd_cmp_mod(pkey, res[0].kvs[0].mod_revision),
					  rn_etcd_cmp_mod_range_less(ips, end,
								     res[1].revision + 1)),
					  json_pack("[o, o]", rn_etcd_op_delete(pkey, NULL),
						    rn_etcd_op_delete(ckey, NULL)),
					  NULL, &done, NULL, 0, e);
		rn_pool_free(&rec.pool);
		rn_etcd_range_free(&res[0]);
		rn_etcd_range_free(&res[1]);
	}
	free(end);
	return err ? err : dropped;
}

static void et_close(struct rn_store *base)
{
	struct etcd_store *s = to_et(base);

	if (!s)
		return;
	rn_etcd_close(s->c);
	free(s->cache);
	free(s);
}

static const struct rn_store_ops etcd_ops = {
	.name = "etcd",
	.close = et_close,
	.pools_load = rn_et_pools_load,
	.pool_write = et_pool_write,
	.pool_delete = et_pool_delete,
	.allocate = rn_et_allocate,
	.release_owner = rn_et_release_owner,
	.release_ip = rn_et_release_ip,
	.list = rn_et_list,
	.count = rn_et_count,
	.check = rn_et_check,
};

int rn_store_etcd_open(struct rn_store **out, const struct rn_ipam_settings *st,
		       struct rn_error *e)
{
	struct etcd_store *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	s->base.ops = &etcd_ops;
	s->base.settings = st;
	s->prefix = st->prefix;
	s->seed = (unsigned int)getpid() ^ (unsigned int)rn_monotonic_ms();
	err = rn_etcd_open(&s->c, st, e);
	if (err) {
		free(s);
		return err;
	}
	*out = &s->base;
	return 0;
}
