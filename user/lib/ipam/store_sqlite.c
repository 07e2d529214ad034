// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The embedded store: one SQLite file (default /var/lib/rdmanet/ipam.db)
 * shared by every process on the node (CNI plugin invocations, rdmanetctl,
 * rdmanetd).
 *
 * Schema (user_version 1):
 *   pools(name TEXT PRIMARY KEY, spec TEXT, from_config INTEGER, cursor BLOB)
 *     spec is the pool's canonical JSON (pool.h); cursor the last address
 *     handed out, for round-robin.
 *   allocations(pool, ip BLOB, family, container_id, ifname, pod_namespace,
 *               pod_name, node, created, PRIMARY KEY (pool, ip))
 *     ip is 4 or 16 bytes in network order, so blob order is address
 *     order and "the allocated addresses after the cursor" is an index
 *     range scan. UNIQUE (container_id, ifname, family): an owner holds at
 *     most one address per family, enforced by the database itself.
 *
 * Safety: journal_mode=WAL and synchronous=FULL, so a transaction is on
 * disk (WAL fsync'd) before COMMIT returns and before allocate returns an
 * address; kill -9 at any point leaves either the whole transaction or
 * none of it. Every read-modify-write runs in BEGIN IMMEDIATE, which takes
 * the write lock up front: two processes can never pick the same address,
 * and no transaction has to be retried for a lost upgrade. Waiting for the
 * lock: rdmanet's writers queue on a kernel OFD lock that dies with its
 * holder (sqlite_lock.h) so the lock passes to the next writer at once; SQLite's
 * lock held by anyone else is polled with short randomized sleeps
 * (SQLite's default handler sleeps up to 100 ms, far longer than a
 * transaction holds the lock). Both waits are bounded by ipam.timeout_s,
 * after which the call fails with -EAGAIN. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <sqlite3.h>

#include "ipam/alloc_pick.h"
#include "ipam/sqlite_lock.h"
#include "ipam/sqlite_wal.h"
#include "private_file.h"
#include "ipam/pool_set.h"
#include "ipam/store.h"
#include "mkdir_p.h"
#include "monotonic.h"

#define SCHEMA_VERSION 1

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS pools ("
	" name TEXT PRIMARY KEY,"
	" spec TEXT NOT NULL,"
	" from_config INTEGER NOT NULL DEFAULT 0,"
	" cursor BLOB"
	") WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS allocations ("
	" pool TEXT NOT NULL,"
	" ip BLOB NOT NULL,"
	" family INTEGER NOT NULL,"
	" container_id TEXT NOT NULL,"
	" ifname TEXT NOT NULL,"
	" pod_namespace TEXT NOT NULL DEFAULT '',"
	" pod_name TEXT NOT NULL DEFAULT '',"
	" node TEXT NOT NULL DEFAULT '',"
	" created INTEGER NOT NULL,"
	" PRIMARY KEY (pool, ip)"
	") WITHOUT ROWID;"
	"CREATE UNIQUE INDEX IF NOT EXISTS allocations_owner"
	" ON allocations (container_id, ifname, family);"
	"CREATE INDEX IF NOT EXISTS allocations_ip ON allocations (ip);"
	"PRAGMA user_version = 1;";

#define ALLOC_COLS "pool, ip, container_id, ifname, pod_namespace, pod_name, node, created"

enum stmt_id {
	ST_BEGIN, ST_COMMIT, ST_ROLLBACK, ST_OWNER, ST_POOL, ST_SCAN, ST_INSERT, ST_CURSOR,
	ST_RELEASE_OWNER, ST_RELEASE_IP, ST_MAX
};

static const char *const stmt_sql[ST_MAX] = {
	[ST_BEGIN] = "BEGIN IMMEDIATE",
	[ST_COMMIT] = "COMMIT",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_OWNER] = "SELECT " ALLOC_COLS " FROM allocations"
		     " WHERE container_id = ?1 AND ifname = ?2",
	[ST_POOL] = "SELECT spec, cursor FROM pools WHERE name = ?1",
	[ST_SCAN] = "SELECT ip FROM allocations WHERE pool = ?1 AND ip >= ?2 ORDER BY ip",
	[ST_INSERT] = "INSERT INTO allocations (pool, ip, family, container_id, ifname,"
		      " pod_namespace, pod_name, node, created)"
		      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
	[ST_CURSOR] = "UPDATE pools SET cursor = ?2 WHERE name = ?1",
	[ST_RELEASE_OWNER] = "DELETE FROM allocations WHERE container_id = ?1 AND ifname = ?2",
	[ST_RELEASE_IP] = "DELETE FROM allocations WHERE pool = ?1 AND ip = ?2",
};

struct sqlite_store {
	struct rn_store base;
	sqlite3 *db;
	sqlite3_stmt *st[ST_MAX];
	long long busy_deadline;
	unsigned int seed;
	struct rn_sqlite_lock writers;
	struct rn_sqlite_wal wal;
	int prepare_rc;			/* the last failed prepare's, else 0 */
	bool writing;			/* holds the writer queue */
};

static struct sqlite_store *to_sq(struct rn_store *s)
{
	return (struct sqlite_store *)s;
}

static int db_fail(struct sqlite_store *s, int rc, struct rn_error *e, const char *what)
{
	if (rc == SQLITE_MISUSE && s->prepare_rc)
		rc = s->prepare_rc;	/* a statement that could not be prepared */
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		return rn_fail(e, -EAGAIN, "ipam: sqlite %s: %s: database locked for more than "
			       "%u s by other processes: try again later", s->base.settings->path,
			       what, s->base.settings->timeout_ms / 1000);
	return rn_fail(e, rc == SQLITE_NOMEM ? -ENOMEM : -EIO, "ipam: sqlite %s: %s: %s",
		       s->base.settings->path, what, sqlite3_errmsg(s->db));
}

/* Short randomized sleeps: a holder keeps the lock for about one fsync. */
static int busy_wait(void *arg, int count)
{
	struct sqlite_store *s = arg;
	long long now = rn_monotonic_ms();
	unsigned int us;

	if (count == 0)
		s->busy_deadline = now + s->base.settings->timeout_ms;
	if (now >= s->busy_deadline)
		return 0;
	us = count < 50 ? 100 + rand_r(&s->seed) % 200 : 500 + rand_r(&s->seed) % 1000;
	usleep(us);
	return 1;
}

/* Prepared at first use, not at open: a CNI process runs two or three of
 * them, and parsing all of them was a good part of its open. A statement
 * that cannot be prepared is NULL, which sqlite3_step and the binds answer
 * with SQLITE_MISUSE; db_fail reports the prepare's own error instead. */
static sqlite3_stmt *stmt(struct sqlite_store *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];
	int rc;

	if (!st) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT,
					&s->st[id], NULL);
		if (rc != SQLITE_OK) {
			s->prepare_rc = rc;
			return NULL;
		}
		return s->st[id];
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

static int exec1(struct sqlite_store *s, enum stmt_id id, struct rn_error *e)
{
	int rc = sqlite3_step(stmt(s, id));

	sqlite3_reset(s->st[id]);
	return rc == SQLITE_DONE ? 0 : db_fail(s, rc, e, stmt_sql[id]);
}

static int queue_writer(struct sqlite_store *s, struct rn_error *e)
{
	long long deadline = rn_monotonic_ms() + s->base.settings->timeout_ms;

	if (rn_sqlite_lock_acquire(&s->writers, deadline))
		return db_fail(s, SQLITE_BUSY, e, "waiting for other writers");
	s->writing = true;
	return 0;
}

static void unqueue_writer(struct sqlite_store *s)
{
	if (s->writing)
		rn_sqlite_lock_release(&s->writers);
	s->writing = false;
}

static int begin(struct sqlite_store *s, struct rn_error *e)
{
	int err = queue_writer(s, e);

	if (err)
		return err;
	err = exec1(s, ST_BEGIN, e);
	if (err)
		unqueue_writer(s);
	return err;
}

static int commit(struct sqlite_store *s, struct rn_error *e)
{
	int err = exec1(s, ST_COMMIT, e);

	if (err)
		exec1(s, ST_ROLLBACK, NULL);
	unqueue_writer(s);
	return err;
}

static int rollback(struct sqlite_store *s, int err)
{
	if (sqlite3_get_autocommit(s->db) == 0)
		exec1(s, ST_ROLLBACK, NULL);
	unqueue_writer(s);
	return err;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_STATIC);
}

static void bind_addr(sqlite3_stmt *st, int i, const struct rn_addr *a)
{
	sqlite3_bind_blob(st, i, a->b, (int)rn_addr_len(a), SQLITE_TRANSIENT);
}

static void bind_u128(sqlite3_stmt *st, int i, int family, rn_u128 v)
{
	struct rn_addr a;

	rn_addr_from_u128(&a, family, v);
	bind_addr(st, i, &a);
}

static int col_addr(sqlite3_stmt *st, int i, struct rn_addr *a)
{
	const void *b = sqlite3_column_blob(st, i);
	int n = sqlite3_column_bytes(st, i);

	memset(a, 0, sizeof(*a));
	if (!b || (n != 4 && n != 16))
		return -EIO;
	a->family = n == 4 ? AF_INET : AF_INET6;
	memcpy(a->b, b, (size_t)n);
	return 0;
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	snprintf(out, size, "%s", t ? (const char *)t : "");
}

/* A row of ALLOC_COLS starting at column 0. */
static int row_alloc(sqlite3_stmt *st, struct rn_ipam_allocation *a)
{
	memset(a, 0, sizeof(*a));
	col_text(st, 0, a->pool, sizeof(a->pool));
	if (col_addr(st, 1, &a->addr))
		return -EIO;
	col_text(st, 2, a->container_id, sizeof(a->container_id));
	col_text(st, 3, a->ifname, sizeof(a->ifname));
	col_text(st, 4, a->pod_namespace, sizeof(a->pod_namespace));
	col_text(st, 5, a->pod_name, sizeof(a->pod_name));
	col_text(st, 6, a->node, sizeof(a->node));
	a->created = sqlite3_column_int64(st, 7);
	return 0;
}

/* --- pools ------------------------------------------------------------------ */

static int load_pools(struct sqlite_store *s, struct rn_ipam_pool_info **out,
		      struct rn_error *e)
{
	sqlite3_stmt *st;
	struct rn_ipam_pool_info *pools = NULL;
	int n = 0, rc, err = 0;

	*out = NULL;
	rc = sqlite3_prepare_v2(s->db, "SELECT name, spec, from_config FROM pools ORDER BY name",
				-1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, e, "load pools");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct rn_ipam_pool_info *grown = realloc(pools, (size_t)(n + 1) * sizeof(*pools));
		char where[RN_POOL_NAME_MAX + 32];

		if (!grown) {
			err = rn_fail(e, -ENOMEM, "ipam: out of memory");
			break;
		}
		pools = grown;
		memset(&pools[n], 0, sizeof(pools[n]));
		snprintf(where, sizeof(where), "ipam: stored pool \"%s\"",
			 (const char *)sqlite3_column_text(st, 0));
		if (rn_pool_from_text(&pools[n].pool, (const char *)sqlite3_column_text(st, 1),
				      where, e)) {
			err = -EIO;
			if (e) {
				rn_fail_wrap(e, "ipam: sqlite %s", s->base.settings->path);
				e->code = err;
			}
			break;
		}
		pools[n].from_config = sqlite3_column_int(st, 2);
		n++;
	}
	if (!err && rc != SQLITE_DONE)
		err = db_fail(s, rc, e, "load pools");
	sqlite3_finalize(st);
	if (err) {
		rn_ipam_pools_free(pools, n);
		return err;
	}
	*out = pools;
	return n;
}

static int sq_pools_load(struct rn_store *s, struct rn_ipam_pool_info **out, struct rn_error *e)
{
	return load_pools(to_sq(s), out, e);
}

static int sq_run(struct sqlite_store *s, const char *sql, const char *a1, const char *a2,
		  int i3, struct rn_error *e)
{
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return db_fail(s, rc, e, sql);
	if (a1)
		bind_text(st, 1, a1);
	if (a2)
		bind_text(st, 2, a2);
	sqlite3_bind_int(st, 3, i3);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? sqlite3_changes(s->db) : db_fail(s, rc, e, sql);
}

static int sq_pool_write(struct rn_store *base, const struct rn_pool *p, bool from_config,
			 enum rn_pool_write mode, struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	struct rn_ipam_pool_info *pools;
	const struct rn_pool *old = NULL;
	char *spec;
	int n, err = 0, written = 0;

	if (begin(s, e))
		return e->code;
	n = load_pools(s, &pools, e);
	if (n < 0)
		return rollback(s, n);
	for (int i = 0; i < n; i++)
		if (!strcmp(pools[i].pool.name, p->name))
			old = &pools[i].pool;
	if (old && mode == RN_POOL_CREATE)
		err = rn_fail(e, -EEXIST, "ipam: pool \"%s\" already exists", p->name);
	else if (old && (mode == RN_POOL_IF_MISSING || rn_pool_equal(old, p)))
		err = 0;
	else if (!(err = rn_pool_check_against(p, pools, n, e)) &&
		 !(err = rn_pool_check_held(base, p, pools, n, e))) {
		spec = rn_pool_to_text(p);
		if (!spec)
			err = rn_fail(e, -ENOMEM, "ipam: out of memory");
		else if (old)
			err = sq_run(s, "UPDATE pools SET spec = ?2, from_config = ?3"
				     " WHERE name = ?1", p->name, spec, from_config, e);
		else
			err = sq_run(s, "INSERT INTO pools (name, spec, from_config)"
				     " VALUES (?1, ?2, ?3)", p->name, spec, from_config, e);
		free(spec);
		written = err > 0;
		err = err < 0 ? err : 0;
	}
	rn_ipam_pools_free(pools, n);
	if (err)
		return rollback(s, err);
	if (commit(s, e))
		return e->code;
	return written;
}

static int sq_pool_delete(struct rn_store *base, const char *name, bool force,
			  struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	sqlite3_stmt *st;
	int rc, held, err;

	if (begin(s, e))
		return e->code;
	st = stmt(s, ST_POOL);
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return rollback(s, rn_fail(e, -ENOENT, "ipam: pool \"%s\" not found", name));
	if (rc != SQLITE_ROW)
		return rollback(s, db_fail(s, rc, e, "pool lookup"));
	rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM allocations WHERE pool = ?1", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		return rollback(s, db_fail(s, rc, e, "count"));
	bind_text(st, 1, name);
	rc = sqlite3_step(st);
	held = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (held < 0)
		return rollback(s, db_fail(s, rc, e, "count"));
	if (held && !force)
		return rollback(s, rn_fail(e, -EBUSY, "ipam: pool \"%s\" still holds %d address%s; "
					   "release them first or force the deletion", name, held,
					   held == 1 ? "" : "es"));
	err = sq_run(s, "DELETE FROM allocations WHERE pool = ?1", name, NULL, 0, e);
	if (err >= 0)
		err = sq_run(s, "DELETE FROM pools WHERE name = ?1", name, NULL, 0, e);
	if (err < 0)
		return rollback(s, err);
	if (commit(s, e))
		return e->code;
	return held;
}

/* --- allocation -------------------------------------------------------------- */

struct scan_ctx {
	struct sqlite_store *s;
	const struct rn_pool *pool;
	sqlite3_stmt *st;
};

static int scan_seek(void *arg, rn_u128 from, struct rn_error *e)
{
	struct scan_ctx *c = arg;

	(void)e;
	c->st = stmt(c->s, ST_SCAN);
	bind_text(c->st, 1, c->pool->name);
	bind_u128(c->st, 2, rn_pool_family(c->pool), from);
	return 0;
}

static int scan_next(void *arg, rn_u128 *addr, struct rn_error *e)
{
	struct scan_ctx *c = arg;
	struct rn_addr a;
	int rc = sqlite3_step(c->st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_fail(c->s, rc, e, "scan");
	if (col_addr(c->st, 0, &a))
		return rn_fail(e, -EIO, "ipam: sqlite: pool \"%s\": malformed address in the store",
			       c->pool->name);
	*addr = rn_addr_to_u128(&a);
	return 1;
}

/* The owner's current addresses, by family. */
static int owner_holds(struct sqlite_store *s, const struct rn_alloc_plan *plan,
		       struct rn_ipam_allocation held[2], bool have[2], struct rn_error *e)
{
	sqlite3_stmt *st = stmt(s, ST_OWNER);
	struct rn_ipam_allocation a;
	int rc;

	have[0] = have[1] = false;
	bind_text(st, 1, plan->container_id);
	bind_text(st, 2, plan->ifname);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (row_alloc(st, &a))
			return rn_fail(e, -EIO, "ipam: sqlite: malformed allocation in the store");
		held[a.addr.family == AF_INET6] = a;
		have[a.addr.family == AF_INET6] = true;
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : db_fail(s, rc, e, "owner lookup");
}

/* Reads the pool's stored definition (it may have changed since the caller
 * loaded it) and cursor. Returns 1, or 0 if the pool no longer exists. */
static int pool_state(struct sqlite_store *s, const struct rn_pool *want, struct rn_pool *now,
		      bool *has_cursor, rn_u128 *cursor, struct rn_error *e)
{
	sqlite3_stmt *st = stmt(s, ST_POOL);
	struct rn_addr c;
	int rc, err = 0;
	char *spec;

	bind_text(st, 1, want->name);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		sqlite3_reset(st);
		return 0;
	}
	if (rc != SQLITE_ROW)
		return db_fail(s, rc, e, "pool lookup");
	*has_cursor = !col_addr(st, 1, &c) && c.family == rn_pool_family(want);
	*cursor = *has_cursor ? rn_addr_to_u128(&c) : 0;
	spec = rn_pool_to_text(want);
	if (spec && !strcmp(spec, (const char *)sqlite3_column_text(st, 0)))
		err = rn_pool_copy(now, want);
	else
		err = rn_pool_from_text(now, (const char *)sqlite3_column_text(st, 0),
					"ipam: stored pool", e);
	free(spec);
	sqlite3_reset(st);
	return err ? -EIO : 1;
}

static int insert(struct sqlite_store *s, const struct rn_alloc_plan *plan, const char *pool,
		  const struct rn_addr *addr, struct rn_ipam_allocation *out, struct rn_error *e)
{
	sqlite3_stmt *st = stmt(s, ST_INSERT);
	time_t now = time(NULL);
	int rc;

	bind_text(st, 1, pool);
	bind_addr(st, 2, addr);
	sqlite3_bind_int(st, 3, addr->family == AF_INET ? 4 : 6);
	bind_text(st, 4, plan->container_id);
	bind_text(st, 5, plan->ifname);
	bind_text(st, 6, plan->pod_namespace);
	bind_text(st, 7, plan->pod_name);
	bind_text(st, 8, plan->node);
	sqlite3_bind_int64(st, 9, now);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, rc, e, "insert");
	st = stmt(s, ST_CURSOR);
	bind_text(st, 1, pool);
	bind_addr(st, 2, addr);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return db_fail(s, rc, e, "cursor");
	rn_alloc_fill(out, plan, pool, addr, now);
	return 0;
}

/* One family: the first pool in the list with a free address. */
static int allocate_family(struct sqlite_store *s, const struct rn_alloc_plan *plan,
			   const struct rn_alloc_family *f, struct rn_ipam_allocation *out,
			   struct rn_error *e)
{
	for (unsigned int i = 0; i < f->n; i++) {
		struct scan_ctx ctx = { .s = s };
		struct rn_alloc_iter it = { scan_seek, scan_next, &ctx };
		struct rn_pool now;
		bool has_cursor = false;
		rn_u128 cursor = 0, pick;
		struct rn_addr addr;
		int r;

		r = pool_state(s, f->pools[i], &now, &has_cursor, &cursor, e);
		if (r < 0)
			return r;
		if (r == 0)
			continue;	/* deleted meanwhile: the next pool */
		if (f->within[i]) {
			if (rn_seg_intersect(&now.segs, &now.n_segs, f->within[i],
					     f->n_within[i])) {
				rn_pool_free(&now);
				return rn_fail(e, -ENOMEM, "ipam: out of memory");
			}
			now.size = rn_seg_size(now.segs, now.n_segs);
		}
		ctx.pool = &now;
		r = rn_alloc_pick(&now, has_cursor, cursor, 0, &it, &pick, e);
		if (ctx.st)
			sqlite3_reset(ctx.st);
		if (r == 1) {
			rn_addr_from_u128(&addr, rn_pool_family(&now), pick);
			r = insert(s, plan, now.name, &addr, out, e);
			rn_pool_free(&now);
			return r;
		}
		rn_pool_free(&now);
		if (r < 0)
			return r;
		/* full: the next pool */
	}
	return rn_fail(e, -ENOSPC, "ipam: no free %s address in pool%s %s",
		       f->family == AF_INET ? "IPv4" : "IPv6", f->n > 1 ? "s" : "",
		       f->n ? f->pools[0]->name : "(none)");
}

static int sq_allocate(struct rn_store *base, const struct rn_alloc_plan *plan,
		       struct rn_ipam_allocation out[2], struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	struct rn_ipam_allocation held[2];
	bool have[2];
	int err;

	if (begin(s, e))
		return e->code;
	err = owner_holds(s, plan, held, have, e);
	for (unsigned int i = 0; !err && i < plan->n_families; i++) {
		const struct rn_alloc_family *f = &plan->fam[i];
		int idx = f->family == AF_INET6;

		if (have[idx])
			out[i] = held[idx];
		else
			err = allocate_family(s, plan, f, &out[i], e);
	}
	if (err)
		return rollback(s, err);	/* all-or-nothing */
	return commit(s, e) ? e->code : 0;
}

/* One bound DELETE in its own (autocommit) transaction: rows deleted. */
static int delete_rows(struct sqlite_store *s, sqlite3_stmt *st, struct rn_error *e)
{
	int rc;

	if (queue_writer(s, e)) {
		sqlite3_reset(st);
		return e ? e->code : -EAGAIN;
	}
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	unqueue_writer(s);
	return rc == SQLITE_DONE ? sqlite3_changes(s->db) : db_fail(s, rc, e, "release");
}

static int sq_release_owner(struct rn_store *base, const char *container_id, const char *ifname,
			    struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	sqlite3_stmt *st = stmt(s, ST_RELEASE_OWNER);

	bind_text(st, 1, container_id);
	bind_text(st, 2, ifname);
	return delete_rows(s, st, e);
}

static int sq_release_ip(struct rn_store *base, const char *pool, const struct rn_addr *addr,
			 struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	sqlite3_stmt *st = stmt(s, ST_RELEASE_IP);

	bind_text(st, 1, pool);
	bind_addr(st, 2, addr);
	return delete_rows(s, st, e);
}

static int sq_list(struct rn_store *base, const struct rn_alloc_filter *f,
		   struct rn_ipam_allocation **out, struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	char sql[512] = "SELECT " ALLOC_COLS " FROM allocations WHERE 1";
	struct rn_ipam_allocation *v = NULL;
	size_t cap = 0;
	sqlite3_stmt *st;
	int n = 0, rc;

	*out = NULL;
	/* only the wanted conditions, so the planner picks the matching index */
	if (f->pool)
		strcat(sql, " AND pool = ?1");
	if (f->addr)
		strcat(sql, " AND ip = ?2");
	if (f->container_id)
		strcat(sql, " AND container_id = ?3");
	if (f->ifname)
		strcat(sql, " AND ifname = ?4");
	strcat(sql, " ORDER BY pool, ip");
	rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, e, "list");
	if (f->pool)
		bind_text(st, 1, f->pool);
	if (f->addr)
		bind_addr(st, 2, f->addr);
	if (f->container_id)
		bind_text(st, 3, f->container_id);
	if (f->ifname)
		bind_text(st, 4, f->ifname);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if ((size_t)n == cap) {
			struct rn_ipam_allocation *grown;

			cap = cap ? cap * 2 : 64;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown) {
				rc = SQLITE_NOMEM;
				break;
			}
			v = grown;
		}
		if (row_alloc(st, &v[n]))
			continue;
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return rc == SQLITE_NOMEM ? rn_fail(e, -ENOMEM, "ipam: out of memory") :
					    db_fail(s, rc, e, "list");
	}
	*out = v;
	return n;
}

static int sq_count(struct rn_store *base, struct rn_ipam_pool_info *pools, int n,
		    struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	sqlite3_stmt *st;
	int rc;

	rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM allocations WHERE pool = ?1", -1,
				&st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, e, "count");
	for (int i = 0; i < n; i++) {
		sqlite3_reset(st);
		bind_text(st, 1, pools[i].pool.name);
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW)
			break;
		pools[i].allocated = (unsigned long long)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : db_fail(s, rc, e, "count");
}

static int sq_check(struct rn_store *base, char *report, size_t size, struct rn_error *e)
{
	struct sqlite_store *s = to_sq(base);
	static const char *const queries[] = {
		"PRAGMA quick_check",
		"SELECT 'allocation of ' || quote(ip) || ' in missing pool ' || pool"
		" FROM allocations WHERE pool NOT IN (SELECT name FROM pools)",
		"SELECT 'owner ' || container_id || '/' || ifname || ' holds ' || count(*) ||"
		" ' addresses of one family' FROM allocations"
		" GROUP BY container_id, ifname, family HAVING count(*) > 1",
		"SELECT 'address ' || quote(ip) || ' of length ' || length(ip) || ' in family ' ||"
		" family FROM allocations"
		" WHERE length(ip) != CASE family WHEN 4 THEN 4 ELSE 16 END",
	};
	int problems = 0;

	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		sqlite3_stmt *st;
		int rc = sqlite3_prepare_v2(s->db, queries[q], -1, &st, NULL);

		if (rc != SQLITE_OK)
			return db_fail(s, rc, e, "check");
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *t = (const char *)sqlite3_column_text(st, 0);

			if (q == 0 && t && !strcmp(t, "ok"))
				continue;
			rn_check_note(report, size, "sqlite: %s", t ? t : "?");
			problems++;
		}
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			return db_fail(s, rc, e, "check");
	}
	return problems;
}

static void sq_close(struct rn_store *base)
{
	struct sqlite_store *s = to_sq(base);

	if (!s)
		return;
	for (int i = 0; i < ST_MAX; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	rn_sqlite_lock_close(&s->writers);
	free(s);
}

static const struct rn_store_ops sqlite_ops = {
	.name = "sqlite",
	.close = sq_close,
	.pools_load = sq_pools_load,
	.pool_write = sq_pool_write,
	.pool_delete = sq_pool_delete,
	.allocate = sq_allocate,
	.release_owner = sq_release_owner,
	.release_ip = sq_release_ip,
	.list = sq_list,
	.count = sq_count,
	.check = sq_check,
};

/* Statements of the open: switching a fresh file to WAL or meeting another
 * opener's recovery can answer SQLITE_BUSY without calling the busy
 * handler (SQLite avoids deadlocks that way), so wait here too. */
static int pragma(struct sqlite_store *s, const char *sql, struct rn_error *e)
{
	long long deadline = rn_monotonic_ms() + s->base.settings->timeout_ms;
	int rc;

	while ((rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL)) == SQLITE_BUSY &&
	       rn_monotonic_ms() < deadline)
		usleep(1000 + rand_r(&s->seed) % 2000);
	return rc == SQLITE_OK ? 0 : db_fail(s, rc, e, sql);
}

static void private_sidecars(const char *db)
{
	static const char *const suffixes[] = { "-wal", "-shm", "-journal" };
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
		if (snprintf(path, sizeof(path), "%s%s", db, suffixes[i]) < (int)sizeof(path))
			rn_private_file(path, false);
}

static int no_store(const struct rn_ipam_settings *st, struct rn_error *e)
{
	return rn_fail(e, -ENOENT, "ipam: sqlite %s: no IPAM store yet (the first allocation, "
		       "`rdmanetctl pool sync` or rdmanetd's start creates it)", st->path);
}

static int schema(struct sqlite_store *s, bool read_only, struct rn_error *e)
{
	sqlite3_stmt *st;
	int rc, version;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return db_fail(s, rc, e, "schema");
	rc = sqlite3_step(st);
	version = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
	sqlite3_finalize(st);
	if (version < 0)
		return db_fail(s, rc, e, "schema");
	if (version == SCHEMA_VERSION)
		return 0;
	if (version > SCHEMA_VERSION)
		return rn_fail(e, -EIO, "ipam: sqlite %s: schema version %d is newer than this "
			       "binary's %d", s->base.settings->path, version, SCHEMA_VERSION);
	if (read_only)
		return no_store(s->base.settings, e);	/* a file no writer set up */
	/* several processes may meet an empty file: create under the write lock */
	if (pragma(s, "BEGIN IMMEDIATE", e))
		return e->code;
	if (pragma(s, schema_sql, e))
		return rollback(s, e->code);
	return pragma(s, "COMMIT", e) ? rollback(s, e->code) : 0;
}

/* Read-only: SQLITE_OPEN_READONLY, no directory, no writer lock file, no
 * journal mode switch, no schema. Reading a WAL database still needs
 * SQLite's -wal and -shm files: SQLite creates them empty if no writer has
 * them open (they hold no data; the database file itself is not touched). */
int rn_store_sqlite_open(struct rn_store **out, const struct rn_ipam_settings *st,
			 bool read_only, struct rn_error *e)
{
	struct sqlite_store *s;
	int rc, err;

	*out = NULL;
	if (read_only && access(st->path, F_OK) && errno == ENOENT)
		return no_store(st, e);
	s = calloc(1, sizeof(*s));
	if (!s)
		return rn_fail(e, -ENOMEM, "ipam: out of memory");
	s->base.ops = &sqlite_ops;
	s->base.settings = st;
	s->writers.fd = -1;
	s->seed = (unsigned int)getpid() ^ (unsigned int)rn_monotonic_ms();
	err = read_only ? 0 : rn_mkdir_parent(st->path, 0755);
	if (err) {
		free(s);
		return rn_fail(e, err, "ipam: sqlite %s: cannot create its directory: %s", st->path,
			       strerror(-err));
	}
	/* SQLite gives the -wal and -shm files the database file's mode when it
	 * creates them: a root-only database file makes all three root-only */
	err = read_only ? 0 : rn_private_file(st->path, true);
	if (err) {
		free(s);
		return rn_fail(e, err, "ipam: sqlite %s: %s", st->path, strerror(-err));
	}
	rc = sqlite3_open_v2(st->path, &s->db, SQLITE_OPEN_NOMUTEX | (read_only ?
			     SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
			     NULL);
	if (rc != SQLITE_OK) {
		err = rn_fail(e, rc == SQLITE_CANTOPEN ? -EACCES : -EIO, "ipam: sqlite %s: %s",
			      st->path, s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		sqlite3_close(s->db);
		free(s);
		return err;
	}
	sqlite3_busy_handler(s->db, busy_wait, s);
	if (!read_only) {
		rn_sqlite_lock_open(&s->writers, st->path);
		err = pragma(s, "PRAGMA journal_mode = WAL", e) ||
		      pragma(s, "PRAGMA synchronous = FULL", e);
		s->wal.busy = busy_wait;
		s->wal.busy_arg = s;
		rn_sqlite_wal_bound(s->db, &s->wal);
		/* those an older version left world-readable */
		if (!err)
			private_sidecars(st->path);
	}
	err = err || schema(s, read_only, e);
	if (err) {
		sq_close(&s->base);
		return e ? e->code : -EIO;
	}
	*out = &s->base;
	return 0;
}
