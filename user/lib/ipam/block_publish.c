// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Each node's block allocations, published lazily to etcd
 * (block_publish.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>

#include "ipam/block_publish.h"
#include "ipam/etcd_keys.h"
#include "ipam/ipam_json.h"
#include "ipam/pool_set.h"

#define PUB_OPS_MAX	100	/* per transaction: etcd takes 128 by default */

struct pub_entry {
	char pool[RN_POOL_NAME_MAX];
	int family;
	rn_u128 base;
	uint64_t hash;			/* of the addresses published */
};

struct rn_block_pub {
	struct pub_entry *e;
	unsigned int n;
	long long last_ms;
};

void rn_block_pub_free(struct rn_block_pub *pub)
{
	if (pub)
		free(pub->e);
	free(pub);
}

void rn_block_used_key(char *out, const char *prefix, const char *pool, int family,
		       rn_u128 base)
{
	char hex[33];
	struct rn_addr a;

	rn_addr_from_u128(&a, family, base);
	rn_etcd_addr_hex(&a, hex);
	snprintf(out, RN_ETCD_KEY_MAX, "%s/used/%s/%s", prefix, pool, hex);
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

/* The allocations of the node's store inside block b. */
static json_t *block_addrs(const struct rn_block *b, const struct rn_ipam_allocation *allocs,
			   int n)
{
	rn_u128 last = rn_block_last(b->family, b->base, b->len);
	json_t *arr = json_array();

	for (int i = 0; i < n; i++) {
		rn_u128 a = rn_addr_to_u128(&allocs[i].addr);
		json_t *o;

		if (strcmp(allocs[i].pool, b->pool) || allocs[i].addr.family != b->family ||
		    a < b->base || a > last)
			continue;
		o = rn_ipam_allocation_to_json(&allocs[i]);
		json_object_del(o, "pool");	/* the key's */
		json_object_del(o, "node");	/* the record's */
		json_object_set_new(o, "created", json_integer(allocs[i].created));
		json_array_append_new(arr, o);
	}
	return arr;
}

static const struct pub_entry *find(const struct rn_block_pub *p, const char *pool,
				    rn_u128 base)
{
	for (unsigned int i = 0; i < p->n; i++)
		if (p->e[i].base == base && !strcmp(p->e[i].pool, pool))
			return &p->e[i];
	return NULL;
}

static int send_ops(struct rn_etcd *c, json_t *ops, struct rn_error *e)
{
	size_t n = json_array_size(ops);
	int err = 0;

	rn_etcd_deadline(c);
	for (size_t i = 0; !err && i < n; i += PUB_OPS_MAX) {
		json_t *chunk = json_array();
		bool ok;

		for (size_t k = i; k < n && k < i + PUB_OPS_MAX; k++)
			json_array_append(chunk, json_array_get(ops, k));
		err = rn_etcd_txn(c, NULL, chunk, NULL, &ok, NULL, 0, e);
	}
	return err;
}

int rn_block_publish(struct rn_etcd *c, const char *prefix, const char *node,
		     const struct rn_block_lease *l, const struct rn_block *blocks, int n,
		     const struct rn_ipam_allocation *allocs, int n_allocs, long long min_ms,
		     struct rn_block_pub **pub, struct rn_error *e)
{
	long long now = rn_block_now_ms();
	uint64_t empty = fnv("[]");
	struct pub_entry *next;
	struct rn_block_pub *p = *pub;
	json_t *ops;
	int err, changed;

	if (!p && !(p = *pub = calloc(1, sizeof(*p))))
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	if (p->last_ms && now - p->last_ms < min_ms)
		return 0;
	next = calloc((size_t)n + 1, sizeof(*next));
	ops = json_array();
	if (!next || !ops) {
		free(next);
		json_decref(ops);
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	}
	for (int i = 0; i < n; i++) {
		const struct pub_entry *old = find(p, blocks[i].pool, blocks[i].base);
		json_t *arr = block_addrs(&blocks[i], allocs, n_allocs);
		char *text = json_dumps(arr, JSON_COMPACT), key[RN_ETCD_KEY_MAX];

		snprintf(next[i].pool, sizeof(next[i].pool), "%s", blocks[i].pool);
		next[i].family = blocks[i].family;
		next[i].base = blocks[i].base;
		next[i].hash = text ? fnv(text) : 0;
		free(text);
		/* a block never published and empty has nothing to say */
		if (old ? old->hash == next[i].hash : next[i].hash == empty) {
			json_decref(arr);
			continue;
		}
		json_t *v = json_pack("{s:s, s:s, s:I, s:o}", "pool", blocks[i].pool, "node", node,
				      "at", (json_int_t)time(NULL), "addrs", arr);
		char *value = json_dumps(v, JSON_COMPACT);

		json_decref(v);
		rn_block_used_key(key, prefix, blocks[i].pool, blocks[i].family, blocks[i].base);
		if (value)
			json_array_append_new(ops, rn_etcd_op_put_lease(key, value, l->id));
		free(value);
	}
	/* blocks given back since are forgotten: rn_block_release deleted
	 * their records with them (a delete here could hit the record of a
	 * node that claimed the block since) */
	changed = (int)json_array_size(ops);
	err = changed ? send_ops(c, ops, e) : 0;
	json_decref(ops);
	if (err) {
		free(next);
		return err;	/* the next tick tries again */
	}
	free(p->e);
	p->e = next;
	p->n = (unsigned int)n;
	p->last_ms = now;
	return changed;
}

static void copy_str(char *dst, size_t size, json_t *v)
{
	snprintf(dst, size, "%s", json_string_value(v) ?: "");
}

/* The addresses of one published record (only addr's, if given). */
static int parse_record(const struct rn_etcd_kv *kv, const struct rn_addr *addr,
			struct rn_block_pub_addr **out, int *n, struct rn_error *e)
{
	json_t *v = kv->value ? json_loadb(kv->value, kv->value_len, 0, NULL) : NULL;
	json_t *arr = json_object_get(v, "addrs"), *o;
	size_t i;

	json_array_foreach(arr, i, o) {
		struct rn_block_pub_addr *grown, *p;
		struct rn_addr a;

		if (rn_addr_parse(json_string_value(json_object_get(o, "ip")) ?: "", &a) ||
		    (addr && !rn_addr_equal(&a, addr)))
			continue;
		grown = realloc(*out, ((size_t)*n + 1) * sizeof(**out));
		if (!grown) {
			json_decref(v);
			return rn_fail(e, -ENOMEM, "ipam: out of memory");
		}
		*out = grown;
		p = &(*out)[(*n)++];
		memset(p, 0, sizeof(*p));
		p->a.addr = a;
		copy_str(p->a.pool, sizeof(p->a.pool), json_object_get(v, "pool"));
		copy_str(p->a.node, sizeof(p->a.node), json_object_get(v, "node"));
		copy_str(p->a.container_id, sizeof(p->a.container_id),
			 json_object_get(o, "container_id"));
		copy_str(p->a.ifname, sizeof(p->a.ifname), json_object_get(o, "ifname"));
		copy_str(p->a.pod_namespace, sizeof(p->a.pod_namespace),
			 json_object_get(o, "namespace"));
		copy_str(p->a.pod_name, sizeof(p->a.pod_name), json_object_get(o, "pod"));
		p->a.created = json_integer_value(json_object_get(o, "created"));
		p->at = json_integer_value(json_object_get(v, "at"));
	}
	json_decref(v);
	return 0;
}

int rn_block_published(const struct rn_ipam_settings *st, const char *pool,
		       const struct rn_addr *addr, const struct rn_pool *pools,
		       unsigned int n_pools, struct rn_block_pub_addr **out, struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX];
	struct rn_etcd *c;
	int n = 0, err;

	*out = NULL;
	if (st->store != RN_IPAM_STORE_ETCD)
		return 0;
	err = rn_etcd_open(&c, st, e);
	if (err)
		return err;
	rn_etcd_deadline(c);
	for (unsigned int i = 0; !err && i < (addr ? n_pools : 1); i++) {
		struct rn_etcd_range r;

		if (addr) {
			const struct rn_pool *p = &pools[i];
			rn_u128 a = rn_addr_to_u128(addr);

			if (!p->block || rn_pool_family(p) != addr->family ||
			    (pool && strcmp(pool, p->name)) ||
			    !rn_seg_contains(p->segs, p->n_segs, a))
				continue;
			rn_block_used_key(key, st->prefix, p->name, addr->family,
				 a & ~rn_block_last(addr->family, 0, p->block));
			err = rn_etcd_get(c, key, NULL, 0, false, false, &r, e);
		} else {
			snprintf(key, sizeof(key), "%s/used/%s%s", st->prefix, pool ? pool : "",
				 pool ? "/" : "");
			err = rn_etcd_get_prefix(c, key, false, &r, e);
		}
		for (size_t k = 0; !err && k < r.n; k++)
			err = parse_record(&r.kvs[k], addr, out, &n, e);
		rn_etcd_range_free(&r);
	}
	rn_etcd_close(c);
	if (err) {
		free(*out);
		*out = NULL;
		return err;
	}
	return n;
}

json_t *rn_block_pub_addr_to_json(const struct rn_block_pub_addr *p)
{
	json_t *o = rn_ipam_allocation_to_json(&p->a);
	char t[RN_IPAM_TIME_STRLEN];

	json_object_set_new(o, "published_at", json_string(rn_ipam_time_format(p->at, t)));
	return o;
}
