// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Allocation in the etcd store: picks made from what the handle knows, one
 * compare-and-swap transaction per attempt, lost races refreshed from the
 * transaction's own failure branch. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipam/alloc_pick.h"
#include "ipam/etcd_store.h"
#include "ipam/pool_set.h"

/* --- allocation --------------------------------------------------------------------- */

/* Walks a pool's allocated address keys in order, a page at a time. A page
 * prefetched by a lost transaction (see allocate_once) is used first when
 * it covers the position sought. */
struct scan_ctx {
	struct etcd_store *s;
	const struct rn_pool *pool;
	char end[RN_ETCD_KEY_MAX];
	char from[RN_ETCD_KEY_MAX];
	struct rn_etcd_range page;
	size_t pos;
	bool loaded;
	struct rn_etcd_range *pre;	/* prefetched page, taken over on use */
	rn_u128 pre_from;		/* the address it starts at */
	bool guess;			/* read nothing: take the next usable address */
};

static int scan_seek(void *arg, rn_u128 from, struct rn_error *e)
{
	struct scan_ctx *c = arg;
	struct rn_addr a;

	(void)e;
	rn_etcd_range_free(&c->page);
	rn_addr_from_u128(&a, rn_pool_family(c->pool), from);
	rn_etcd_key_ip(c->from, c->s->prefix, c->pool->name, &a);
	c->pos = 0;
	c->loaded = false;
	if (c->pre && from >= c->pre_from) {
		/* keys below `from` in it are skipped by the pick */
		c->page = *c->pre;
		memset(c->pre, 0, sizeof(*c->pre));
		c->pre = NULL;
		c->loaded = true;
	}
	return 0;
}

static int scan_next(void *arg, rn_u128 *addr, struct rn_error *e)
{
	struct scan_ctx *c = arg;
	char pool[RN_POOL_NAME_MAX];
	struct rn_addr a;
	int err;

	if (c->guess)
		return 0;
	while (c->pos == c->page.n) {
		if (c->loaded && !c->page.more)
			return 0;
		if (c->loaded && c->page.n)
			snprintf(c->from, sizeof(c->from), "%s\x01",
				 c->page.kvs[c->page.n - 1].key);
		rn_etcd_range_free(&c->page);
		err = rn_etcd_get(c->s->c, c->from, c->end, SCAN_PAGE, true, false, &c->page, e);
		if (err)
			return err;
		c->loaded = true;
		c->pos = 0;
		if (!c->page.n)
			return 0;
	}
	if (rn_etcd_parse_ip_key(c->page.kvs[c->pos].key, c->s->prefix, pool, sizeof(pool), &a) ||
	    a.family != rn_pool_family(c->pool))
		return rn_fail(e, -EIO, "etcd: malformed address key %s", c->page.kvs[c->pos].key);
	c->pos++;
	*addr = rn_addr_to_u128(&a);
	return 1;
}

/* What one read of the plan's keys gives. */
struct plan_state {
	struct owner_rec owner;
	bool owner_known;		/* read, not assumed absent */
	unsigned int n_pools;
	struct {
		const struct rn_pool *want;	/* the plan's pool */
		struct pool_rec rec;		/* as stored now */
		bool has_cursor;
		rn_u128 cursor;
		long long cursor_mod;
		struct rn_etcd_range pre;	/* allocated keys from pre_from on */
		rn_u128 pre_from;
		bool has_pre;
	} p[2 * RN_IPAM_MAX_POOLS];
};

static void plan_state_free(struct plan_state *ps)
{
	for (unsigned int i = 0; i < ps->n_pools; i++) {
		rn_pool_free(&ps->p[i].rec.pool);
		rn_etcd_range_free(&ps->p[i].pre);
	}
}

/* The reads that make a plan_state: the owner record, and each planned
 * pool's definition and cursor (1 + 2 n ops, in that order). */
static json_t *plan_reads(struct etcd_store *s, const struct rn_alloc_plan *plan)
{
	char key[RN_ETCD_KEY_MAX];
	json_t *ops = json_array();

	rn_etcd_key_owner(key, s->prefix, plan->container_id, plan->ifname);
	json_array_append_new(ops, rn_etcd_op_range(key, NULL, 0, false, false));
	for (unsigned int f = 0; f < plan->n_families; f++) {
		for (unsigned int i = 0; i < plan->fam[f].n; i++) {
			rn_etcd_key_pool(key, s->prefix, plan->fam[f].pools[i]->name);
			json_array_append_new(ops, rn_etcd_op_range(key, NULL, 0, false, false));
			rn_etcd_key_cursor(key, s->prefix, plan->fam[f].pools[i]->name);
			json_array_append_new(ops, rn_etcd_op_range(key, NULL, 0, false, false));
		}
	}
	return ops;
}

static unsigned int plan_pools(const struct rn_alloc_plan *plan)
{
	unsigned int n = 0;

	for (unsigned int f = 0; f < plan->n_families; f++)
		n += plan->fam[f].n;
	return n;
}

static int parse_plan(struct etcd_store *s, const struct rn_alloc_plan *plan,
		      struct rn_etcd_range *res, struct plan_state *ps, struct rn_error *e)
{
	unsigned int n = 0;
	int err = 0;

	memset(ps, 0, sizeof(*ps));
	for (unsigned int f = 0; f < plan->n_families; f++)
		for (unsigned int i = 0; i < plan->fam[f].n; i++)
			ps->p[n++].want = plan->fam[f].pools[i];
	ps->n_pools = n;
	if (res[0].n)
		err = rn_et_parse_owner(&res[0].kvs[0], plan->container_id, plan->ifname,
					&ps->owner, e);
	for (unsigned int i = 0; !err && i < n; i++) {
		struct rn_etcd_range *pr = &res[1 + 2 * i], *cr = &res[2 + 2 * i];
		struct rn_addr c;

		struct pool_cache *pc;

		if (pr->n)
			err = rn_et_parse_pool_kv(&pr->kvs[0], &ps->p[i].rec, e);
		if (!err && cr->n && cr->kvs[0].value &&
		    !rn_etcd_hex_addr(cr->kvs[0].value, cr->kvs[0].value_len, &c) &&
		    c.family == rn_pool_family(ps->p[i].want)) {
			ps->p[i].has_cursor = true;
			ps->p[i].cursor = rn_addr_to_u128(&c);
		}
		ps->p[i].cursor_mod = cr->n ? cr->kvs[0].mod_revision : 0;
		pc = err ? NULL : rn_et_cache_get(s, ps->p[i].want->name);
		if (pc) {
			pc->pool_mod = ps->p[i].rec.exists ? ps->p[i].rec.mod_revision : 0;
			rn_et_cache_cursor(pc, cr->n ? &cr->kvs[0] : NULL,
					   rn_pool_family(ps->p[i].want));
		}
	}
	ps->owner_known = !err;
	if (err)
		plan_state_free(ps);
	return err;
}

/* The state of a plan from the cache alone (no round trip), if every pool
 * of the plan is cached. The owner is taken to hold nothing: the
 * compare-and-swap checks that, and a lost race reads the truth. */
static bool plan_from_cache(struct etcd_store *s, const struct rn_alloc_plan *plan,
			    struct plan_state *ps)
{
	unsigned int n = 0;

	memset(ps, 0, sizeof(*ps));
	for (unsigned int f = 0; f < plan->n_families; f++) {
		for (unsigned int i = 0; i < plan->fam[f].n; i++, n++) {
			const struct rn_pool *want = plan->fam[f].pools[i];
			struct pool_cache *c = rn_et_cache_find(s, want->name);

			ps->n_pools = n;
			if (!c || !c->pool_mod || rn_pool_copy(&ps->p[n].rec.pool, want)) {
				plan_state_free(ps);
				return false;
			}
			ps->p[n].want = want;
			ps->p[n].rec.exists = true;
			ps->p[n].rec.mod_revision = c->pool_mod;
			ps->p[n].has_cursor = c->has_cursor;
			ps->p[n].cursor = c->cursor;
			ps->p[n].cursor_mod = c->cursor_mod;
		}
	}
	ps->n_pools = n;
	return true;
}

static int read_plan(struct etcd_store *s, const struct rn_alloc_plan *plan,
		     struct plan_state *ps, struct rn_error *e)
{
	struct rn_etcd_range res[1 + 2 * 2 * RN_IPAM_MAX_POOLS];
	unsigned int n = 1 + 2 * plan_pools(plan);
	bool ok;
	int err;

	memset(ps, 0, sizeof(*ps));
	err = rn_etcd_txn(s->c, NULL, plan_reads(s, plan), NULL, &ok, res, n, e);
	if (err)
		return err;
	err = parse_plan(s, plan, res, ps, e);
	for (unsigned int i = 0; i < n; i++)
		rn_etcd_range_free(&res[i]);
	return err;
}

/* A free address for one family from the first pool that has one. After a
 * lost race (attempt > 0) the pick starts a little past the address that
 * was lost, so concurrent allocators spread out instead of colliding on
 * the same next address again. Returns the state index of the pool, or
 * -ENOSPC. */
static int pick_family(struct etcd_store *s, struct plan_state *ps, unsigned int first,
		       unsigned int n, const rn_u128 *lost, int attempt, struct rn_addr *out,
		       struct rn_error *e)
{
	for (unsigned int i = first; i < first + n; i++) {
		struct scan_ctx ctx = { .s = s };
		struct rn_alloc_iter it = { scan_seek, scan_next, &ctx };
		const struct rn_pool *p = &ps->p[i].rec.pool;
		bool has_cursor = ps->p[i].has_cursor;
		rn_u128 cursor = ps->p[i].cursor, pick;
		char start[RN_ETCD_KEY_MAX];
		unsigned int skip = 0;
		char *end;
		int r;

		if (!ps->p[i].rec.exists || ps->p[i].rec.deleting)
			continue;
		if (lost && attempt > 0 && rn_seg_contains(p->segs, p->n_segs, *lost)) {
			/* from the address another allocator took, pass over a
			 * random few free ones: the others retry too */
			if (!has_cursor || cursor < *lost)
				cursor = *lost;
			has_cursor = true;
			skip = rand_r(&s->seed) % (unsigned int)(attempt < 4 ? 4 * attempt : 16);
		}
		ctx.pool = p;
		/* a first attempt from the cache: in round-robin the address
		 * after the cursor is almost always free, and the
		 * compare-and-swap finds out if not */
		ctx.guess = !ps->owner_known && !ps->p[i].has_pre;
		if (ps->p[i].has_pre) {
			ctx.pre = &ps->p[i].pre;
			ctx.pre_from = ps->p[i].pre_from;
		}
		rn_etcd_key_ips(start, s->prefix, p->name);
		end = rn_etcd_prefix_end(start);
		if (!end)
			return rn_fail(e, -ENOMEM, "etcd: out of memory");
		snprintf(ctx.end, sizeof(ctx.end), "%s", end);
		free(end);
		r = rn_alloc_pick(p, has_cursor, cursor, skip, &it, &pick, e);
		rn_etcd_range_free(&ctx.page);
		if (r < 0)
			return r;
		if (r == 1) {
			rn_addr_from_u128(out, rn_pool_family(p), pick);
			return (int)i;
		}
	}
	return -ENOSPC;
}

static void pause_us(unsigned int us)
{
	struct timespec ts = { 0, (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* The compare-and-swap of one attempt. Its failure branch reads what the
 * next attempt needs (the plan's keys again, and the allocated addresses
 * from each lost pick on), so a lost race costs one round trip, not three.
 * Returns 1 done, 0 lost (ps refreshed), or a negative error. */
static int commit_picks(struct etcd_store *s, const struct rn_alloc_plan *plan,
			struct plan_state *ps, struct rn_ipam_allocation out[2],
			const int chosen[2], bool exact, struct rn_error *e)
{
	struct rn_etcd_range res[1 + 2 * 2 * RN_IPAM_MAX_POOLS + 2];
	char okey[RN_ETCD_KEY_MAX], key[RN_ETCD_KEY_MAX], hex[33];
	unsigned int n_reads = 1 + 2 * plan_pools(plan), n_res = n_reads;
	json_t *cmp, *ops, *fail = plan_reads(s, plan);
	struct owner_rec next = ps->owner;
	struct plan_state fresh;
	long long revision = 0;
	char *value;
	bool ok;
	int err;

	for (unsigned int f = 0; f < plan->n_families; f++)
		if (chosen[f] >= 0 && next.n < OWNER_MAX)
			next.a[next.n++] = out[f];
	rn_etcd_key_owner(okey, s->prefix, plan->container_id, plan->ifname);
	cmp = json_pack("[o]", rn_et_owner_compare(okey, &ps->owner));
	value = rn_et_owner_value(&next);
	ops = json_pack("[o]", rn_etcd_op_put(okey, value));
	free(value);
	for (unsigned int f = 0; f < plan->n_families; f++) {
		char ips[RN_ETCD_KEY_MAX], *end;
		int i = chosen[f];

		if (i < 0)
			continue;
		rn_etcd_key_ip(key, s->prefix, out[f].pool, &out[f].addr);
		json_array_append_new(cmp, rn_etcd_cmp_create(key, 0));
		value = rn_et_ip_value(&out[f]);
		json_array_append_new(ops, rn_etcd_op_put(key, value));
		free(value);
		rn_etcd_key_ips(ips, s->prefix, out[f].pool);
		end = rn_etcd_prefix_end(ips);
		json_array_append_new(fail, rn_etcd_op_range(key, end, SCAN_PAGE, true, false));
		free(end);
		n_res++;
		/* the pool definition the pick used is still the stored one */
		rn_etcd_key_pool(key, s->prefix, out[f].pool);
		json_array_append_new(cmp, rn_etcd_cmp_mod(key, ps->p[i].rec.mod_revision));
		rn_etcd_key_cursor(key, s->prefix, out[f].pool);
		/* exact round-robin: nobody allocated from the pool since we
		 * read its cursor (only on a first attempt: under contention
		 * comparing one key per pool would serialise every allocator) */
		if (exact)
			json_array_append_new(cmp, rn_etcd_cmp_mod(key, ps->p[i].cursor_mod));
		rn_etcd_addr_hex(&out[f].addr, hex);
		json_array_append_new(ops, rn_etcd_op_put(key, hex));
	}
	err = rn_etcd_txn_rev(s->c, cmp, ops, fail, &ok, res, n_res, &revision, e);
	if (err || ok) {
		for (unsigned int i = 0; i < n_res; i++)
			rn_etcd_range_free(&res[i]);
		for (unsigned int f = 0; !err && f < plan->n_families; f++) {
			struct pool_cache *pc;

			if (chosen[f] < 0)
				continue;
			pc = rn_et_cache_get(s, out[f].pool);
			if (!pc)
				continue;
			pc->has_cursor = true;
			pc->cursor = rn_addr_to_u128(&out[f].addr);
			pc->cursor_mod = revision;
		}
		return err ? err : 1;
	}
	err = parse_plan(s, plan, res, &fresh, e);
	for (unsigned int f = 0, k = n_reads; !err && f < plan->n_families; f++) {
		int i = chosen[f];

		if (i < 0)
			continue;
		fresh.p[i].pre = res[k];
		memset(&res[k++], 0, sizeof(res[0]));
		fresh.p[i].pre_from = rn_addr_to_u128(&out[f].addr);
		fresh.p[i].has_pre = true;
	}
	for (unsigned int i = 0; i < n_res; i++)
		rn_etcd_range_free(&res[i]);
	if (err)
		return err;
	plan_state_free(ps);
	*ps = fresh;
	return 0;
}

/* One attempt on the state in ps: 1 done, 0 lost a race (ps refreshed for
 * the next attempt), or a negative error. */
static int allocate_once(struct etcd_store *s, const struct rn_alloc_plan *plan,
			 struct plan_state *ps, struct rn_ipam_allocation out[2],
			 rn_u128 lost[2], bool have_lost[2], int attempt, bool exact,
			 struct rn_error *e)
{
	int64_t now = (int64_t)time(NULL);
	unsigned int first = 0;
	int chosen[2] = { -1, -1 }, err = 0;
	long long seen[2];
	bool fresh = false;

	for (unsigned int f = 0; f < plan->n_families; f++) {
		const struct rn_alloc_family *fam = &plan->fam[f];
		bool held = false;

		for (unsigned int i = 0; i < ps->owner.n && !held; i++) {
			if (ps->owner.a[i].addr.family != fam->family)
				continue;
			out[f] = ps->owner.a[i];
			held = true;
		}
		if (!held) {
			struct rn_addr addr;
			int idx = pick_family(s, ps, first, fam->n, have_lost[f] ? &lost[f] : NULL,
					      attempt, &addr, e);

			if (idx == -ENOSPC)
				err = rn_fail(e, -ENOSPC, "ipam: no free %s address in pool%s %s",
					      fam->family == AF_INET ? "IPv4" : "IPv6",
					      fam->n > 1 ? "s" : "", fam->pools[0]->name);
			else if (idx < 0)
				err = idx;
			if (err)
				return err;
			chosen[f] = idx;
			rn_alloc_fill(&out[f], plan, ps->p[idx].rec.pool.name, &addr, now);
			lost[f] = rn_addr_to_u128(&addr);
			fresh = true;
		}
		first += fam->n;
	}
	if (!fresh)
		return 1;	/* everything was held already: idempotent */
	for (unsigned int f = 0; f < plan->n_families; f++)
		seen[f] = chosen[f] < 0 ? 0 : ps->p[chosen[f]].cursor_mod;
	err = commit_picks(s, plan, ps, out, chosen, exact, e);
	/* spread out only where another allocator took the address we picked
	 * after we last saw the pool's cursor: not when the race was over the
	 * owner or the cursor, nor when our view was merely old */
	for (unsigned int f = 0; err == 0 && f < plan->n_families; f++) {
		const struct rn_etcd_range *pre;
		char pool[RN_POOL_NAME_MAX];
		struct rn_addr first_taken;

		if (chosen[f] < 0)
			continue;
		pre = &ps->p[chosen[f]].pre;
		have_lost[f] = pre->n &&
			       !rn_etcd_parse_ip_key(pre->kvs[0].key, s->prefix, pool, sizeof(pool),
						     &first_taken) &&
			       rn_addr_to_u128(&first_taken) == lost[f] &&
			       pre->kvs[0].create_revision > seen[f];
	}
	return err;
}

int rn_et_allocate(struct rn_store *base, const struct rn_alloc_plan *plan,
		   struct rn_ipam_allocation out[2], struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	bool have_lost[2] = { false, false };
	rn_u128 lost[2] = { 0, 0 };
	struct plan_state ps;
	int r = 0, attempt;

	rn_etcd_deadline(s->c);
	/* from what this handle knows, the first attempt is the
	 * compare-and-swap alone; a wrong guess costs that round trip and
	 * brings the truth back with it */
	if (!plan_from_cache(s, plan, &ps)) {
		r = read_plan(s, plan, &ps, e);
		if (r)
			return r;
	}
	for (attempt = 0; !rn_etcd_expired(s->c); attempt++) {
		r = allocate_once(s, plan, &ps, out, lost, have_lost, attempt,
				  attempt == 0 && !s->contended, e);
		if (r == -ENOSPC && !ps.owner_known) {
			/* full by the cache: but the owner may hold an address */
			plan_state_free(&ps);
			r = read_plan(s, plan, &ps, e);
			if (r)
				return r;
			r = allocate_once(s, plan, &ps, out, lost, have_lost, attempt, true, e);
		}
		if (r != 0)
			break;
		/* lost a race: a short random pause breaks lockstep */
		pause_us(rand_r(&s->seed) %
			 (100u * (attempt < 10 ? (unsigned int)attempt + 1 : 10)));
	}
	s->contended = attempt > 1 || (attempt == 1 && ps.owner.n == 0);
	plan_state_free(&ps);
	if (r == 1)
		return 0;
	if (r < 0)
		return r;
	return rn_fail(e, -EAGAIN, "ipam: etcd: allocation for %s/%s did not settle within %u s "
		       "(contention): try again later", plan->container_id, plan->ifname,
		       s->base.settings->timeout_ms / 1000);
}
