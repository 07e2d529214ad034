// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Blocks claimed in etcd under a node's lease (block_claim.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipam/block_claim.h"
#include "ipam/block_pick.h"
#include "ipam/block_publish.h"
#include "ipam/etcd_keys.h"
#include "ipam/pool_set.h"

long long rn_block_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void key_node(char *out, const char *prefix, const char *node)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/nodes/%s", prefix, node);
}

static void key_blocks(char *out, const char *prefix, const char *pool)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/blocks/%s%s", prefix, pool ? pool : "",
		 pool ? "/" : "");
}

void rn_block_key(char *out, const char *prefix, const char *pool, int family, rn_u128 base)
{
	char hex[33];
	struct rn_addr a;

	rn_addr_from_u128(&a, family, base);
	rn_etcd_addr_hex(&a, hex);
	snprintf(out, RN_ETCD_KEY_MAX, "%s/blocks/%s/%s", prefix, pool, hex);
}

rn_u128 rn_block_last(int family, rn_u128 base, unsigned int len)
{
	unsigned int host = (family == AF_INET ? 32 : 128) - len;

	return host >= 128 ? ~(rn_u128)0 : base + (((rn_u128)1 << host) - 1);
}

/* A put under a lease etcd no longer has fails with this. */
static int lease_gone(struct rn_error *e)
{
	if (e && strstr(e->msg, "lease not found"))
		e->code = -ENOENT;
	return e ? e->code : -EIO;
}

int rn_block_lease_keepalive(struct rn_etcd *c, struct rn_block_lease *l, struct rn_error *e)
{
	long long sent = rn_block_now_ms(), ttl;
	json_t *resp, *res;
	int err;

	rn_etcd_deadline(c);
	err = rn_etcd_post(c, "lease/keepalive", json_pack("{s:I}", "ID", (json_int_t)l->id),
			   &resp, e);
	if (err)
		return err;
	/* one keep-alive: the gateway answers with the stream's first message */
	res = json_object_get(resp, "result");
	ttl = rn_etcd_int64(json_object_get(res ? res : resp, "TTL"));
	json_decref(resp);
	if (ttl <= 0) {
		long long id = l->id;

		l->id = 0;
		l->valid_until_ms = 0;
		return rn_fail(e, -ENOENT, "ipam: blocks: lease %llx expired: every block "
			       "bound to it is lost", (unsigned long long)id);
	}
	l->ttl_s = ttl;
	l->valid_until_ms = sent + ttl * 1000;
	return 0;
}

int rn_block_lease_revoke(struct rn_etcd *c, struct rn_block_lease *l, struct rn_error *e)
{
	json_t *resp;
	int err;

	rn_etcd_deadline(c);
	err = rn_etcd_post(c, "lease/revoke", json_pack("{s:I}", "ID", (json_int_t)l->id),
			   &resp, e);
	if (err && lease_gone(e) != -ENOENT)
		return err;
	json_decref(resp);
	l->id = 0;
	l->valid_until_ms = 0;
	return 0;
}

static long long value_lease(const struct rn_etcd_kv *kv, char *node, size_t node_size,
			     long long *len)
{
	json_t *v = kv->value ? json_loadb(kv->value, kv->value_len, 0, NULL) : NULL;
	long long id = rn_etcd_int64(json_object_get(v, "lease"));
	const char *n = json_string_value(json_object_get(v, "node"));

	if (node)
		snprintf(node, node_size, "%s", n ? n : "");
	if (len)
		*len = json_integer_value(json_object_get(v, "len"));
	json_decref(v);
	return id;
}

/* "P/blocks/<pool>/<hex base>": the shape of an address key under "ips". */
static int parse_block_key(const char *key, const char *prefix, char *pool, size_t pool_size,
			   struct rn_addr *a)
{
	char ips[RN_ETCD_KEY_MAX];
	size_t plen = strlen(prefix);

	if (strncmp(key, prefix, plen) || strncmp(key + plen, "/blocks/", 8))
		return -EINVAL;
	snprintf(ips, sizeof(ips), "%s/ips/%s", prefix, key + plen + 8);
	return rn_etcd_parse_ip_key(ips, prefix, pool, pool_size, a);
}

/* The block a key names, if it is node's under lease l. */
static bool parse_owned(const struct rn_etcd_kv *kv, const char *prefix, const char *node,
			const struct rn_block_lease *l, struct rn_block *b)
{
	char owner[RN_POOL_NODE_MAX];
	long long len = 0;
	struct rn_addr a;

	memset(b, 0, sizeof(*b));
	if (parse_block_key(kv->key, prefix, b->pool, sizeof(b->pool), &a))
		return false;
	b->lease = value_lease(kv, owner, sizeof(owner), &len);
	if ((node && (b->lease != l->id || !l->id || strcmp(owner, node))) ||
	    len <= 0 || len > (a.family == AF_INET ? 32 : 128))
		return false;
	snprintf(b->node, sizeof(b->node), "%s", owner);
	b->family = a.family;
	b->base = rn_addr_to_u128(&a);
	b->len = (unsigned int)len;
	b->mod_revision = kv->mod_revision;
	return true;
}

static int grant(struct rn_etcd *c, long long ttl_s, struct rn_block_lease *l,
		 struct rn_error *e)
{
	long long sent = rn_block_now_ms();
	json_t *resp;
	int err = rn_etcd_post(c, "lease/grant", json_pack("{s:I}", "TTL", (json_int_t)ttl_s),
			       &resp, e);

	if (err)
		return err;
	l->id = rn_etcd_int64(json_object_get(resp, "ID"));
	l->ttl_s = rn_etcd_int64(json_object_get(resp, "TTL"));
	json_decref(resp);
	if (l->id <= 0 || l->ttl_s <= 0)
		return rn_fail(e, -EIO, "ipam: blocks: etcd granted no lease");
	l->valid_until_ms = sent + l->ttl_s * 1000;
	return 0;
}

int rn_block_lease_get(struct rn_etcd *c, const char *prefix, const char *node,
		       long long ttl_s, struct rn_block_lease *l, struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX], value[64];
	struct rn_etcd_range r;
	long long mod = 0;
	int err, tries = 0;
	bool ok;

	memset(l, 0, sizeof(*l));
	key_node(key, prefix, node);
	rn_etcd_deadline(c);
again:
	err = rn_etcd_get(c, key, NULL, 0, false, false, &r, e);
	if (err)
		return err;
	if (r.n) {
		l->id = value_lease(&r.kvs[0], NULL, 0, NULL);
		mod = r.kvs[0].mod_revision;
	}
	rn_etcd_range_free(&r);
	if (l->id) {
		err = rn_block_lease_keepalive(c, l, e);
		if (err != -ENOENT)
			return err;	/* alive (0), or etcd did not answer */
	}
	rn_etcd_deadline(c);
	err = grant(c, ttl_s, l, e);
	if (err)
		return err;
	snprintf(value, sizeof(value), "{\"lease\":\"%lld\"}", l->id);
	/* the node key as read: two processes of one node starting at once
	 * must not each record a lease of their own */
	err = rn_etcd_txn(c, json_pack("[o]", mod ? rn_etcd_cmp_mod(key, mod) :
						     rn_etcd_cmp_create(key, 0)),
			  json_pack("[o]", rn_etcd_op_put_lease(key, value, l->id)), NULL, &ok,
			  NULL, 0, e);
	if (!err && !ok) {
		/* another process of the node recorded its lease first: use that */
		struct rn_block_lease mine = *l;

		rn_block_lease_revoke(c, &mine, NULL);
		if (++tries > 8)
			return rn_fail(e, -EAGAIN, "ipam: blocks: node %s's lease kept changing: "
				       "try again later", node);
		memset(l, 0, sizeof(*l));
		mod = 0;
		goto again;
	}
	if (!err)
		l->granted = true;
	return err ? lease_gone(e) : 0;
}

/* Addresses of [base, last] the pool holds per allocation (P/ips/...: the
 * pool's allocations from before it had a block, or from a node whose
 * config does not say "block" yet): such a block is not free to claim, or
 * its holder's addresses would be handed out again. >0, 0, or an error. */
static long long held_per_allocation(struct rn_etcd *c, const char *prefix, const char *pool,
				     int family, rn_u128 base, rn_u128 last, struct rn_error *e)
{
	char from[RN_ETCD_KEY_MAX], to[RN_ETCD_KEY_MAX + 1];
	struct rn_etcd_range r;
	struct rn_addr a;
	long long n;
	int err;

	rn_addr_from_u128(&a, family, base);
	rn_etcd_key_ip(from, prefix, pool, &a);
	rn_addr_from_u128(&a, family, last);
	rn_etcd_key_ip(to, prefix, pool, &a);
	/* keys are fixed-width hex: KEY(last) "0" sorts after KEY(last) and
	 * before KEY(last + 1) */
	strcat(to, "0");
	err = rn_etcd_get(c, from, to, 1, true, true, &r, e);
	if (err)
		return err;
	n = r.count;
	rn_etcd_range_free(&r);
	return n;
}

/* A page of the pool's claimed block keys from a candidate block on, up
 * to range_end, read as the search needs it. */
struct window {
	struct rn_etcd_range r;
	size_t k;			/* first key not below the candidate */
	bool read;
	unsigned int pages;		/* read so far */
	rn_u128 last;			/* base of the last key read (r.more) */
};

/* Whether the block at base is claimed, reading the next page from base
 * when base lies past what was read. */
static int window_taken(struct rn_etcd *c, const char *prefix, const struct rn_pool *p,
			struct window *w, rn_u128 base, const char *range_end,
			struct rn_error *e)
{
	char from[RN_ETCD_KEY_MAX], pool[RN_POOL_NAME_MAX];
	struct rn_addr a;
	int err;

	if (!w->read || (w->r.more && base > w->last)) {
		rn_etcd_range_free(&w->r);
		w->read = false;
		w->k = 0;
		rn_block_key(from, prefix, p->name, rn_pool_family(p), base);
		/* the first page is the window; a full one means a crowded
		 * part of the pool: the rest in large pages */
		err = rn_etcd_get(c, from, range_end,
				  w->pages++ ? RN_ETCD_PAGE : RN_BLOCK_CLAIM_WINDOW, true, false,
				  &w->r, e);
		if (err)
			return err;
		w->read = true;
		w->last = 0;
		if (w->r.n && !parse_block_key(w->r.kvs[w->r.n - 1].key, prefix, pool,
					       sizeof(pool), &a))
			w->last = rn_addr_to_u128(&a);
		else if (w->r.n)
			w->r.more = false;	/* a key we cannot read ends the walk: full scan after */
	}
	/* keys are in address order, as are the candidates */
	for (; w->k < w->r.n; w->k++) {
		if (parse_block_key(w->r.kvs[w->k].key, prefix, pool, sizeof(pool), &a))
			continue;
		if (rn_addr_to_u128(&a) >= base)
			return rn_addr_to_u128(&a) == base;
	}
	return 0;
}

int rn_block_claim(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, const struct rn_pool *p, struct rn_block *out,
		   struct rn_error *e)
{
	int family = rn_pool_family(p);
	char dir[RN_ETCD_KEY_MAX], key[RN_ETCD_KEY_MAX], stop[RN_ETCD_KEY_MAX];
	char value[RN_POOL_NODE_MAX + 96], *end;
	struct window w = { 0 };
	rn_u128 start, cur;
	bool wrapped = false;
	int err = 0;

	if (!p->block)
		return rn_fail(e, -EINVAL, "ipam: pool \"%s\" has no block size", p->name);
	if (!l->id)
		return rn_fail(e, -ENOENT, "ipam: blocks: node %s holds no lease", node);
	if (!rn_block_start(p, node, &start))
		return rn_fail(e, -ENOSPC, "ipam: pool \"%s\": every /%u block is claimed",
			       p->name, p->block);
	key_blocks(dir, prefix, p->name);
	end = rn_etcd_prefix_end(dir);
	if (!end)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	/* from the node's start to the pool's end, then from the pool's first
	 * block up to the start */
	rn_block_key(stop, prefix, p->name, family, start);
	rn_etcd_deadline(c);
	for (cur = start;;) {
		long long held, rev = 0;
		bool ok;
		int taken = window_taken(c, prefix, p, &w, cur, wrapped ? stop : end, e);

		if (taken < 0) {
			err = taken;
			break;
		}
		held = taken ? 0 : held_per_allocation(c, prefix, p->name, family, cur,
							rn_block_last(family, cur, p->block), e);
		if (held < 0) {
			err = (int)held;
			break;
		}
		if (!taken && !held) {
			rn_block_key(key, prefix, p->name, family, cur);
			snprintf(value, sizeof(value),
				 "{\"node\":\"%s\",\"lease\":\"%lld\",\"len\":%u}", node, l->id,
				 p->block);
			err = rn_etcd_txn_rev(c, json_pack("[o]", rn_etcd_cmp_create(key, 0)),
					      json_pack("[o]", rn_etcd_op_put_lease(key, value,
										    l->id)),
					      NULL, &ok, NULL, 0, &rev, e);
			if (err) {
				err = lease_gone(e);
				break;
			}
			if (ok) {
				memset(out, 0, sizeof(*out));
				snprintf(out->pool, sizeof(out->pool), "%s", p->name);
				snprintf(out->node, sizeof(out->node), "%s", node);
				out->family = family;
				out->base = cur;
				out->len = p->block;
				out->lease = l->id;
				/* the revision of the put: what a release compares */
				out->mod_revision = rev;
				break;
			}
			if (rn_etcd_expired(c)) {
				err = rn_fail(e, -EAGAIN, "ipam: blocks: pool \"%s\": claims kept "
					      "racing other nodes: try again later", p->name);
				break;
			}
			/* another node took it first: on to the next one */
		}
		if (!rn_block_after(p, cur, &cur)) {
			if (wrapped || !rn_block_nth(p, 0, &cur) || cur == start)
				cur = start;	/* every block seen */
			else {
				wrapped = true;
				rn_etcd_range_free(&w.r);
				w.read = false;
			}
		}
		if (cur == start) {
			err = rn_fail(e, -ENOSPC, "ipam: pool \"%s\": every /%u block is claimed",
				      p->name, p->block);
			break;
		}
	}
	rn_etcd_range_free(&w.r);
	free(end);
	return err;
}

int rn_block_list(struct rn_etcd *c, const char *prefix, const char *node,
		  const struct rn_block_lease *l, const char *pool, struct rn_block **out,
		  struct rn_error *e)
{
	char dir[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	int n = 0, err;

	*out = NULL;
	key_blocks(dir, prefix, pool);
	rn_etcd_deadline(c);
	err = rn_etcd_get_prefix(c, dir, false, &r, e);
	if (err)
		return err;
	*out = calloc(r.n + 1, sizeof(**out));
	if (!*out) {
		rn_etcd_range_free(&r);
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	}
	for (size_t i = 0; i < r.n; i++)
		if (parse_owned(&r.kvs[i], prefix, node, l, &(*out)[n]))
			n++;
	rn_etcd_range_free(&r);
	return n;
}

int rn_block_owned(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, struct rn_block *b, struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	struct rn_block now;
	bool mine;
	int err;

	rn_block_key(key, prefix, b->pool, b->family, b->base);
	if (rn_etcd_expired(c))
		rn_etcd_deadline(c);
	err = rn_etcd_get(c, key, NULL, 0, false, false, &r, e);
	if (err)
		return err;
	mine = r.n && parse_owned(&r.kvs[0], prefix, node, l, &now) && now.len == b->len;
	if (mine)
		b->mod_revision = now.mod_revision;
	rn_etcd_range_free(&r);
	return mine;
}

int rn_block_release(struct rn_etcd *c, const char *prefix, const struct rn_block *b,
		     struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX], used[RN_ETCD_KEY_MAX];
	bool ok;
	int err;

	rn_block_key(key, prefix, b->pool, b->family, b->base);
	/* its published addresses go with it (block_publish.h) */
	rn_block_used_key(used, prefix, b->pool, b->family, b->base);
	rn_etcd_deadline(c);
	err = rn_etcd_txn(c, json_pack("[o]", rn_etcd_cmp_mod(key, b->mod_revision)),
			  json_pack("[o, o]", rn_etcd_op_delete(key, NULL),
				    rn_etcd_op_delete(used, NULL)), NULL, &ok, NULL, 0, e);
	return err ? err : ok;
}
