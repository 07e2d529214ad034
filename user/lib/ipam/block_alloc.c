// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Block pools: node-local allocation inside the node's claimed blocks
 * (block_alloc.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <jansson.h>

#include "ipam/block_adopt.h"
#include "ipam/block_alloc.h"
#include "ipam/block_publish.h"
#include "ipam/etcd_keys.h"
#include "ipam/pool_set.h"
#include "write_all.h"

struct view {
	char boot_id[40];
	char node[RN_POOL_NODE_MAX];
	struct rn_block_lease lease;
	struct rn_block *blocks;
	int n;
};

struct rn_block_alloc {
	struct rn_ipam_settings st;	/* the etcd store's */
	struct rn_ipam_settings local_st;	/* the node-local SQLite store */
	char node[RN_POOL_NODE_MAX];
	char view_path[PATH_MAX + 16];
	int lock_fd;
	struct rn_store *local;
	struct rn_etcd *c;		/* opened on first need */
	/* the agent's: when each block was first seen empty (tick) */
	struct {
		char pool[RN_POOL_NAME_MAX];
		rn_u128 base;
		long long since_ms;
	} *empty;
	unsigned int n_empty;
	/* the agent's: pools whose per-allocation addresses it has adopted
	 * (block_adopt.h), once per pool and handle */
	char (*adopted)[RN_POOL_NAME_MAX];
	unsigned int n_adopted;
	/* the agent's: what it last published of its blocks (block_publish.h) */
	struct rn_block_pub *pub;
};

static void view_free(struct view *v)
{
	free(v->blocks);
	memset(v, 0, sizeof(*v));
}

static void boot_id(char *out, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)size, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

static int view_read(struct rn_block_alloc *ba, struct view *v, struct rn_error *e)
{
	json_t *root, *arr, *b;
	json_error_t jerr;
	size_t i;

	memset(v, 0, sizeof(*v));
	root = json_load_file(ba->view_path, 0, &jerr);
	if (!root)
		return access(ba->view_path, F_OK) ? 0 :
			rn_fail(e, -EIO, "ipam: %s: %s", ba->view_path, jerr.text);
	snprintf(v->boot_id, sizeof(v->boot_id), "%s",
		 json_string_value(json_object_get(root, "boot_id")) ?: "");
	snprintf(v->node, sizeof(v->node), "%s",
		 json_string_value(json_object_get(root, "node")) ?: "");
	v->lease.id = rn_etcd_int64(json_object_get(root, "lease"));
	v->lease.ttl_s = rn_etcd_int64(json_object_get(root, "ttl_s"));
	v->lease.valid_until_ms = rn_etcd_int64(json_object_get(root, "valid_until_ms"));
	arr = json_object_get(root, "blocks");
	v->blocks = calloc(json_array_size(arr) + 1, sizeof(*v->blocks));
	if (!v->blocks) {
		json_decref(root);
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	}
	json_array_foreach(arr, i, b) {
		struct rn_block *k = &v->blocks[v->n];
		struct rn_addr a;

		if (rn_addr_parse(json_string_value(json_object_get(b, "base")) ?: "", &a))
			continue;
		snprintf(k->pool, sizeof(k->pool), "%s",
			 json_string_value(json_object_get(b, "pool")) ?: "");
		k->family = a.family;
		k->base = rn_addr_to_u128(&a);
		k->len = (unsigned int)json_integer_value(json_object_get(b, "len"));
		k->mod_revision = rn_etcd_int64(json_object_get(b, "mod"));
		snprintf(k->node, sizeof(k->node), "%s", v->node);
		k->lease = v->lease.id;
		v->n++;
	}
	json_decref(root);
	return 0;
}

static int view_write(struct rn_block_alloc *ba, const struct view *v, struct rn_error *e)
{
	char tmp[sizeof(ba->view_path) + 24], id[24], s[RN_ADDR_STRLEN];
	json_t *root = json_object(), *arr = json_array();
	char *text;
	int fd, err = 0;

	snprintf(id, sizeof(id), "%lld", v->lease.id);
	json_object_set_new(root, "boot_id", json_string(v->boot_id));
	json_object_set_new(root, "node", json_string(v->node));
	json_object_set_new(root, "lease", json_string(id));
	json_object_set_new(root, "ttl_s", json_integer(v->lease.ttl_s));
	json_object_set_new(root, "valid_until_ms", json_integer(v->lease.valid_until_ms));
	for (int i = 0; i < v->n; i++) {
		struct rn_addr a;

		rn_addr_from_u128(&a, v->blocks[i].family, v->blocks[i].base);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:i, s:I}", "pool",
						     v->blocks[i].pool, "base",
						     rn_addr_format(&a, s), "len", v->blocks[i].len,
						     "mod", (json_int_t)v->blocks[i].mod_revision));
	}
	json_object_set_new(root, "blocks", arr);
	text = json_dumps(root, JSON_COMPACT);
	json_decref(root);
	if (!text)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	snprintf(tmp, sizeof(tmp), "%s.%d", ba->view_path, getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || rn_write_all(fd, text, strlen(text)) || fsync(fd) ||
	    rename(tmp, ba->view_path))
		err = rn_fail(e, -errno ? -errno : -EIO, "ipam: %s: %s", ba->view_path,
			      strerror(errno));
	if (fd >= 0)
		close(fd);
	if (err)
		unlink(tmp);
	free(text);
	return err;
}

static bool view_valid(const struct rn_block_alloc *ba, const struct view *v)
{
	char now_boot[40];

	boot_id(now_boot, sizeof(now_boot));
	return v->lease.id && !strcmp(v->boot_id, now_boot) && !strcmp(v->node, ba->node) &&
	       rn_block_now_ms() + RN_BLOCK_MARGIN_MS < v->lease.valid_until_ms;
}

static int etcd_client(struct rn_block_alloc *ba, struct rn_error *e)
{
	return ba->c ? 0 : rn_etcd_open(&ba->c, &ba->st, e);
}

/* The view from etcd: the node's lease (renewed, or a new one) and what
 * etcd says it holds under it. The view's own lease kept alive keeps its
 * blocks: every block bound to a live lease is still there (only the node
 * itself releases one, out of the view first), so no read of the pool's
 * blocks; a lease granted now holds none. Only a lease taken over from
 * P/nodes/<node> (the view lost, or another boot's) is listed: a read of
 * every claimed block, once per such start. */
static int view_renew(struct rn_block_alloc *ba, struct view *v, struct rn_error *e)
{
	struct rn_block *blocks = NULL;
	bool kept = false;
	int n = 0, err;

	err = etcd_client(ba, e);
	if (!err && v->lease.id && !strcmp(v->node, ba->node)) {
		err = rn_block_lease_keepalive(ba->c, &v->lease, e);
		kept = !err;
	}
	if (!err && !v->lease.id)
		err = -ENOENT;
	if (err == -ENOENT)
		err = rn_block_lease_get(ba->c, ba->st.prefix, ba->node, ba->st.block_lease_s,
					 &v->lease, e);
	if (err)
		return err;
	if (!kept) {
		if (!v->lease.granted) {
			n = rn_block_list(ba->c, ba->st.prefix, ba->node, &v->lease, NULL,
					  &blocks, e);
			if (n < 0)
				return n;
		}
		free(v->blocks);
		v->blocks = blocks;
		v->n = n;
	}
	boot_id(v->boot_id, sizeof(v->boot_id));
	snprintf(v->node, sizeof(v->node), "%s", ba->node);
	return 0;
}

static int lock(struct rn_block_alloc *ba, int how, struct rn_error *e)
{
	while (flock(ba->lock_fd, how))
		if (errno != EINTR)
			return rn_fail(e, -errno, "ipam: %s.lock: %s", ba->view_path,
				       strerror(errno));
	return 0;
}

static void unlock(struct rn_block_alloc *ba)
{
	flock(ba->lock_fd, LOCK_UN);
}

/* Locked (LOCK_SH or LOCK_EX) with the view read, or unlocked on error. */
static int lock_read(struct rn_block_alloc *ba, int how, struct view *v, struct rn_error *e)
{
	int err = lock(ba, how, e);

	memset(v, 0, sizeof(*v));
	if (!err && (err = view_read(ba, v, e)))
		unlock(ba);
	return err;
}

int rn_block_alloc_open(struct rn_block_alloc **out, const struct rn_ipam_settings *st,
			const char *node, struct rn_error *e)
{
	struct rn_block_alloc *ba = calloc(1, sizeof(*ba));
	char lock_path[sizeof(ba->view_path) + 8];
	int err;

	*out = NULL;
	if (!ba)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	ba->lock_fd = -1;
	ba->st = *st;
	ba->local_st = *st;
	ba->local_st.store = RN_IPAM_STORE_SQLITE;
	snprintf(ba->node, sizeof(ba->node), "%s", node);
	snprintf(ba->view_path, sizeof(ba->view_path), "%s.blocks", st->path);
	snprintf(lock_path, sizeof(lock_path), "%s.lock", ba->view_path);
	err = rn_store_sqlite_open(&ba->local, &ba->local_st, false, e);
	if (!err) {
		ba->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		if (ba->lock_fd < 0)
			err = rn_fail(e, -errno, "ipam: %s: %s", lock_path, strerror(errno));
	}
	if (err) {
		rn_block_alloc_close(ba);
		return err;
	}
	*out = ba;
	return 0;
}

void rn_block_alloc_close(struct rn_block_alloc *ba)
{
	if (!ba)
		return;
	if (ba->local)
		ba->local->ops->close(ba->local);
	if (ba->c)
		rn_etcd_close(ba->c);
	if (ba->lock_fd >= 0)
		close(ba->lock_fd);
	free(ba->empty);
	free(ba->adopted);
	rn_block_pub_free(ba->pub);
	free(ba);
}

struct rn_store *rn_block_alloc_store(struct rn_block_alloc *ba)
{
	return ba->local;
}

/* The local store has the plan's pools as etcd defines them. */
static int local_pools(struct rn_block_alloc *ba, const struct rn_alloc_plan *plan,
		       struct rn_error *e)
{
	struct rn_ipam_pool_info *have;
	int n = ba->local->ops->pools_load(ba->local, &have, e), err = 0;

	if (n < 0)
		return n;
	for (unsigned int f = 0; !err && f < plan->n_families; f++)
		for (unsigned int i = 0; !err && i < plan->fam[f].n; i++) {
			const struct rn_pool *p = plan->fam[f].pools[i];
			bool same = false;

			for (int k = 0; k < n && !same; k++)
				same = rn_pool_equal(&have[k].pool, p);
			if (!same && ba->local->ops->pool_write(ba->local, p, false,
								RN_POOL_UPSERT, e) < 0)
				err = e ? e->code : -EIO;
		}
	rn_ipam_pools_free(have, n);
	return err;
}

/* The runs of the node's blocks of pool, sorted; NULL only on ENOMEM. */
static struct rn_pool_seg *blocks_of(const struct view *v, const char *pool, unsigned int *n)
{
	struct rn_pool_seg *s = calloc((size_t)v->n + 1, sizeof(*s));

	*n = 0;
	for (int i = 0; s && i < v->n; i++)
		if (!strcmp(v->blocks[i].pool, pool))
			s[(*n)++] = (struct rn_pool_seg){
				v->blocks[i].base,
				rn_block_last(v->blocks[i].family, v->blocks[i].base,
					      v->blocks[i].len) };
	if (s)
		*n = rn_seg_merge(s, *n);
	return s;
}

int rn_block_view_segs(const struct rn_ipam_settings *st, const char *node, const char *pool,
		       struct rn_pool_seg **out, unsigned int *n, struct rn_error *e)
{
	struct rn_block_alloc ba = { .lock_fd = -1 };
	char lock_path[sizeof(ba.view_path) + 8];
	struct view v;
	int err;

	*out = NULL;
	*n = 0;
	snprintf(ba.view_path, sizeof(ba.view_path), "%s.blocks", st->path);
	snprintf(lock_path, sizeof(lock_path), "%s.lock", ba.view_path);
	ba.lock_fd = open(lock_path, O_RDONLY | O_CLOEXEC);
	if (ba.lock_fd < 0)
		return errno == ENOENT ? 0 : rn_fail(e, -errno, "ipam: %s: %s", lock_path,
						     strerror(errno));
	err = lock_read(&ba, LOCK_SH, &v, e);
	close(ba.lock_fd);
	if (err)
		return err;
	/* another node's view (a renamed node) holds none of this node's */
	if (!strcmp(v.node, node) && !(*out = blocks_of(&v, pool, n)))
		err = rn_fail(e, -ENOMEM, "ipam: out of memory");
	view_free(&v);
	return err;
}

/* One block more for each family of the plan, from its first pool that
 * has one free. Under the exclusive lock. */
static int claim_for(struct rn_block_alloc *ba, struct view *v, const struct rn_alloc_plan *plan,
		     struct rn_error *e)
{
	int err = etcd_client(ba, e);

	for (unsigned int f = 0; !err && f < plan->n_families; f++) {
		err = -ENOSPC;
		for (unsigned int i = 0; err == -ENOSPC && i < plan->fam[f].n; i++) {
			struct rn_block b, *grown;

			err = rn_block_claim(ba->c, ba->st.prefix, ba->node, &v->lease,
					     plan->fam[f].pools[i], &b, e);
			if (err)
				continue;
			grown = realloc(v->blocks, ((size_t)v->n + 1) * sizeof(*grown));
			if (!grown)
				return rn_fail(e, -ENOMEM, "ipam: out of memory");
			v->blocks = grown;
			v->blocks[v->n++] = b;
		}
	}
	return err ? err : view_write(ba, v, e);
}

bool rn_block_alloc_valid(struct rn_block_alloc *ba)
{
	struct view v;
	bool valid;

	if (view_read(ba, &v, NULL))
		return false;
	valid = view_valid(ba, &v);
	view_free(&v);
	return valid;
}

int rn_block_alloc_allocate(struct rn_block_alloc *ba, struct rn_alloc_plan *plan,
			    struct rn_ipam_allocation out[2], struct rn_error *e)
{
	struct rn_pool_seg *runs[2 * RN_IPAM_MAX_POOLS] = { 0 };
	unsigned int n_runs = 0;
	struct view v;
	int err, attempt;

	err = local_pools(ba, plan, e);
	for (attempt = 0; !err && attempt < 4; attempt++) {
		/* shared: a block the agent gives back is out of the view before
		 * it checks the block is empty, and no allocation runs meanwhile */
		err = lock_read(ba, LOCK_SH, &v, e);
		if (err)
			break;
		if (!view_valid(ba, &v)) {
			unlock(ba);
			view_free(&v);
			err = lock_read(ba, LOCK_EX, &v, e);
			if (err)
				break;
			if (!view_valid(ba, &v)) {
				err = view_renew(ba, &v, e);
				if (err == -EAGAIN || err == -EIO) {
					char why[sizeof(e->msg)];

					snprintf(why, sizeof(why), "%s", e ? e->msg : "");
					err = rn_fail(e, -EAGAIN, "ipam: blocks: node %s cannot "
						      "tell its blocks are still its own (its lease "
						      "is past its bound and etcd did not renew it: "
						      "%.300s): try again later", ba->node, why);
				}
				if (!err)
					err = view_write(ba, &v, e);
			}
			unlock(ba);
			view_free(&v);
			continue;	/* read again under the shared lock */
		}
		n_runs = 0;
		for (unsigned int f = 0; !err && f < plan->n_families; f++)
			for (unsigned int i = 0; !err && i < plan->fam[f].n; i++) {
				runs[n_runs] = blocks_of(&v, plan->fam[f].pools[i]->name,
							 &plan->fam[f].n_within[i]);
				if (!runs[n_runs])
					err = rn_fail(e, -ENOMEM, "ipam: out of memory");
				plan->fam[f].within[i] = runs[n_runs++];
			}
		if (!err)
			err = ba->local->ops->allocate(ba->local, plan, out, e);
		unlock(ba);
		for (unsigned int i = 0; i < n_runs; i++)
			free(runs[i]);
		view_free(&v);
		if (err != -ENOSPC)
			break;
		/* no room in the node's blocks: claim (a round trip) and retry */
		err = lock_read(ba, LOCK_EX, &v, e);
		if (err)
			break;
		err = view_valid(ba, &v) ? claim_for(ba, &v, plan, e) : 0;
		unlock(ba);
		view_free(&v);
	}
	for (unsigned int f = 0; f < plan->n_families; f++)
		for (unsigned int i = 0; i < plan->fam[f].n; i++)
			plan->fam[f].within[i] = NULL;
	return err;
}

/* Addresses of the pool usable within one block, and how many the node's
 * store holds there. */
static void block_use(const struct rn_pool *p, const struct rn_block *b,
		      const struct rn_ipam_allocation *allocs, int n, rn_u128 *usable,
		      unsigned long long *held)
{
	struct rn_pool_seg run = { b->base, rn_block_last(b->family, b->base, b->len) };
	struct rn_pool_seg *segs = malloc(p->n_segs * sizeof(*segs) + 1);
	unsigned int n_segs = p->n_segs;

	*usable = 0;
	*held = 0;
	if (segs) {
		memcpy(segs, p->segs, p->n_segs * sizeof(*segs));
		if (!rn_seg_intersect(&segs, &n_segs, &run, 1))
			*usable = rn_seg_size(segs, n_segs);
		free(segs);
	}
	for (int i = 0; i < n; i++) {
		rn_u128 a = rn_addr_to_u128(&allocs[i].addr);

		if (!strcmp(allocs[i].pool, p->name) && allocs[i].addr.family == b->family &&
		    a >= run.lo && a <= run.hi)
			(*held)++;
	}
}

/* Milliseconds a block has been seen empty (0: not empty now). */
static long long empty_for(struct rn_block_alloc *ba, const struct rn_block *b, bool empty)
{
	long long now = rn_block_now_ms();

	for (unsigned int i = 0; i < ba->n_empty; i++) {
		if (strcmp(ba->empty[i].pool, b->pool) || ba->empty[i].base != b->base)
			continue;
		if (!empty) {
			ba->empty[i] = ba->empty[--ba->n_empty];
			return 0;
		}
		return now - ba->empty[i].since_ms;
	}
	if (empty) {
		void *grown = realloc(ba->empty, (ba->n_empty + 1) * sizeof(*ba->empty));

		if (grown) {
			ba->empty = grown;
			snprintf(ba->empty[ba->n_empty].pool, RN_POOL_NAME_MAX, "%s", b->pool);
			ba->empty[ba->n_empty].base = b->base;
			ba->empty[ba->n_empty++].since_ms = now;
		}
	}
	return 0;
}

static bool adopted(const struct rn_block_alloc *ba, const char *pool)
{
	for (unsigned int i = 0; i < ba->n_adopted; i++)
		if (!strcmp(ba->adopted[i], pool))
			return true;
	return false;
}

/* No per-allocation address in the whole store (the usual case: a
 * cluster that started with blocks): every pool counts as adopted, one
 * request instead of a read per pool. */
static int none_per_allocation(struct rn_block_alloc *ba, const struct rn_pool *pools,
			       unsigned int n, struct rn_error *e)
{
	char dir[RN_ETCD_KEY_MAX], *end;
	struct rn_etcd_range r;
	unsigned int k = 0;
	int err;

	while (k < n && adopted(ba, pools[k].name))
		k++;
	if (k == n)
		return 0;
	rn_etcd_key_all_ips(dir, ba->st.prefix);
	end = rn_etcd_prefix_end(dir);
	if (!end)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	err = rn_etcd_get(ba->c, dir, end, 1, true, true, &r, e);
	free(end);
	if (err || r.count) {
		rn_etcd_range_free(&r);
		return err;
	}
	for (; k < n; k++) {
		char (*grown)[RN_POOL_NAME_MAX];

		if (adopted(ba, pools[k].name))
			continue;
		grown = realloc(ba->adopted, (ba->n_adopted + 1) * sizeof(*grown));
		if (!grown)
			return rn_fail(e, -ENOMEM, "ipam: out of memory");
		ba->adopted = grown;
		snprintf(ba->adopted[ba->n_adopted++], RN_POOL_NAME_MAX, "%s", pools[k].name);
	}
	return 0;
}

/* Pool p's live per-allocation addresses that can become this node's
 * blocks (a pool switched to blocks), once per pool and handle. Returns
 * how many were adopted; the view then holds their blocks. */
static int adopt(struct rn_block_alloc *ba, struct view *v, const struct rn_pool *p,
		 struct rn_error *e)
{
	struct rn_alloc_plan plan = { .n_families = 1 };
	char (*grown)[RN_POOL_NAME_MAX];
	struct rn_block *blocks;
	int n, err;

	if (adopted(ba, p->name))
		return 0;
	plan.fam[0].family = rn_pool_family(p);
	plan.fam[0].n = 1;
	plan.fam[0].pools[0] = p;
	err = local_pools(ba, &plan, e);
	n = err ? err : rn_block_adopt(ba->c, ba->st.prefix, ba->node, &v->lease, p, ba->local, e);
	if (n < 0)
		return n;
	grown = realloc(ba->adopted, (ba->n_adopted + 1) * sizeof(*grown));
	if (!grown)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	ba->adopted = grown;
	snprintf(ba->adopted[ba->n_adopted++], RN_POOL_NAME_MAX, "%s", p->name);
	if (!n)
		return 0;
	err = rn_block_list(ba->c, ba->st.prefix, ba->node, &v->lease, NULL, &blocks, e);
	if (err < 0)
		return err;
	free(v->blocks);
	v->blocks = blocks;
	v->n = err;
	err = view_write(ba, v, e);
	return err ? err : n;
}

int rn_block_alloc_tick(struct rn_block_alloc *ba, const struct rn_pool *pools, unsigned int n,
			const struct rn_block_tick *t, struct rn_error *e)
{
	struct rn_alloc_filter all = { 0 };
	struct rn_ipam_allocation *allocs = NULL;
	int changed = 0, n_allocs, err;
	struct view v;

	err = lock_read(ba, LOCK_EX, &v, e);
	if (err)
		return err;
	/* keep-alive (or a new lease, with what etcd says it holds) */
	err = view_renew(ba, &v, e);
	if (!err)
		err = view_write(ba, &v, e);
	if (!err)
		err = none_per_allocation(ba, pools, n, e);
	for (unsigned int k = 0; !err && k < n; k++) {
		int got = adopt(ba, &v, &pools[k], e);

		if (got < 0)
			err = got;
		else
			changed += got;
	}
	n_allocs = err ? 0 : ba->local->ops->list(ba->local, &all, &allocs, e);
	if (n_allocs < 0)
		err = n_allocs;
	for (unsigned int k = 0; !err && k < n; k++) {
		const struct rn_pool *p = &pools[k];
		unsigned long long free_n = 0, block_size = 0;
		int kept = 0;

		for (int i = 0; i < v.n; i++) {
			unsigned long long held;
			rn_u128 usable;
			bool empty;

			if (strcmp(v.blocks[i].pool, p->name))
				continue;
			block_use(p, &v.blocks[i], allocs, n_allocs, &usable, &held);
			empty = held == 0;
			/* keep one block per pool: the next ADD needs no claim */
			if (empty && kept++ && empty_for(ba, &v.blocks[i], true) >=
			    t->release_grace_ms) {
				/* out of the view first (allocations hold the shared
				 * lock, so none is running now), then out of etcd */
				struct rn_block gone = v.blocks[i];

				v.blocks[i] = v.blocks[--v.n];
				err = view_write(ba, &v, e);
				if (!err && rn_block_release(ba->c, ba->st.prefix, &gone, e) >= 0)
					changed++;
				empty_for(ba, &gone, false);
				i--;
				continue;
			}
			if (!empty)
				empty_for(ba, &v.blocks[i], false);
			else
				empty_for(ba, &v.blocks[i], true);
			free_n += rn_u128_sat64(usable) - held;
			block_size = rn_u128_sat64(rn_block_last(v.blocks[i].family, 0,
								 v.blocks[i].len)) + 1;
		}
		if (!block_size)
			block_size = rn_u128_sat64(rn_block_last(rn_pool_family(p), 0,
								 p->block)) + 1;
		/* the reserve: a block more before the last one is full */
		if (!err && free_n * 100 < block_size * t->reserve_pct) {
			struct rn_alloc_plan plan = { .n_families = 1 };

			plan.fam[0].family = rn_pool_family(p);
			plan.fam[0].n = 1;
			plan.fam[0].pools[0] = p;
			err = claim_for(ba, &v, &plan, e);
			if (err == -ENOSPC)
				err = 0;	/* the pool is all claimed: nothing to reserve */
			else if (!err)
				changed++;
		}
	}
	if (!err) {
		/* a report for the other nodes' pool show / ip show: its failure
		 * (etcd busy) only leaves the report older, the next tick retries */
		struct rn_error pe = { 0 };

		rn_block_publish(ba->c, ba->st.prefix, ba->node, &v.lease, v.blocks, v.n, allocs,
				 n_allocs, RN_BLOCK_PUBLISH_MIN_MS, &ba->pub, &pe);
	}
	unlock(ba);
	view_free(&v);
	free(allocs);
	return err ? err : changed;
}
