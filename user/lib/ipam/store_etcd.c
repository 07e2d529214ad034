// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The cluster store: etcd v3 (key layout in etcd_keys.h). Every write is
 * a compare-and-swap transaction; a transaction that loses a race is
 * retried from fresh reads until the operation's deadline (ipam.timeout_s),
 * after which the call fails with -EAGAIN. Reads are linearizable. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ipam/alloc_pick.h"
#include "ipam/etcd_client.h"
#include "ipam/etcd_keys.h"
#include "ipam/pool_set.h"
#include "ipam/store.h"

#define SCAN_PAGE	64	/* allocated keys read per step of a pick */
#define LIST_PAGE	1000	/* keys per page when listing */
#define TXN_OPS_MAX	120	/* etcd's default --max-txn-ops is 128 */
#define OWNER_MAX	4	/* addresses an owner record may list (2 in practice) */

/* What this handle last saw of a pool's allocation state: enough for the
 * next allocation to go straight to its compare-and-swap (see
 * et_allocate). Refreshed by every load of the pools, every allocation and
 * every lost race; never trusted, only compared. */
struct pool_cache {
	char name[RN_POOL_NAME_MAX];
	long long pool_mod;		/* mod_revision of the pool key */
	bool has_cursor;
	rn_u128 cursor;
	long long cursor_mod;		/* 0: no cursor key yet */
};

struct etcd_store {
	struct rn_store base;
	struct rn_etcd *c;
	const char *prefix;
	unsigned int seed;
	struct pool_cache *cache;
	unsigned int n_cache;
	bool contended;			/* the last allocation lost a race */
};

static struct etcd_store *to_et(struct rn_store *s)
{
	return (struct etcd_store *)s;
}

static struct pool_cache *cache_find(struct etcd_store *s, const char *pool)
{
	for (unsigned int i = 0; i < s->n_cache; i++)
		if (!strcmp(s->cache[i].name, pool))
			return &s->cache[i];
	return NULL;
}

static struct pool_cache *cache_get(struct etcd_store *s, const char *pool)
{
	struct pool_cache *c = cache_find(s, pool), *grown;

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

static void cache_cursor(struct pool_cache *c, const struct rn_etcd_kv *kv, int family)
{
	struct rn_addr a;

	c->has_cursor = kv && kv->value && !rn_etcd_hex_addr(kv->value, kv->value_len, &a) &&
			(family == 0 || a.family == family);
	c->cursor = c->has_cursor ? rn_addr_to_u128(&a) : 0;
	c->cursor_mod = kv ? kv->mod_revision : 0;
}

/* --- records ------------------------------------------------------------------- */

struct owner_rec {
	bool exists;
	long long mod_revision;
	unsigned int n;
	struct rn_ipam_allocation a[OWNER_MAX];
};

static void copy_str(char *dst, size_t size, json_t *v)
{
	snprintf(dst, size, "%s", json_string_value(v) ? json_string_value(v) : "");
}

static int parse_owner(const struct rn_etcd_kv *kv, const char *container_id,
		       const char *ifname, struct owner_rec *o, struct rn_error *e)
{
	json_t *v = json_loads(kv->value ? kv->value : "", 0, NULL), *addrs, *a;
	size_t i;

	memset(o, 0, sizeof(*o));
	addrs = json_object_get(v, "addrs");
	if (!json_is_object(v) || !json_is_array(addrs) || json_array_size(addrs) > OWNER_MAX) {
		json_decref(v);
		return rn_fail(e, -EIO, "etcd: %s: malformed owner record", kv->key);
	}
	o->exists = true;
	o->mod_revision = kv->mod_revision;
	json_array_foreach(addrs, i, a) {
		struct rn_ipam_allocation *r = &o->a[i];

		copy_str(r->pool, sizeof(r->pool), json_object_get(a, "pool"));
		if (rn_addr_parse(json_string_value(json_object_get(a, "ip")) ?: "", &r->addr)) {
			json_decref(v);
			return rn_fail(e, -EIO, "etcd: %s: malformed address in owner record",
				       kv->key);
		}
		snprintf(r->container_id, sizeof(r->container_id), "%s", container_id);
		snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
		copy_str(r->pod_namespace, sizeof(r->pod_namespace),
			 json_object_get(v, "namespace"));
		copy_str(r->pod_name, sizeof(r->pod_name), json_object_get(v, "pod"));
		copy_str(r->node, sizeof(r->node), json_object_get(v, "node"));
		r->created = json_integer_value(json_object_get(a, "created"));
		o->n++;
	}
	json_decref(v);
	return 0;
}

static char *owner_value(const struct owner_rec *o)
{
	json_t *addrs = json_array(), *v;
	char ip[RN_ADDR_STRLEN], *text;

	for (unsigned int i = 0; i < o->n; i++)
		json_array_append_new(addrs, json_pack("{s:s, s:s, s:I}", "pool", o->a[i].pool,
						       "ip", rn_addr_format(&o->a[i].addr, ip),
						       "created", (json_int_t)o->a[i].created));
	v = json_pack("{s:o, s:s, s:s, s:s}", "addrs", addrs,
		      "namespace", o->n ? o->a[0].pod_namespace : "",
		      "pod", o->n ? o->a[0].pod_name : "", "node", o->n ? o->a[0].node : "");
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	return text;
}

static char *ip_value(const struct rn_ipam_allocation *a)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "container_id", a->container_id,
			      "ifname", a->ifname, "namespace", a->pod_namespace,
			      "pod", a->pod_name, "node", a->node, "created",
			      (json_int_t)a->created);
	char *text = json_dumps(v, JSON_COMPACT);

	json_decref(v);
	return text;
}

/* An address key and its value into an allocation. */
static int parse_ip_kv(struct etcd_store *s, const struct rn_etcd_kv *kv,
		       struct rn_ipam_allocation *a, struct rn_error *e)
{
	json_t *v;

	memset(a, 0, sizeof(*a));
	if (rn_etcd_parse_ip_key(kv->key, s->prefix, a->pool, sizeof(a->pool), &a->addr))
		return rn_fail(e, -EIO, "etcd: malformed address key %s", kv->key);
	v = json_loads(kv->value ? kv->value : "", 0, NULL);
	if (!json_is_object(v) || !json_is_string(json_object_get(v, "container_id")) ||
	    !json_is_string(json_object_get(v, "ifname"))) {
		json_decref(v);
		return rn_fail(e, -EIO, "etcd: %s: malformed allocation record", kv->key);
	}
	copy_str(a->container_id, sizeof(a->container_id), json_object_get(v, "container_id"));
	copy_str(a->ifname, sizeof(a->ifname), json_object_get(v, "ifname"));
	copy_str(a->pod_namespace, sizeof(a->pod_namespace), json_object_get(v, "namespace"));
	copy_str(a->pod_name, sizeof(a->pod_name), json_object_get(v, "pod"));
	copy_str(a->node, sizeof(a->node), json_object_get(v, "node"));
	a->created = json_integer_value(json_object_get(v, "created"));
	json_decref(v);
	return 0;
}

struct pool_rec {
	bool exists, deleting, from_config;
	long long mod_revision;
	struct rn_pool pool;		/* valid if exists */
};

static int parse_pool_kv(const struct rn_etcd_kv *kv, struct pool_rec *p, struct rn_error *e)
{
	json_t *v = json_loads(kv->value ? kv->value : "", 0, NULL);
	char where[RN_ETCD_KEY_MAX + 16];
	int err;

	memset(p, 0, sizeof(*p));
	snprintf(where, sizeof(where), "etcd: %s", kv->key);
	if (!json_is_object(v)) {
		json_decref(v);
		return rn_fail(e, -EIO, "%s: malformed pool record", where);
	}
	err = rn_pool_from_json(&p->pool, json_object_get(v, "spec"), where, e);
	p->exists = !err;
	p->deleting = json_is_true(json_object_get(v, "deleting"));
	p->from_config = json_is_true(json_object_get(v, "from_config"));
	p->mod_revision = kv->mod_revision;
	json_decref(v);
	return err ? -EIO : 0;
}

static char *pool_value(const struct rn_pool *p, bool from_config, bool deleting)
{
	json_t *v = json_pack("{s:o, s:b}", "spec", rn_pool_to_json(p), "from_config",
			      from_config);
	char *text;

	if (deleting)
		json_object_set_new(v, "deleting", json_true());
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	return text;
}

/* Every key of [start, end), in pages. Keys the store writes hold no byte
 * below 0x21, so "last key + \x01" is where the next page starts. */
static int get_all(struct etcd_store *s, const char *start, const char *end, bool keys_only,
		   struct rn_etcd_range *out, struct rn_error *e)
{
	char from[RN_ETCD_KEY_MAX + 2];
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(from, sizeof(from), "%s", start);
	for (;;) {
		struct rn_etcd_range page;
		struct rn_etcd_kv *grown;

		err = rn_etcd_get(s->c, from, end, LIST_PAGE, keys_only, false, &page, e);
		if (err)
			break;
		grown = realloc(out->kvs, (out->n + page.n + 1) * sizeof(*grown));
		if (!grown) {
			rn_etcd_range_free(&page);
			err = rn_fail(e, -ENOMEM, "etcd: out of memory");
			break;
		}
		out->kvs = grown;
		memcpy(out->kvs + out->n, page.kvs, page.n * sizeof(*page.kvs));
		out->n += page.n;
		out->revision = out->revision ? out->revision : page.revision;
		if (!page.more || !page.n) {
			free(page.kvs);
			break;
		}
		snprintf(from, sizeof(from), "%s\x01", page.kvs[page.n - 1].key);
		free(page.kvs);
	}
	if (err)
		rn_etcd_range_free(out);
	out->count = (long long)out->n;
	return err;
}

/* Every key under a prefix. */
static int get_prefix(struct etcd_store *s, const char *prefix, bool keys_only,
		      struct rn_etcd_range *out, struct rn_error *e)
{
	char *end = rn_etcd_prefix_end(prefix);
	int err;

	memset(out, 0, sizeof(*out));
	if (!end)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	err = get_all(s, prefix, end, keys_only, out, e);
	free(end);
	return err;
}

/* --- pools --------------------------------------------------------------------- */

/* Every pool record (deleting ones included, flagged). */
static int load_pool_recs(struct etcd_store *s, struct pool_rec **out, long long *revision,
			  struct rn_error *e)
{
	char start[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	struct pool_rec *recs;
	int err;

	*out = NULL;
	rn_etcd_key_pools(start, s->prefix);
	err = get_prefix(s, start, false, &r, e);
	if (err)
		return err;
	recs = calloc(r.n + 1, sizeof(*recs));
	if (!recs) {
		rn_etcd_range_free(&r);
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	}
	for (size_t i = 0; i < r.n; i++) {
		err = parse_pool_kv(&r.kvs[i], &recs[i], e);
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

static void free_pool_recs(struct pool_rec *recs, int n)
{
	for (int i = 0; i < n; i++)
		rn_pool_free(&recs[i].pool);
	free(recs);
}

/* Live pools as pool infos (moved out of recs). */
static int recs_to_infos(struct pool_rec *recs, int n, struct rn_ipam_pool_info **out,
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
static int et_pools_load(struct rn_store *base, struct rn_ipam_pool_info **out,
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
		err = parse_pool_kv(&res[0].kvs[i], &recs[i], e);
	for (int i = 0; !err && i < n; i++) {
		struct pool_cache *c = cache_get(s, recs[i].pool.name);
		char key[RN_ETCD_KEY_MAX];
		const struct rn_etcd_kv *cur = NULL;

		if (!c)
			continue;
		rn_etcd_key_cursor(key, s->prefix, recs[i].pool.name);
		for (size_t j = 0; j < res[1].n && !cur; j++)
			if (!strcmp(res[1].kvs[j].key, key))
				cur = &res[1].kvs[j];
		c->pool_mod = recs[i].mod_revision;
		cache_cursor(c, cur, rn_pool_family(&recs[i].pool));
	}
	rn_etcd_range_free(&res[0]);
	rn_etcd_range_free(&res[1]);
	if (err) {
		free_pool_recs(recs, n);
		return err;
	}
	k = recs_to_infos(recs, n, out, e);
	free_pool_recs(recs, n);
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

		n = load_pool_recs(s, &recs, &rev, e);
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			if (!strcmp(recs[i].pool.name, p->name))
				old = &recs[i];
		if (old && (mode == RN_POOL_CREATE || old->deleting))
			err = rn_fail(e, -EEXIST, "ipam: pool \"%s\" already exists%s", p->name,
				      old->deleting ? " (being deleted)" : "");
		else if (old && (mode == RN_POOL_IF_MISSING || (rn_pool_equal(&old->pool, p) &&
								 old->from_config == from_config)))
			err = 1;
		if (err) {
			free_pool_recs(recs, n);
			return err > 0 ? 0 : err;
		}
		k = recs_to_infos(recs, n, &infos, e);
		err = k < 0 ? k : rn_pool_check_against(p, infos, k, e);
		if (k >= 0)
			rn_ipam_pools_free(infos, k);
		if (err) {
			free_pool_recs(recs, n);
			return err;
		}
		value = pool_value(p, from_config, false);
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
		free_pool_recs(recs, n);
		if (err)
			return err;
		if (ok)
			return 1;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: pool \"%s\": concurrent pool changes did not "
		       "settle within %u s: try again later", p->name,
		       s->base.settings->timeout_ms / 1000);
}

/* --- owner and address operations ------------------------------------------------- */

static int read_owner(struct etcd_store *s, const char *container_id, const char *ifname,
		      struct owner_rec *o, struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	int err;

	memset(o, 0, sizeof(*o));
	rn_etcd_key_owner(key, s->prefix, container_id, ifname);
	err = rn_etcd_get(s->c, key, NULL, 0, false, false, &r, e);
	if (err)
		return err;
	if (r.n)
		err = parse_owner(&r.kvs[0], container_id, ifname, o, e);
	rn_etcd_range_free(&r);
	return err;
}

static json_t *owner_compare(const char *key, const struct owner_rec *o)
{
	return o->exists ? rn_etcd_cmp_mod(key, o->mod_revision) : rn_etcd_cmp_create(key, 0);
}

/* The owner key after dropping entry `drop` (-1: none): a put, or a delete
 * when nothing is left. */
static json_t *owner_write(const char *key, struct owner_rec *o, int drop)
{
	struct owner_rec rest = *o;
	json_t *op;
	char *value;

	rest.n = 0;
	for (unsigned int i = 0; i < o->n; i++)
		if ((int)i != drop)
			rest.a[rest.n++] = o->a[i];
	if (!rest.n)
		return rn_etcd_op_delete(key, NULL);
	value = owner_value(&rest);
	op = rn_etcd_op_put(key, value);
	free(value);
	return op;
}

static int et_release_owner(struct rn_store *base, const char *container_id, const char *ifname,
			    struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	char key[RN_ETCD_KEY_MAX], ipkey[RN_ETCD_KEY_MAX];

	rn_etcd_key_owner(key, s->prefix, container_id, ifname);
	rn_etcd_deadline(s->c);
	while (!rn_etcd_expired(s->c)) {
		struct owner_rec o;
		json_t *ops;
		bool ok;
		int err = read_owner(s, container_id, ifname, &o, e);

		if (err)
			return err;
		if (!o.exists)
			return 0;
		/* address keys change only together with their owner key: the
		 * owner's revision guards them all */
		ops = json_pack("[o]", rn_etcd_op_delete(key, NULL));
		for (unsigned int i = 0; i < o.n; i++) {
			rn_etcd_key_ip(ipkey, s->prefix, o.a[i].pool, &o.a[i].addr);
			json_array_append_new(ops, rn_etcd_op_delete(ipkey, NULL));
		}
		err = rn_etcd_txn(s->c, json_pack("[o]", owner_compare(key, &o)), ops, NULL, &ok,
				  NULL, 0, e);
		if (err)
			return err;
		if (ok)
			return (int)o.n;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: release of %s/%s did not settle within %u s: "
		       "try again later", container_id, ifname,
		       s->base.settings->timeout_ms / 1000);
}

/* Releases one address key and its entry in the owner record; the caller
 * holds the deadline. Returns 1, or 0 if it was free. */
static int release_ip_once(struct etcd_store *s, const char *pool, const struct rn_addr *addr,
			   struct rn_error *e)
{
	char ipkey[RN_ETCD_KEY_MAX], okey[RN_ETCD_KEY_MAX];

	rn_etcd_key_ip(ipkey, s->prefix, pool, addr);
	while (!rn_etcd_expired(s->c)) {
		struct rn_ipam_allocation a;
		struct rn_etcd_range r;
		struct owner_rec o;
		json_t *cmp, *ops;
		int err, drop = -1;
		bool ok;

		err = rn_etcd_get(s->c, ipkey, NULL, 0, false, false, &r, e);
		if (err)
			return err;
		if (!r.n) {
			rn_etcd_range_free(&r);
			return 0;
		}
		err = parse_ip_kv(s, &r.kvs[0], &a, e);
		cmp = json_pack("[o]", rn_etcd_cmp_mod(ipkey, r.kvs[0].mod_revision));
		rn_etcd_range_free(&r);
		if (!err)
			err = read_owner(s, a.container_id, a.ifname, &o, e);
		if (err) {
			json_decref(cmp);
			return err;
		}
		rn_etcd_key_owner(okey, s->prefix, a.container_id, a.ifname);
		for (unsigned int i = 0; i < o.n; i++)
			if (!strcmp(o.a[i].pool, pool) && rn_addr_equal(&o.a[i].addr, addr))
				drop = (int)i;
		json_array_append_new(cmp, owner_compare(okey, &o));
		ops = json_pack("[o]", rn_etcd_op_delete(ipkey, NULL));
		if (o.exists)
			json_array_append_new(ops, owner_write(okey, &o, drop));
		err = rn_etcd_txn(s->c, cmp, ops, NULL, &ok, NULL, 0, e);
		if (err)
			return err;
		if (ok)
			return 1;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: release of an address in pool \"%s\" did not "
		       "settle within %u s: try again later", pool,
		       s->base.settings->timeout_ms / 1000);
}

static int et_release_ip(struct rn_store *base, const char *pool, const struct rn_addr *addr,
			 struct rn_error *e)
{
	struct etcd_store *s = to_et(base);

	rn_etcd_deadline(s->c);
	return release_ip_once(s, pool, addr, e);
}

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
		err = parse_owner(&res[0].kvs[0], plan->container_id, plan->ifname, &ps->owner, e);
	for (unsigned int i = 0; !err && i < n; i++) {
		struct rn_etcd_range *pr = &res[1 + 2 * i], *cr = &res[2 + 2 * i];
		struct rn_addr c;

		struct pool_cache *pc;

		if (pr->n)
			err = parse_pool_kv(&pr->kvs[0], &ps->p[i].rec, e);
		if (!err && cr->n && cr->kvs[0].value &&
		    !rn_etcd_hex_addr(cr->kvs[0].value, cr->kvs[0].value_len, &c) &&
		    c.family == rn_pool_family(ps->p[i].want)) {
			ps->p[i].has_cursor = true;
			ps->p[i].cursor = rn_addr_to_u128(&c);
		}
		ps->p[i].cursor_mod = cr->n ? cr->kvs[0].mod_revision : 0;
		pc = err ? NULL : cache_get(s, ps->p[i].want->name);
		if (pc) {
			pc->pool_mod = ps->p[i].rec.exists ? ps->p[i].rec.mod_revision : 0;
			cache_cursor(pc, cr->n ? &cr->kvs[0] : NULL, rn_pool_family(ps->p[i].want));
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
			struct pool_cache *c = cache_find(s, want->name);

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
	cmp = json_pack("[o]", owner_compare(okey, &ps->owner));
	value = owner_value(&next);
	ops = json_pack("[o]", rn_etcd_op_put(okey, value));
	free(value);
	for (unsigned int f = 0; f < plan->n_families; f++) {
		char ips[RN_ETCD_KEY_MAX], *end;
		int i = chosen[f];

		if (i < 0)
			continue;
		rn_etcd_key_ip(key, s->prefix, out[f].pool, &out[f].addr);
		json_array_append_new(cmp, rn_etcd_cmp_create(key, 0));
		value = ip_value(&out[f]);
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
			struct pool_cache *pc = chosen[f] < 0 ? NULL : cache_get(s, out[f].pool);

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

static int et_allocate(struct rn_store *base, const struct rn_alloc_plan *plan,
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

/* --- pool deletion -------------------------------------------------------------------- */

/* Marks a pool as being deleted: allocations compare the pool key, so none
 * lands once the mark is in. */
static int mark_deleting(struct etcd_store *s, const char *pkey, const struct pool_rec *rec,
			 struct rn_error *e)
{
	char *value = pool_value(&rec->pool, rec->from_config, true);
	bool ok;
	int err;

	err = rn_etcd_txn(s->c, json_pack("[o]", rn_etcd_cmp_mod(pkey, rec->mod_revision)),
			  json_pack("[o]", rn_etcd_op_put(pkey, value)), NULL, &ok, NULL, 0, e);
	free(value);
	return err;
}

/* Releases every address of a pool (each with its owner record). */
static int drop_allocations(struct etcd_store *s, const char *name, const char *ips,
			    const char *end, int *dropped, struct rn_error *e)
{
	struct rn_etcd_range all;
	int err = get_all(s, ips, end, true, &all, e);

	for (size_t i = 0; !err && i < all.n; i++) {
		char pool[RN_POOL_NAME_MAX];
		struct rn_addr a;
		int r;

		if (rn_etcd_parse_ip_key(all.kvs[i].key, s->prefix, pool, sizeof(pool), &a))
			continue;
		r = release_ip_once(s, name, &a, e);
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
	bool done = false;

	rn_etcd_key_pool(pkey, s->prefix, name);
	rn_etcd_key_cursor(ckey, s->prefix, name);
	rn_etcd_key_ips(ips, s->prefix, name);
	end = rn_etcd_prefix_end(ips);
	if (!end)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	rn_etcd_deadline(s->c);
	while (!err && !done && !rn_etcd_expired(s->c)) {
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
			err = parse_pool_kv(&res[0].kvs[0], &rec, e);
		if (!err && held && !force)
			err = rn_fail(e, -EBUSY, "ipam: pool \"%s\" still holds %lld address%s; "
				      "release them first or force the deletion", name, held,
				      held == 1 ? "" : "es");
		else if (!err && held && !rec.deleting)
			err = mark_deleting(s, pkey, &rec, e);
		else if (!err && held)
			err = drop_allocations(s, name, ips, end, &dropped, e);
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
	if (err)
		return err;
	if (done)
		return dropped;
	return rn_fail(e, -EAGAIN, "ipam: etcd: deletion of pool \"%s\" did not settle within "
		       "%u s: try again later", name, s->base.settings->timeout_ms / 1000);
}

/* --- listing, counting, checking ------------------------------------------------------- */

static int alloc_cmp(const void *x, const void *y)
{
	const struct rn_ipam_allocation *a = x, *b = y;
	int c = strcmp(a->pool, b->pool);

	if (c)
		return c;
	c = a->addr.family - b->addr.family;
	return c ? c : memcmp(a->addr.b, b->addr.b, rn_addr_len(&a->addr));
}

static int list_owner(struct etcd_store *s, const struct rn_alloc_filter *f,
		      struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct owner_rec o;
	int err = read_owner(s, f->container_id, f->ifname ? f->ifname : "", &o, e);

	if (err)
		return err;
	*out = calloc(o.n + 1, sizeof(**out));
	if (!*out)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	memcpy(*out, o.a, o.n * sizeof(**out));
	return (int)o.n;
}

static int list_keys(struct etcd_store *s, const struct rn_alloc_filter *f,
		     struct rn_ipam_allocation **out, struct rn_error *e)
{
	char start[RN_ETCD_KEY_MAX];
	struct rn_ipam_allocation *v;
	struct rn_etcd_range r;
	int n = 0, err;

	if (f->pool)
		rn_etcd_key_ips(start, s->prefix, f->pool);
	else
		rn_etcd_key_all_ips(start, s->prefix);
	err = get_prefix(s, start, false, &r, e);
	if (err)
		return err;
	v = calloc(r.n + 1, sizeof(*v));
	if (!v) {
		rn_etcd_range_free(&r);
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	}
	for (size_t i = 0; i < r.n && !err; i++) {
		err = parse_ip_kv(s, &r.kvs[i], &v[n], e);
		if (err)
			break;
		if (f->addr && !rn_addr_equal(f->addr, &v[n].addr))
			continue;
		n++;
	}
	rn_etcd_range_free(&r);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	return n;
}

/* One address in every pool of its family: one read-only transaction. */
static int list_addr(struct etcd_store *s, const struct rn_alloc_filter *f,
		     struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct rn_ipam_pool_info *pools;
	struct rn_ipam_allocation *v;
	int n = et_pools_load(&s->base, &pools, e), k = 0, err = 0;

	if (n < 0)
		return n;
	v = calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		rn_ipam_pools_free(pools, n);
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	}
	for (int i = 0; i < n && !err; i++) {
		char key[RN_ETCD_KEY_MAX];
		struct rn_etcd_range r;

		if (rn_pool_family(&pools[i].pool) != f->addr->family)
			continue;
		rn_etcd_key_ip(key, s->prefix, pools[i].pool.name, f->addr);
		err = rn_etcd_get(s->c, key, NULL, 0, false, false, &r, e);
		if (!err && r.n)
			err = parse_ip_kv(s, &r.kvs[0], &v[k++], e);
		rn_etcd_range_free(&r);
	}
	rn_ipam_pools_free(pools, n);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	return k;
}

static int et_list(struct rn_store *base, const struct rn_alloc_filter *f,
		   struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	int n;

	*out = NULL;
	rn_etcd_deadline(s->c);
	if (f->container_id)
		n = list_owner(s, f, out, e);
	else if (f->addr && !f->pool)
		n = list_addr(s, f, out, e);
	else
		n = list_keys(s, f, out, e);
	if (n > 1)
		qsort(*out, (size_t)n, sizeof(**out), alloc_cmp);
	return n;
}

static int et_count(struct rn_store *base, struct rn_ipam_pool_info *pools, int n,
		    struct rn_error *e)
{
	struct etcd_store *s = to_et(base);

	rn_etcd_deadline(s->c);
	for (int first = 0; first < n; first += TXN_OPS_MAX) {
		struct rn_etcd_range res[TXN_OPS_MAX];
		int batch = n - first < TXN_OPS_MAX ? n - first : TXN_OPS_MAX, err;
		json_t *ops = json_array();
		bool ok;

		for (int i = 0; i < batch; i++) {
			char start[RN_ETCD_KEY_MAX], *end;

			rn_etcd_key_ips(start, s->prefix, pools[first + i].pool.name);
			end = rn_etcd_prefix_end(start);
			json_array_append_new(ops, rn_etcd_op_range(start, end, 0, false, true));
			free(end);
		}
		err = rn_etcd_txn(s->c, NULL, ops, NULL, &ok, res, (size_t)batch, e);
		if (err)
			return err;
		for (int i = 0; i < batch; i++) {
			pools[first + i].allocated = (unsigned long long)res[i].count;
			rn_etcd_range_free(&res[i]);
		}
	}
	return 0;
}

/* Owner records and address keys must mirror each other. */
static int et_check(struct rn_store *base, char *report, size_t size, struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	struct rn_ipam_allocation *by_ip = NULL, *by_owner = NULL;
	char start[RN_ETCD_KEY_MAX], ip[RN_ADDR_STRLEN];
	struct rn_alloc_filter all = { 0 };
	struct pool_rec *recs;
	struct rn_etcd_range owners;
	size_t n_owner = 0;
	int n_ip, n_pools, problems = 0, err;

	rn_etcd_deadline(s->c);
	n_pools = load_pool_recs(s, &recs, NULL, e);
	if (n_pools < 0)
		return n_pools;
	n_ip = list_keys(s, &all, &by_ip, e);
	rn_etcd_key_owners(start, s->prefix);
	err = n_ip < 0 ? n_ip : get_prefix(s, start, false, &owners, e);
	if (err) {
		free(by_ip);
		free_pool_recs(recs, n_pools);
		return err;
	}
	by_owner = calloc(owners.n * OWNER_MAX + 1, sizeof(*by_owner));
	for (size_t i = 0; by_owner && i < owners.n; i++) {
		struct owner_rec o;
		/* owner keys hold escaped names: match entries to address keys by
		 * (pool, address) and then by owner key, kept in container_id */
		if (parse_owner(&owners.kvs[i], owners.kvs[i].key, "", &o, NULL)) {
			rn_check_note(report, size, "etcd: %s: malformed owner record",
				      owners.kvs[i].key);
			problems++;
			continue;
		}
		if (!o.n) {
			rn_check_note(report, size, "etcd: %s: empty owner record",
				      owners.kvs[i].key);
			problems++;
		}
		for (unsigned int k = 0; k < o.n; k++)
			by_owner[n_owner++] = o.a[k];
	}
	qsort(by_ip, (size_t)n_ip, sizeof(*by_ip), alloc_cmp);
	if (by_owner)
		qsort(by_owner, n_owner, sizeof(*by_owner), alloc_cmp);
	for (int i = 0; i < n_ip; i++) {
		char okey[RN_ETCD_KEY_MAX];
		struct rn_ipam_allocation *hit = by_owner ?
			bsearch(&by_ip[i], by_owner, n_owner, sizeof(*by_owner), alloc_cmp) : NULL;
		bool pool_ok = false;

		for (int p = 0; p < n_pools; p++)
			pool_ok |= !strcmp(recs[p].pool.name, by_ip[i].pool);
		if (!pool_ok) {
			rn_check_note(report, size, "etcd: %s in missing pool %s",
				      rn_addr_format(&by_ip[i].addr, ip), by_ip[i].pool);
			problems++;
		}
		rn_etcd_key_owner(okey, s->prefix, by_ip[i].container_id, by_ip[i].ifname);
		if (!hit || strncmp(hit->container_id, okey, sizeof(hit->container_id) - 1)) {
			rn_check_note(report, size, "etcd: %s (pool %s) held by %s/%s, whose owner "
				      "record does not list it", rn_addr_format(&by_ip[i].addr, ip),
				      by_ip[i].pool, by_ip[i].container_id, by_ip[i].ifname);
			problems++;
		}
	}
	for (size_t i = 0; by_owner && i < n_owner; i++) {
		if (bsearch(&by_owner[i], by_ip, (size_t)n_ip, sizeof(*by_ip), alloc_cmp))
			continue;
		rn_check_note(report, size, "etcd: owner %s lists %s (pool %s) but its address key "
			      "is missing", by_owner[i].container_id,
			      rn_addr_format(&by_owner[i].addr, ip), by_owner[i].pool);
		problems++;
	}
	free(by_ip);
	free(by_owner);
	rn_etcd_range_free(&owners);
	free_pool_recs(recs, n_pools);
	return problems;
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
	.pools_load = et_pools_load,
	.pool_write = et_pool_write,
	.pool_delete = et_pool_delete,
	.allocate = et_allocate,
	.release_owner = et_release_owner,
	.release_ip = et_release_ip,
	.list = et_list,
	.count = et_count,
	.check = et_check,
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
	s->seed = (unsigned int)getpid() ^ (unsigned int)rn_ipam_now_ms();
	err = rn_etcd_open(&s->c, st, e);
	if (err) {
		free(s);
		return err;
	}
	*out = &s->base;
	return 0;
}
