// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Listing, counting and checking the etcd store. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/etcd_store.h"

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
	int err = rn_et_read_owner(s, f->container_id, f->ifname ? f->ifname : "", &o, e);

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
	err = rn_et_get_prefix(s, start, false, &r, e);
	if (err)
		return err;
	v = calloc(r.n + 1, sizeof(*v));
	if (!v) {
		rn_etcd_range_free(&r);
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	}
	for (size_t i = 0; i < r.n && !err; i++) {
		err = rn_et_parse_ip_kv(s, &r.kvs[i], &v[n], e);
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
	int n = rn_et_pools_load(&s->base, &pools, e), k = 0, err = 0;

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
			err = rn_et_parse_ip_kv(s, &r.kvs[0], &v[k++], e);
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

int rn_et_list(struct rn_store *base, const struct rn_alloc_filter *f,
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

int rn_et_count(struct rn_store *base, struct rn_ipam_pool_info *pools, int n,
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
int rn_et_check(struct rn_store *base, char *report, size_t size, struct rn_error *e)
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
	n_pools = rn_et_load_pool_recs(s, &recs, NULL, e);
	if (n_pools < 0)
		return n_pools;
	n_ip = list_keys(s, &all, &by_ip, e);
	rn_etcd_key_owners(start, s->prefix);
	err = n_ip < 0 ? n_ip : rn_et_get_prefix(s, start, false, &owners, e);
	if (err) {
		free(by_ip);
		rn_et_free_pool_recs(recs, n_pools);
		return err;
	}
	by_owner = calloc(owners.n * OWNER_MAX + 1, sizeof(*by_owner));
	for (size_t i = 0; by_owner && i < owners.n; i++) {
		struct owner_rec o;
		/* owner keys hold escaped names: match entries to address keys by
		 * (pool, address) and then by owner key, kept in container_id */
		if (rn_et_parse_owner(&owners.kvs[i], owners.kvs[i].key, "", &o, NULL)) {
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
	rn_et_free_pool_recs(recs, n_pools);
	return problems;
}
