// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The public IPAM calls (ipam.h): requests checked and resolved into plans
 * against the stored pools, carried out by the configured store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipam/block_alloc.h"
#include "ipam/ipam_fault.h"
#include "ipam/cluster_check.h"
#include "ipam/ipam.h"
#include "ipam/ipam_settings.h"
#include "ipam/store.h"

struct rn_ipam {
	const struct rn_config *cfg;
	struct rn_ipam_settings settings;
	struct rn_store *store;
	struct rn_ipam_pool_info *pools;	/* as last loaded from the store */
	int n_pools;
	struct rn_pool *cfg_pools;
	unsigned int n_cfg_pools;
	int cfg_pools_added;		/* by the open, not yet reported by a sync */
	bool read_only;
	struct rn_block_alloc *blocks;	/* block pools of etcd: opened on first use */
	bool etcd_down;			/* opened on the node's store alone */
	struct rn_store *own;		/* read-only: the node's store, own_store_readonly */
	struct rn_ipam_settings own_st;
};

/* With etcd, pools with "block" are allocated on the node (block_alloc.h). */
static bool block_mode(const struct rn_ipam *ipam, const struct rn_pool *p)
{
	return ipam->settings.store == RN_IPAM_STORE_ETCD && p->block;
}

static bool any_block_pool(const struct rn_ipam *ipam)
{
	for (int i = 0; i < ipam->n_pools; i++)
		if (block_mode(ipam, &ipam->pools[i].pool))
			return true;
	return false;
}

/* The node-local side of block pools, or NULL when there are none. */
static struct rn_block_alloc *blocks(struct rn_ipam *ipam, struct rn_error *e, int *err)
{
	*err = 0;
	if (!ipam->blocks && any_block_pool(ipam))
		*err = rn_block_alloc_open(&ipam->blocks, &ipam->settings, ipam->cfg->node, e);
	return ipam->blocks;
}

/* A read-only handle's look into the node's own store (ipam.path), which
 * holds the block pools' addresses handed out on this node (blocks() would
 * create it and take the node's lease): opened read-only on first use;
 * NULL with no block pool, or no store there yet (nothing handed out). */
static struct rn_store *own_store_readonly(struct rn_ipam *ipam, struct rn_error *e, int *err)
{
	*err = 0;
	if (!ipam->own && any_block_pool(ipam) && !access(ipam->settings.path, F_OK)) {
		ipam->own_st = ipam->settings;
		ipam->own_st.store = RN_IPAM_STORE_SQLITE;
		*err = rn_store_sqlite_open(&ipam->own, &ipam->own_st, true, e);
	}
	return ipam->own;
}

static int reload_pools(struct rn_ipam *ipam, struct rn_error *e)
{
	struct rn_ipam_pool_info *pools;
	int n = ipam->store->ops->pools_load(ipam->store, &pools, e);

	if (n < 0)
		return n;
	rn_ipam_pools_free(ipam->pools, ipam->n_pools);
	ipam->pools = pools;
	ipam->n_pools = n;
	return 0;
}

static const struct rn_ipam_pool_info *find_pool(const struct rn_ipam *ipam, const char *name)
{
	if (!name)
		return NULL;
	for (int i = 0; i < ipam->n_pools; i++)
		if (!strcmp(ipam->pools[i].pool.name, name))
			return &ipam->pools[i];
	return NULL;
}

/* Config pools the store lacks are added (first use); existing ones are
 * left alone here: replacing definitions is rn_ipam_sync's job. */
static int add_missing_config_pools(struct rn_ipam *ipam, struct rn_error *e)
{
	int written = 0;

	for (unsigned int i = 0; i < ipam->n_cfg_pools; i++) {
		int r;

		if (find_pool(ipam, ipam->cfg_pools[i].name))
			continue;
		r = ipam->store->ops->pool_write(ipam->store, &ipam->cfg_pools[i], true,
						 RN_POOL_IF_MISSING, e);
		if (r < 0)
			return rn_fail_wrap(e, "config pool \"%s\"", ipam->cfg_pools[i].name);
		written += r;
	}
	ipam->cfg_pools_added = written;
	return written ? reload_pools(ipam, e) : 0;
}

/* etcd did not answer the open: a node with block pools goes on with the
 * pools its own store holds (block_alloc.h): its blocks' addresses need no
 * etcd while its lease is known valid; everything else says "try again
 * later" with etcd's error. */
static int open_etcd_down(struct rn_ipam *ipam, struct rn_error *e)
{
	struct rn_ipam_pool_info *local;
	struct rn_error why = *e;
	struct rn_store *local_store;
	int n, k = 0;

	if (rn_block_alloc_open(&ipam->blocks, &ipam->settings, ipam->cfg->node, e))
		goto fail;
	local_store = rn_block_alloc_store(ipam->blocks);
	n = local_store->ops->pools_load(local_store, &local, e);
	if (n < 0)
		goto fail;
	for (int i = 0; i < n; i++) {
		if (local[i].pool.block)
			local[k++] = local[i];
		else
			rn_pool_free(&local[i].pool);
	}
	if (!k) {
		free(local);
		goto fail;
	}
	rn_ipam_pools_free(ipam->pools, ipam->n_pools);
	ipam->pools = local;
	ipam->n_pools = k;
	ipam->store->ops->close(ipam->store);
	ipam->store = NULL;
	if (rn_store_down_open(&ipam->store, &ipam->settings, &why, e))
		return e->code;
	ipam->etcd_down = true;
	return 0;
fail:
	*e = why;
	return why.code;
}

/* The steady state of a node with block pools: its view of its blocks is
 * valid and its store holds every block pool of the config as the config
 * defines it. The handle then starts from those pools, with no request to
 * etcd (a request naming another pool loads etcd's, see lookup_pool), so
 * an ADD from block pools makes no round trip. Returns true if so. */
static bool open_from_blocks(struct rn_ipam *ipam)
{
	struct rn_ipam_pool_info *local;
	struct rn_store *s;
	unsigned int wanted = 0;
	int n, k = 0;

	for (unsigned int i = 0; i < ipam->n_cfg_pools; i++)
		wanted += ipam->cfg_pools[i].block != 0;
	if (!wanted || rn_block_alloc_open(&ipam->blocks, &ipam->settings, ipam->cfg->node, NULL))
		return false;
	if (!rn_block_alloc_valid(ipam->blocks))
		return false;
	s = rn_block_alloc_store(ipam->blocks);
	n = s->ops->pools_load(s, &local, NULL);
	if (n < 0)
		return false;
	for (unsigned int i = 0; i < ipam->n_cfg_pools; i++)
		for (int j = 0; ipam->cfg_pools[i].block && j < n; j++)
			k += rn_pool_equal(&ipam->cfg_pools[i], &local[j].pool);
	if ((unsigned int)k != wanted) {
		rn_ipam_pools_free(local, n);
		return false;
	}
	ipam->pools = local;
	ipam->n_pools = n;
	return true;
}

static int open_handle(struct rn_ipam **out, const struct rn_config *c, bool read_only,
		       struct rn_error *e)
{
	struct rn_ipam *ipam = calloc(1, sizeof(*ipam));
	int err;

	*out = NULL;
	if (!ipam)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	ipam->cfg = c;
	ipam->read_only = read_only;
	err = rn_ipam_settings_parse(&ipam->settings, c, e) ||
	      rn_ipam_config_pools(c, &ipam->cfg_pools, &ipam->n_cfg_pools, e);
	if (!err)
		err = ipam->settings.store == RN_IPAM_STORE_ETCD ?
			rn_store_etcd_open(&ipam->store, &ipam->settings, e) :
			rn_store_sqlite_open(&ipam->store, &ipam->settings, read_only, e);
	if (!err && !read_only && ipam->settings.store == RN_IPAM_STORE_ETCD &&
	    open_from_blocks(ipam)) {
		*out = ipam;
		return 0;
	}
	if (!err) {
		err = reload_pools(ipam, e);
		if (err == -EAGAIN && e && !read_only &&
		    ipam->settings.store == RN_IPAM_STORE_ETCD)
			err = open_etcd_down(ipam, e);
		else if (!err && !read_only)
			err = add_missing_config_pools(ipam, e);
	}
	if (err) {
		rn_ipam_close(ipam);
		return e && e->code ? e->code : -EINVAL;
	}
	*out = ipam;
	return 0;
}

int rn_ipam_open(struct rn_ipam **out, const struct rn_config *c, struct rn_error *e)
{
	return open_handle(out, c, false, e);
}

int rn_ipam_open_readonly(struct rn_ipam **out, const struct rn_config *c, struct rn_error *e)
{
	return open_handle(out, c, true, e);
}

static int check_writable(const struct rn_ipam *ipam, const char *what, struct rn_error *e)
{
	if (ipam->read_only)
		return rn_fail(e, -EROFS, "ipam: %s: the store was opened read-only", what);
	return 0;
}

void rn_ipam_close(struct rn_ipam *ipam)
{
	if (!ipam)
		return;
	if (ipam->store)
		ipam->store->ops->close(ipam->store);
	if (ipam->own)
		ipam->own->ops->close(ipam->own);
	rn_block_alloc_close(ipam->blocks);
	rn_ipam_pools_free(ipam->pools, ipam->n_pools);
	rn_ipam_config_pools_free(ipam->cfg_pools, ipam->n_cfg_pools);
	free(ipam);
}

const char *rn_ipam_store_name(const struct rn_ipam *ipam)
{
	return ipam->store->ops->name;
}

void rn_ipam_pools_free(struct rn_ipam_pool_info *pools, int n)
{
	for (int i = 0; i < n; i++)
		rn_pool_free(&pools[i].pool);
	free(pools);
}

/* --- requests ---------------------------------------------------------------- */

static int check_owner(const char *container_id, const char *ifname, struct rn_error *e)
{
	if (!container_id || !container_id[0])
		return rn_fail(e, -EINVAL, "ipam: container id is required");
	if (strlen(container_id) >= RN_IPAM_ID_MAX)
		return rn_fail(e, -EINVAL, "ipam: container id longer than %d characters",
			       RN_IPAM_ID_MAX - 1);
	if (!ifname || !ifname[0])
		return rn_fail(e, -EINVAL, "ipam: interface name is required");
	if (strlen(ifname) >= RN_IFNAMSIZ)
		return rn_fail(e, -EINVAL, "ipam: interface name \"%s\" longer than %d characters",
			       ifname, RN_IFNAMSIZ - 1);
	return 0;
}

static int check_label(const char *v, size_t max, const char *what, struct rn_error *e)
{
	if (v && strlen(v) >= max)
		return rn_fail(e, -EINVAL, "ipam: %s longer than %zu characters", what, max - 1);
	return 0;
}

static int lookup_pool(struct rn_ipam *ipam, const char *name, const struct rn_ipam_pool_info **p,
		       struct rn_error *e)
{
	*p = find_pool(ipam, name);
	if (*p)
		return 0;
	/* added by someone else since we loaded */
	if (reload_pools(ipam, e))
		return e ? e->code : -EIO;
	*p = find_pool(ipam, name);
	return *p ? 0 : rn_fail(e, -ENOENT, "ipam: pool \"%s\" not found", name ? name : "");
}

static bool knows_all(const struct rn_ipam *ipam, const char *const *names, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (!find_pool(ipam, names[i]))
			return false;
	return true;
}

/* Reloads the pool list (at most once) if the request names a pool this
 * handle has not seen: a plan points into ipam->pools, which a reload
 * frees, so every name is resolved before any pointer is taken. */
static int resolve_request_pools(struct rn_ipam *ipam, const struct rn_ipam_request *req,
				 struct rn_error *e)
{
	if (knows_all(ipam, req->ipv4_pools, req->n_ipv4_pools) &&
	    knows_all(ipam, req->ipv6_pools, req->n_ipv6_pools))
		return 0;
	/* added by someone else since we loaded */
	return reload_pools(ipam, e) ? (e ? e->code : -EIO) : 0;
}

/* Only after resolve_request_pools(): takes pointers, never reloads. */
static int plan_family(struct rn_ipam *ipam, const struct rn_ipam_request *req, int family,
		       const char *const *names, unsigned int n, const char *node,
		       struct rn_alloc_family *f, struct rn_error *e)
{
	const char *fam = family == AF_INET ? "ipv4" : "ipv6";

	if (n > RN_IPAM_MAX_POOLS)
		return rn_fail(e, -EINVAL, "ipam: more than %d %s pools in one request",
			       RN_IPAM_MAX_POOLS, fam);
	f->family = family;
	f->n = 0;
	for (unsigned int i = 0; i < n; i++) {
		const struct rn_ipam_pool_info *p = find_pool(ipam, names[i]);

		if (!p)
			return rn_fail(e, -ENOENT, "ipam: pool \"%s\" not found",
				       names[i] ? names[i] : "");
		if (rn_pool_family(&p->pool) != family)
			return rn_fail(e, -EINVAL, "ipam: pool \"%s\" is %s but listed under %s",
				       names[i], family == AF_INET ? "IPv6" : "IPv4", fam);
		if (!rn_pool_serves_master(&p->pool, req->master) ||
		    !rn_pool_serves_node(&p->pool, node))
			continue;
		/* a pool stored before the config said "cluster" (pool add) */
		if (ipam->cfg->cluster &&
		    rn_ipam_pool_cluster_check(&ipam->settings, &p->pool, e))
			return rn_fail_wrap(e, "ipam");
		f->pools[f->n++] = &p->pool;
	}
	if (!f->n)
		return rn_fail(e, -EINVAL, "ipam: no %s pool of the %u listed (first: \"%s\") "
			       "serves master \"%s\" on node \"%s\"", fam, n, names[0],
			       req->master ? req->master : "", node);
	return 0;
}

static int fill_address(struct rn_ipam *ipam, const struct rn_ipam_allocation *a,
			struct rn_ipam_address *out, struct rn_error *e)
{
	const struct rn_ipam_pool_info *info;
	const struct rn_pool *p;

	if (lookup_pool(ipam, a->pool, &info, e))
		return e ? e->code : -ENOENT;
	p = &info->pool;
	memset(out, 0, sizeof(*out));
	out->address.addr = a->addr;
	out->address.len = p->subnet.len;
	out->has_gateway = p->has_gateway;
	out->gateway = p->gateway;
	out->n_routes = p->n_routes;
	memcpy(out->routes, p->routes, sizeof(out->routes));
	snprintf(out->pool, sizeof(out->pool), "%s", p->name);
	out->vlan = p->vlan;
	return 0;
}

/* Block pools on the node, the others in the store; one attachment's
 * addresses all come from one side (so a release knows where they are). */
static int allocate_plan(struct rn_ipam *ipam, struct rn_alloc_plan *plan,
			 struct rn_ipam_allocation got[2], struct rn_error *e)
{
	unsigned int n = 0, in_blocks = 0;
	struct rn_block_alloc *ba;
	int err;

	for (unsigned int f = 0; f < plan->n_families; f++)
		for (unsigned int i = 0; i < plan->fam[f].n; i++, n++)
			in_blocks += block_mode(ipam, plan->fam[f].pools[i]);
	if (!in_blocks)
		return ipam->store->ops->allocate(ipam->store, plan, got, e);
	if (in_blocks != n)
		return rn_fail(e, -EINVAL, "ipam: a request takes its pools all with a \"block\" "
			       "or all without (pool \"%s\")", plan->fam[0].pools[0]->name);
	ba = blocks(ipam, e, &err);
	return err ? err : rn_block_alloc_allocate(ba, plan, got, e);
}

int rn_ipam_allocate(struct rn_ipam *ipam, const struct rn_ipam_request *req,
		     struct rn_ipam_result *res, struct rn_error *e)
{
	struct rn_alloc_plan plan = { 0 };
	struct rn_ipam_allocation got[2];
	const char *node = req->node && req->node[0] ? req->node : ipam->cfg->node;
	int err;

	memset(res, 0, sizeof(*res));
	if (check_writable(ipam, "allocate", e) ||
	    check_owner(req->container_id, req->ifname, e) ||
	    check_label(req->pod_namespace, RN_IPAM_NS_MAX, "pod namespace", e) ||
	    check_label(req->pod_name, RN_IPAM_POD_MAX, "pod name", e) ||
	    check_label(node, RN_POOL_NODE_MAX, "node name", e))
		return e ? e->code : -EINVAL;
	if (!req->n_ipv4_pools && !req->n_ipv6_pools)
		return rn_fail(e, -EINVAL, "ipam: the request names no pool");
	plan.container_id = req->container_id;
	plan.ifname = req->ifname;
	plan.pod_namespace = req->pod_namespace;
	plan.pod_name = req->pod_name;
	plan.node = node;
	if (resolve_request_pools(ipam, req, e))
		return e ? e->code : -EIO;
	if (req->n_ipv4_pools &&
	    plan_family(ipam, req, AF_INET, req->ipv4_pools, req->n_ipv4_pools, node,
			&plan.fam[plan.n_families++], e))
		return e ? e->code : -EINVAL;
	if (req->n_ipv6_pools &&
	    plan_family(ipam, req, AF_INET6, req->ipv6_pools, req->n_ipv6_pools, node,
			&plan.fam[plan.n_families++], e))
		return e ? e->code : -EINVAL;
	err = allocate_plan(ipam, &plan, got, e);
	if (err)
		return err;
	for (unsigned int i = 0; i < plan.n_families; i++) {
		err = fill_address(ipam, &got[i], &res->addrs[i], e);
		if (err)
			return err;
	}
	res->n = plan.n_families;
	return 0;
}

int rn_ipam_release(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		    struct rn_error *e)
{
	struct rn_block_alloc *ba;
	int err, n;

	if (check_writable(ipam, "release", e) || check_owner(container_id, ifname, e))
		return e ? e->code : -EINVAL;
	/* an attachment of block pools is released on the node alone: DEL
	 * works through an etcd outage */
	ba = blocks(ipam, e, &err);
	if (err)
		return err;
	if (ba) {
		n = rn_block_alloc_store(ba)->ops->release_owner(rn_block_alloc_store(ba),
								  container_id, ifname, e);
		if (n != 0)
			return n;
		rn_ipam_fault_point("release-etcd");
	}
	n = ipam->store->ops->release_owner(ipam->store, container_id, ifname, e);
	if (n != 0 || !ba)
		return n;
	/* etcd had nothing either: the agent may have adopted the attachment's
	 * per-allocation address (block_adopt.h) between the two looks, copying
	 * it to the node's store and deleting it from etcd; a second look there
	 * releases that copy (else the address stays held on the node) */
	return rn_block_alloc_store(ba)->ops->release_owner(rn_block_alloc_store(ba),
							     container_id, ifname, e);
}

int rn_ipam_release_ip(struct rn_ipam *ipam, const char *pool, const struct rn_addr *addr,
		       struct rn_error *e)
{
	const struct rn_ipam_pool_info *p;
	int err = 0, n;

	if (check_writable(ipam, "release", e) || lookup_pool(ipam, pool, &p, e))
		return e ? e->code : -ENOENT;
	if (addr->family != rn_pool_family(&p->pool))
		return rn_fail(e, -EINVAL, "ipam: pool \"%s\" holds no address of that family",
			       pool);
	/* a block pool's addresses handed out on this node are in its own
	 * store, in no etcd record; etcd keeps the pool's per-allocation ones
	 * not yet adopted (block_adopt.h) */
	if (block_mode(ipam, &p->pool)) {
		struct rn_block_alloc *ba = blocks(ipam, e, &err);
		struct rn_store *own = ba ? rn_block_alloc_store(ba) : NULL;

		if (err)
			return err;
		n = own ? own->ops->release_ip(own, pool, addr, e) : 0;
		if (n != 0)
			return n;
	}
	return ipam->store->ops->release_ip(ipam->store, pool, addr, e);
}

static int owner_cmp(const void *a, const void *b)
{
	const struct rn_ipam_owner *x = a, *y = b;
	int c = strcmp(x->container_id, y->container_id);

	return c ? c : strcmp(x->ifname, y->ifname);
}

int rn_ipam_gc_scoped(struct rn_ipam *ipam, const struct rn_ipam_gc_scope *scope,
		      const struct rn_ipam_owner *valid, size_t n, bool dry_run,
		      struct rn_error *e)
{
	const char *node = scope->node && scope->node[0] ? scope->node : ipam->cfg->node;
	struct rn_alloc_filter all = { 0 };
	struct rn_ipam_allocation *allocs;
	struct rn_ipam_owner *sorted = NULL;
	int count, released = 0, err = 0;

	if ((!dry_run && check_writable(ipam, "gc", e)) ||
	    check_label(node, RN_POOL_NODE_MAX, "node name", e))
		return e ? e->code : -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!valid[i].container_id || !valid[i].ifname)
			return rn_fail(e, -EINVAL, "ipam: gc: valid attachment %zu lacks a "
				       "container id or interface name", i);
	if (n) {
		sorted = malloc(n * sizeof(*sorted));
		if (!sorted)
			return rn_fail(e, -ENOMEM, "ipam: out of memory");
		memcpy(sorted, valid, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), owner_cmp);
	}
	count = ipam->store->ops->list(ipam->store, &all, &allocs, e);
	if (count < 0) {
		free(sorted);
		return count;
	}
	for (int i = 0; i < count && !err; i++) {
		struct rn_ipam_owner key = { allocs[i].container_id, allocs[i].ifname };
		int r;

		if (!scope->all_nodes && strcmp(allocs[i].node, node))
			continue;	/* another node's: its runtime decides */
		if (n && bsearch(&key, sorted, n, sizeof(*sorted), owner_cmp))
			continue;
		if (dry_run) {
			released++;
			continue;
		}
		r = ipam->store->ops->release_owner(ipam->store, key.container_id, key.ifname, e);
		if (r < 0)
			err = r;
		else
			released += r;
	}
	free(allocs);
	free(sorted);
	return err ? err : released;
}

int rn_ipam_gc(struct rn_ipam *ipam, const struct rn_ipam_owner *valid, size_t n,
	       bool dry_run, struct rn_error *e)
{
	const struct rn_ipam_gc_scope this_node = { 0 };

	return rn_ipam_gc_scoped(ipam, &this_node, valid, n, dry_run, e);
}

/* --- lookups ------------------------------------------------------------------- */

static int list_store(struct rn_store *s, const struct rn_alloc_filter *f,
		      struct rn_ipam_allocation *out, size_t max, struct rn_error *e)
{
	struct rn_ipam_allocation *all;
	int n = s->ops->list(s, f, &all, e);

	if (n < 0)
		return n;
	memcpy(out, all, ((size_t)n < max ? (size_t)n : max) * sizeof(*out));
	free(all);
	return n;
}

static int list_into(struct rn_ipam *ipam, const struct rn_alloc_filter *f,
		     struct rn_ipam_allocation *out, size_t max, struct rn_error *e)
{
	return list_store(ipam->store, f, out, max, e);
}

/* What the node's own store holds of f, looked at before etcd: a read-only
 * handle's (rdmanetctl ip show) always, a writer's only with writer (its
 * block side, as a DEL finds its address; if that does not open, etcd is
 * asked alone, as before). 0 when it holds nothing or there is none. */
static int list_own(struct rn_ipam *ipam, const struct rn_alloc_filter *f, bool writer,
		    struct rn_ipam_allocation *out, size_t max, struct rn_error *e)
{
	struct rn_block_alloc *ba;
	struct rn_store *local;
	int err;

	if (ipam->read_only) {
		local = own_store_readonly(ipam, e, &err);
		if (err)
			return err;
	} else {
		ba = writer ? blocks(ipam, e, &err) : NULL;
		local = ba ? rn_block_alloc_store(ba) : NULL;
	}
	return local ? list_store(local, f, out, max, e) : 0;
}

int rn_ipam_lookup_ip(struct rn_ipam *ipam, const struct rn_addr *addr,
		      struct rn_ipam_allocation *out, size_t max, struct rn_error *e)
{
	struct rn_alloc_filter f = { .addr = addr };
	/* the node's own store first (block pools), a writer's too: ip
	 * release IP finds the pool of a block address there */
	int n = list_own(ipam, &f, true, out, max, e);

	return n ? n : list_into(ipam, &f, out, max, e);
}

int rn_ipam_lookup_owner(struct rn_ipam *ipam, const char *container_id, const char *ifname,
			 struct rn_ipam_allocation *out, size_t max, struct rn_error *e)
{
	struct rn_alloc_filter f = { .container_id = container_id, .ifname = ifname };
	int n;

	if (check_owner(container_id, ifname, e))
		return e ? e->code : -EINVAL;
	n = list_own(ipam, &f, true, out, max, e);
	return n ? n : list_into(ipam, &f, out, max, e);
}

int rn_ipam_held(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		 struct rn_ipam_result *res, struct rn_error *e)
{
	struct rn_ipam_allocation held[2];
	int n;

	memset(res, 0, sizeof(*res));
	n = rn_ipam_lookup_owner(ipam, container_id, ifname, held, 2, e);
	if (n < 0)
		return n;
	if (n > 2)
		return rn_fail(e, -EIO, "ipam: %s/%s holds %d addresses (at most one per family)",
			       container_id, ifname, n);
	for (int i = 0; i < n; i++) {
		/* IPv4 first, as allocate orders them */
		int slot = n == 2 ? held[i].addr.family == AF_INET6 : i;
		int err = fill_address(ipam, &held[i], &res->addrs[slot], e);

		if (err)
			return err;
	}
	res->n = (unsigned int)n;
	return 0;
}

int rn_ipam_allocations(struct rn_ipam *ipam, const char *pool,
			struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct rn_alloc_filter f = { .pool = pool };

	return ipam->store->ops->list(ipam->store, &f, out, e);
}

/* --- pools ----------------------------------------------------------------------- */

int rn_ipam_pool_list(struct rn_ipam *ipam, struct rn_ipam_pool_info **out, struct rn_error *e)
{
	struct rn_store *s = ipam->etcd_down ? rn_block_alloc_store(ipam->blocks) : ipam->store;
	struct rn_ipam_pool_info *pools;
	int n = s->ops->pools_load(s, &pools, e), err;

	*out = NULL;
	if (n == -EAGAIN && ipam->blocks && s == ipam->store) {
		/* etcd down: the block pools this node's store holds */
		s = rn_block_alloc_store(ipam->blocks);
		n = s->ops->pools_load(s, &pools, e);
	}
	if (n < 0)
		return n;
	err = s->ops->count(s, pools, n, e);
	if (err) {
		rn_ipam_pools_free(pools, n);
		return err;
	}
	for (int i = 0; i < n; i++)
		pools[i].total = rn_u128_sat64(pools[i].pool.size);
	*out = pools;
	return n;
}

int rn_ipam_pool_family(struct rn_ipam *ipam, const char *name, struct rn_error *e)
{
	const struct rn_ipam_pool_info *known;
	struct rn_ipam_pool_info info;
	int family;

	if (!lookup_pool(ipam, name, &known, NULL))
		return rn_pool_family(&known->pool);
	/* not in the store: rn_ipam_pool_get says why */
	if (rn_ipam_pool_get(ipam, name, &info, e))
		return e ? e->code : -ENOENT;
	family = rn_pool_family(&info.pool);
	rn_pool_free(&info.pool);
	return family;
}

int rn_ipam_pool_get(struct rn_ipam *ipam, const char *name, struct rn_ipam_pool_info *out,
		     struct rn_error *e)
{
	struct rn_ipam_pool_info *pools;
	int n = rn_ipam_pool_list(ipam, &pools, e);

	memset(out, 0, sizeof(*out));
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		if (strcmp(pools[i].pool.name, name))
			continue;
		*out = pools[i];
		memset(&pools[i].pool, 0, sizeof(pools[i].pool));	/* moved to out */
		rn_ipam_pools_free(pools, n);
		return 0;
	}
	rn_ipam_pools_free(pools, n);
	for (unsigned int i = 0; i < ipam->n_cfg_pools; i++)
		if (!strcmp(ipam->cfg_pools[i].name, name))
			return rn_fail(e, -ENOENT, "ipam: pool \"%s\" is in the config but not in "
				       "the store yet (the first allocation from it, `rdmanetctl "
				       "pool sync` or rdmanetd's start writes it)", name);
	return rn_fail(e, -ENOENT, "ipam: pool \"%s\" not found", name);
}

int rn_ipam_pool_add(struct rn_ipam *ipam, const struct rn_pool *p, struct rn_error *e)
{
	int r = check_writable(ipam, "pool add", e) ? -EROFS :
		ipam->cfg->cluster && rn_ipam_pool_cluster_check(&ipam->settings, p, e) ?
		-EINVAL :
		ipam->store->ops->pool_write(ipam->store, p, false, RN_POOL_CREATE, e);

	return r < 0 ? r : reload_pools(ipam, e);
}

int rn_ipam_pool_del(struct rn_ipam *ipam, const char *name, bool force, struct rn_error *e)
{
	int r = check_writable(ipam, "pool del", e) ? -EROFS :
		ipam->store->ops->pool_delete(ipam->store, name, force, e);

	if (r < 0)
		return r;
	return reload_pools(ipam, e) ? e->code : r;
}

int rn_ipam_sync(struct rn_ipam *ipam, struct rn_error *e)
{
	int written = 0, first_err = 0;

	if (check_writable(ipam, "sync", e))
		return -EROFS;
	/* the open already wrote the pools the store lacked: they count */
	written = ipam->cfg_pools_added;
	ipam->cfg_pools_added = 0;
	/* one pool that cannot be written (being deleted, refused) does not
	 * keep the others from their definitions: the first error is reported
	 * once all were tried */
	for (unsigned int i = 0; i < ipam->n_cfg_pools; i++) {
		struct rn_error pe = { 0 };
		int r = ipam->store->ops->pool_write(ipam->store, &ipam->cfg_pools[i], true,
						     RN_POOL_UPSERT, &pe);

		if (r < 0 && !first_err) {
			first_err = r;
			if (e)
				*e = pe;
			rn_fail_wrap(e, "sync of config pool \"%s\"", ipam->cfg_pools[i].name);
		}
		written += r > 0 ? r : 0;
	}
	if (reload_pools(ipam, first_err ? NULL : e))
		return first_err ? first_err : e ? e->code : -EIO;
	return first_err ? first_err : written;
}

static int addr_cmp(const void *x, const void *y)
{
	const struct rn_ipam_allocation *a = x, *b = y;
	int c = a->addr.family - b->addr.family;

	return c ? c : memcmp(a->addr.b, b->addr.b, rn_addr_len(&a->addr));
}

/* Addresses held twice (the same address in two pools that share a master),
 * and allocations a shrunk pool no longer covers (a note, not a problem). */
static int check_allocations(struct rn_ipam *ipam, char *report, size_t size,
			     struct rn_error *e)
{
	struct rn_ipam_allocation *all;
	struct rn_alloc_filter f = { 0 };
	char a[RN_ADDR_STRLEN];
	int n, problems = 0;

	n = ipam->store->ops->list(ipam->store, &f, &all, e);
	if (n < 0)
		return n;
	qsort(all, (size_t)n, sizeof(*all), addr_cmp);
	for (int i = 0; i < n; i++) {
		const struct rn_ipam_pool_info *pi = find_pool(ipam, all[i].pool);

		if (pi && !rn_pool_usable(&pi->pool, &all[i].addr))
			rn_check_note(report, size, "note: %s in pool \"%s\" is outside its usable "
				      "set (the pool shrank); it stays until released",
				      rn_addr_format(&all[i].addr, a), all[i].pool);
		for (int j = i + 1; j < n && !addr_cmp(&all[i], &all[j]); j++) {
			const struct rn_ipam_pool_info *pj = find_pool(ipam, all[j].pool);

			/* whatever the pools' current ranges: a pool redefined away
			 * from an address still holds it */
			if (pi && pj && !rn_pools_share_scope(&pi->pool, &pj->pool))
				continue;	/* pools on different masters or nodes */
			rn_check_note(report, size, "%s held twice: %s/%s (pool %s) and %s/%s "
				      "(pool %s)", rn_addr_format(&all[i].addr, a),
				      all[i].container_id, all[i].ifname, all[i].pool,
				      all[j].container_id, all[j].ifname, all[j].pool);
			problems++;
		}
	}
	free(all);
	return problems;
}

int rn_ipam_check(struct rn_ipam *ipam, char *report, size_t size, struct rn_error *e)
{
	int a, b;

	if (report && size)
		report[0] = '\0';
	if (reload_pools(ipam, e))
		return e ? e->code : -EIO;
	a = ipam->store->ops->check(ipam->store, report, size, e);
	if (a < 0)
		return a;
	b = check_allocations(ipam, report, size, e);
	return b < 0 ? b : a + b;
}
