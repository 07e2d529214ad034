// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A store that did not answer: every call fails with what it said
 * ("try again later"), so the calls that do not need it (block pools,
 * block_alloc.h) go on through an etcd outage and the others say why they
 * cannot. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/store.h"

struct down_store {
	struct rn_store base;
	struct rn_error why;
};

static int down(struct rn_store *s, struct rn_error *e)
{
	const struct down_store *d = (const struct down_store *)s;

	if (e)
		*e = d->why;
	return d->why.code;
}

static void dn_close(struct rn_store *s) { free(s); }
static int dn_pools_load(struct rn_store *s, struct rn_ipam_pool_info **out, struct rn_error *e)
{ *out = NULL; return down(s, e); }
static int dn_pool_write(struct rn_store *s, const struct rn_pool *p, bool from_config,
			 enum rn_pool_write mode, struct rn_error *e)
{ (void)p; (void)from_config; (void)mode; return down(s, e); }
static int dn_pool_delete(struct rn_store *s, const char *name, bool force, struct rn_error *e)
{ (void)name; (void)force; return down(s, e); }
static int dn_allocate(struct rn_store *s, const struct rn_alloc_plan *plan,
		       struct rn_ipam_allocation out[2], struct rn_error *e)
{ (void)plan; (void)out; return down(s, e); }
static int dn_release_owner(struct rn_store *s, const char *cid, const char *ifname,
			    struct rn_error *e)
{ (void)cid; (void)ifname; return down(s, e); }
static int dn_release_ip(struct rn_store *s, const char *pool, const struct rn_addr *addr,
			 struct rn_error *e)
{ (void)pool; (void)addr; return down(s, e); }
static int dn_list(struct rn_store *s, const struct rn_alloc_filter *f,
		   struct rn_ipam_allocation **out, struct rn_error *e)
{ (void)f; *out = NULL; return down(s, e); }
static int dn_count(struct rn_store *s, struct rn_ipam_pool_info *pools, int n,
		    struct rn_error *e)
{ (void)pools; (void)n; return down(s, e); }
static int dn_check(struct rn_store *s, char *report, size_t size, struct rn_error *e)
{ (void)report; (void)size; return down(s, e); }

static const struct rn_store_ops down_ops = {
	.name = "etcd",
	.close = dn_close,
	.pools_load = dn_pools_load,
	.pool_write = dn_pool_write,
	.pool_delete = dn_pool_delete,
	.allocate = dn_allocate,
	.release_owner = dn_release_owner,
	.release_ip = dn_release_ip,
	.list = dn_list,
	.count = dn_count,
	.check = dn_check,
};

int rn_store_down_open(struct rn_store **out, const struct rn_ipam_settings *st,
		       const struct rn_error *why, struct rn_error *e)
{
	struct down_store *d = calloc(1, sizeof(*d));

	*out = NULL;
	if (!d)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	d->base.ops = &down_ops;
	d->base.settings = st;
	d->why = *why;
	*out = &d->base;
	return 0;
}
