/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the etcd store (key layout in etcd_keys.h): the handle, its cache
 * of pool state, the records kept under the keys, and the helpers the
 * store's files share (store_etcd.c: handle and pools; store_etcd_alloc.c:
 * allocation; store_etcd_release.c: release; store_etcd_list.c: listing
 * and checks; etcd_records.c: records). */
#ifndef RDMANET_IPAM_ETCD_STORE_H
#define RDMANET_IPAM_ETCD_STORE_H

#include <stdbool.h>
#include <stddef.h>

#include "ipam/etcd_client.h"
#include "ipam/etcd_keys.h"
#include "ipam/store.h"

#define SCAN_PAGE	64	/* allocated keys read per step of a pick */
#define TXN_OPS_MAX	120	/* etcd's default --max-txn-ops is 128 */
#define OWNER_MAX	4	/* addresses an owner record may list (2 in practice) */

/* What this handle last saw of a pool's allocation state: enough for the
 * next allocation to go straight to its compare-and-swap (see
 * rn_et_allocate). Refreshed by every load of the pools, every allocation and
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

static inline struct etcd_store *to_et(struct rn_store *s)
{
	return (struct etcd_store *)s;
}

struct pool_cache *rn_et_cache_find(struct etcd_store *s, const char *pool);
/* Finds or adds the entry; NULL only on ENOMEM. */
struct pool_cache *rn_et_cache_get(struct etcd_store *s, const char *pool);
/* A cursor key (NULL: none) into the entry. */
void rn_et_cache_cursor(struct pool_cache *c, const struct rn_etcd_kv *kv, int family);

/* --- records (etcd_records.c) --- */

struct owner_rec {
	bool exists;
	long long mod_revision;
	unsigned int n;
	struct rn_ipam_allocation a[OWNER_MAX];
};

struct pool_rec {
	bool exists, deleting, from_config;
	long long mod_revision;
	struct rn_pool pool;		/* valid if exists */
};

int rn_et_parse_owner(const struct rn_etcd_kv *kv, const char *container_id,
		      const char *ifname, struct owner_rec *o, struct rn_error *e);
char *rn_et_owner_value(const struct owner_rec *o);
char *rn_et_ip_value(const struct rn_ipam_allocation *a);
int rn_et_parse_ip_kv(struct etcd_store *s, const struct rn_etcd_kv *kv,
		      struct rn_ipam_allocation *a, struct rn_error *e);
int rn_et_parse_pool_kv(const struct rn_etcd_kv *kv, struct pool_rec *p, struct rn_error *e);
char *rn_et_pool_value(const struct rn_pool *p, bool from_config, bool deleting);

/* --- reads and pools (store_etcd.c) --- */

/* Every key of [start, end) / under a prefix, in pages. */
int rn_et_get_all(struct etcd_store *s, const char *start, const char *end, bool keys_only,
		  struct rn_etcd_range *out, struct rn_error *e);
int rn_et_get_prefix(struct etcd_store *s, const char *prefix, bool keys_only,
		     struct rn_etcd_range *out, struct rn_error *e);
/* Every pool record (deleting ones included); returns the count. */
int rn_et_load_pool_recs(struct etcd_store *s, struct pool_rec **out, long long *revision,
			 struct rn_error *e);
void rn_et_free_pool_recs(struct pool_rec *recs, int n);
int rn_et_recs_to_infos(struct pool_rec *recs, int n, struct rn_ipam_pool_info **out,
			struct rn_error *e);
int rn_et_pools_load(struct rn_store *base, struct rn_ipam_pool_info **out,
		     struct rn_error *e);

/* --- owners and release (store_etcd_release.c) --- */

int rn_et_read_owner(struct etcd_store *s, const char *container_id, const char *ifname,
		     struct owner_rec *o, struct rn_error *e);
/* owner key unchanged since read (absent if it was) */
json_t *rn_et_owner_compare(const char *key, const struct owner_rec *o);
/* the owner key without entry drop (-1: none): a put, or a delete if empty */
json_t *rn_et_owner_write(const char *key, struct owner_rec *o, int drop);
/* The caller holds the deadline. Returns 1, or 0 if the address was free. */
int rn_et_release_ip_once(struct etcd_store *s, const char *pool, const struct rn_addr *addr,
			  struct rn_error *e);
int rn_et_release_owner(struct rn_store *base, const char *container_id, const char *ifname,
			struct rn_error *e);
int rn_et_release_ip(struct rn_store *base, const char *pool, const struct rn_addr *addr,
		     struct rn_error *e);

/* --- allocation (store_etcd_alloc.c), listing (store_etcd_list.c) --- */

int rn_et_allocate(struct rn_store *base, const struct rn_alloc_plan *plan,
		   struct rn_ipam_allocation out[2], struct rn_error *e);
int rn_et_list(struct rn_store *base, const struct rn_alloc_filter *f,
	       struct rn_ipam_allocation **out, struct rn_error *e);
int rn_et_count(struct rn_store *base, struct rn_ipam_pool_info *pools, int n,
		struct rn_error *e);
int rn_et_check(struct rn_store *base, char *report, size_t size, struct rn_error *e);

#endif
