// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "ipam_precheck.h"
#include "log.h"
#include "netdev.h"
#include "../cni/probe.h"
#include "ipam/ipam.h"

/* Where each (pool, master) pre-check left off: the next candidates come
 * after it, round-robin like the allocator's own picks, so an address just
 * released is the last one pre-checked again. */
struct cursor {
	struct rn_precheck_want w;
	bool has;
	rn_u128 at;
};

static struct cursor cursors[RN_PRECHECK_MAX_WANTS];
static unsigned int n_cursors;
static int64_t next_due;	/* CLOCK_BOOTTIME ms; 0: at the next tick */
/* the settings of the last run: a change is due at once */
static long long last_age_s;
static unsigned int last_per_pool;
/* the markers' directory time: an ADD took addresses, or marked a pool */
static int64_t last_wants;

/* A probe the tick runs: entry k of the new table, if nobody answers. */
struct job {
	struct rn_precheck_entry x;
	bool reprobe;
};

struct tick_state {
	const struct rn_config *c;
	const struct rn_ipam_settings *st;
	int64_t now, max_age_ms;
	unsigned int per_pool;
	struct rn_precheck_table old, out;
	struct job *jobs;
	unsigned int n_jobs;
};

static struct cursor *cursor_of(const struct rn_precheck_want *w)
{
	for (unsigned int i = 0; i < n_cursors; i++)
		if (!strcmp(cursors[i].w.pool, w->pool) && !strcmp(cursors[i].w.master, w->master))
			return &cursors[i];
	if (n_cursors == RN_PRECHECK_MAX_WANTS)
		n_cursors = 0;	/* pools come and go: guess every cursor again */
	memset(&cursors[n_cursors], 0, sizeof(cursors[0]));
	cursors[n_cursors].w = *w;
	return &cursors[n_cursors++];
}

/* The addresses a candidate must not be: allocated or already in the
 * table, ascending, walked by rn_alloc_pick's iterator. */
struct taken {
	rn_u128 *v;
	unsigned int n, cap, pos;
};

static int taken_add(struct taken *t, rn_u128 v)
{
	if (t->n == t->cap) {
		unsigned int cap = t->cap ? 2 * t->cap : 64;
		rn_u128 *nv = realloc(t->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	t->v[t->n++] = v;
	return 0;
}

static int cmp_u128(const void *a, const void *b)
{
	rn_u128 x = *(const rn_u128 *)a, y = *(const rn_u128 *)b;

	return x < y ? -1 : x > y;
}

static bool taken_has(const struct taken *t, rn_u128 v)
{
	return bsearch(&v, t->v, t->n, sizeof(v), cmp_u128) != NULL;
}

static int taken_seek(void *ctx, rn_u128 from, struct rn_error *e)
{
	struct taken *t = ctx;

	(void)e;
	t->pos = 0;
	while (t->pos < t->n && t->v[t->pos] < from)
		t->pos++;
	return 0;
}

static int taken_next(void *ctx, rn_u128 *addr, struct rn_error *e)
{
	struct taken *t = ctx;

	(void)e;
	if (t->pos == t->n)
		return 0;
	*addr = t->v[t->pos++];
	return 1;
}

static int add_job(struct tick_state *s, const struct rn_precheck_want *w, int family,
		   rn_u128 v, bool reprobe)
{
	struct job *j;

	if (s->n_jobs + s->out.n >= RN_PRECHECK_MAX)
		return -ENOSPC;
	j = &s->jobs[s->n_jobs++];
	memset(j, 0, sizeof(*j));
	snprintf(j->x.pool, sizeof(j->x.pool), "%s", w->pool);
	snprintf(j->x.master, sizeof(j->x.master), "%s", w->master);
	rn_addr_from_u128(&j->x.addr, family, v);
	j->reprobe = reprobe;
	return 0;
}

/* The table's entries of w that still stand: kept as they are while
 * younger than half the max age, probed again after that, dropped once
 * allocated, outside the pool or too many. Returns how many stand. */
static unsigned int keep_old(struct tick_state *s, const struct rn_precheck_want *w,
			     const struct rn_pool *p, struct taken *t)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < s->old.n && n < s->per_pool; i++) {
		struct rn_precheck_entry *x = &s->old.e[i];
		rn_u128 v = rn_addr_to_u128(&x->addr);

		if (strcmp(x->pool, w->pool) || strcmp(x->master, w->master) ||
		    x->addr.family != rn_pool_family(p) ||
		    !rn_seg_contains(p->segs, p->n_segs, v) || taken_has(t, v) ||
		    !rn_precheck_fresh(&s->old, x, s->now))
			continue;
		if (s->now - x->checked_ms < s->max_age_ms / 2) {
			if (s->out.n + s->n_jobs >= RN_PRECHECK_MAX)
				break;
			s->out.e[s->out.n++] = *x;
		} else if (add_job(s, w, x->addr.family, v, true)) {
			break;
		}
		n++;
	}
	return n;
}

/* Where the allocator's round-robin stands, as far as the agent can tell
 * at its first look: after the newest allocation. */
static void cursor_guess(struct cursor *cur, const struct rn_ipam_allocation *a, int n)
{
	int64_t newest = -1;

	for (int i = 0; i < n; i++) {
		rn_u128 v = rn_addr_to_u128(&a[i].addr);

		if (a[i].created > newest || (a[i].created == newest && v > cur->at)) {
			newest = a[i].created;
			cur->at = v;
			cur->has = true;
		}
	}
}

/* A block pool's next addresses are in this node's blocks only (the rest
 * of the pool is other nodes' or nobody's yet): p narrowed to them, empty
 * while the node holds none. */
static int within_own_blocks(struct tick_state *s, struct rn_pool *p, struct rn_error *e)
{
	struct rn_pool_seg *own;
	unsigned int n_own;
	int r = rn_block_view_segs(s->st, s->c->node, p->name, &own, &n_own, e);

	if (!r && rn_seg_intersect(&p->segs, &p->n_segs, own, n_own))
		r = rn_fail(e, -ENOMEM, "ipam: out of memory");
	if (!r)
		p->size = rn_seg_size(p->segs, p->n_segs);
	free(own);
	return r;
}

static int plan_want(struct tick_state *s, struct rn_ipam *ipam, const struct rn_precheck_want *w)
{
	struct rn_ipam_pool_info info;
	struct rn_ipam_allocation *allocs = NULL;
	struct taken t = { 0 };
	struct rn_alloc_iter it = { taken_seek, taken_next, &t };
	struct rn_error e = { 0 };
	struct cursor *cur = cursor_of(w);
	unsigned int have;
	int n, r = 0;

	r = rn_ipam_pool_get(ipam, w->pool, &info, &e);
	if (r == -ENOENT) {
		rn_info("ipam: pre-checks: pool \"%s\" is gone: no more pre-checks on %s", w->pool,
			w->master);
		rn_precheck_unwant(s->c->cni.state_dir, w);
		return 0;
	}
	if (r)
		return r;
	if (info.pool.vlan || !cur)
		goto out;
	n = rn_ipam_allocations(ipam, w->pool, &allocs, &e);
	if (n < 0) {
		r = n;
		goto out;
	}
	for (int i = 0; i < n && !r; i++)
		r = taken_add(&t, rn_addr_to_u128(&allocs[i].addr));
	if (!r && info.pool.block && s->st->store == RN_IPAM_STORE_ETCD) {
		free(allocs);
		allocs = NULL;
		n = rn_precheck_node_allocations(s->st, w->pool, &allocs, &e);
		if (n < 0) {
			r = n;
			goto out;
		}
		for (int i = 0; i < n && !r; i++)
			r = taken_add(&t, rn_addr_to_u128(&allocs[i].addr));
	}
	if (!r && info.pool.block && s->st->store == RN_IPAM_STORE_ETCD)
		r = within_own_blocks(s, &info.pool, &e);
	if (r)
		goto out;
	qsort(t.v, t.n, sizeof(*t.v), cmp_u128);
	if (!cur->has)
		cursor_guess(cur, allocs, n);
	have = keep_old(s, w, &info.pool, &t);
	/* what stands is not a candidate either */
	for (unsigned int i = 0; i < s->out.n && !r; i++)
		if (!strcmp(s->out.e[i].pool, w->pool) && !strcmp(s->out.e[i].master, w->master))
			r = taken_add(&t, rn_addr_to_u128(&s->out.e[i].addr));
	for (unsigned int i = 0; i < s->n_jobs && !r; i++)
		if (!strcmp(s->jobs[i].x.pool, w->pool) && !strcmp(s->jobs[i].x.master, w->master))
			r = taken_add(&t, rn_addr_to_u128(&s->jobs[i].x.addr));
	while (!r && have < s->per_pool) {
		rn_u128 v;

		qsort(t.v, t.n, sizeof(*t.v), cmp_u128);
		r = rn_alloc_pick(&info.pool, cur->has, cur->at, 0, &it, &v, &e);
		if (r <= 0)
			break;		/* full, or an error */
		cur->at = v;
		cur->has = true;
		r = add_job(s, w, rn_pool_family(&info.pool), v, false);
		if (!r)
			r = taken_add(&t, v);
		have++;
	}
	if (r == -ENOSPC)
		r = 0;		/* the table is full: the bound */
out:
	free(t.v);
	free(allocs);
	rn_pool_free(&info.pool);
	if (r < 0)
		rn_warn("ipam: pre-checks of pool \"%s\": %s", w->pool, e.msg[0] ? e.msg :
			strerror(-r));
	return r < 0 ? r : 0;
}

/* The jobs of one master, probed in one window; those nobody answered for
 * go into the table, checked as of the window's start. */
static void probe_master(struct tick_state *s, const char *master)
{
	const struct cni_probe_opts o = { true, RN_PRECHECK_PROBE_MS, RN_PRECHECK_PROBES };
	struct cni_prober p = { .arp_fd = -1, .nd_fd = -1 };
	struct rn_error e = { 0 };
	struct rn_netdev nd;
	struct cni_probe *t;
	unsigned int *of, n = 0;
	bool v4 = false, v6 = false;
	int64_t start;
	char buf[RN_ADDR_STRLEN], mac[RN_MAC_STRLEN];

	t = calloc(s->n_jobs, sizeof(*t));
	of = calloc(s->n_jobs, sizeof(*of));
	if (!t || !of)
		goto out;
	for (unsigned int i = 0; i < s->n_jobs; i++) {
		if (strcmp(s->jobs[i].x.master, master))
			continue;
		t[n].target = s->jobs[i].x.addr;
		v4 |= t[n].target.family == AF_INET;
		v6 |= t[n].target.family == AF_INET6;
		of[n++] = i;
	}
	if (!n)
		goto out;
	if (rn_netdev_get(master, 0, &nd, &e) ||
	    cni_prober_open(&p, nd.ifindex, nd.ifname, nd.mac, v4, v6, &e)) {
		rn_warn("ipam: pre-checks on %s: %s", master, e.msg);
		goto out;
	}
	start = rn_precheck_now_ms();
	if (cni_probe_run(&p, t, n, &o, CNI_PROBE_ALL_ANSWERED, &e) < 0) {
		rn_warn("ipam: pre-checks on %s: %s", master, e.msg);
		goto out;
	}
	for (unsigned int k = 0; k < n; k++) {
		struct rn_precheck_entry *x = &s->jobs[of[k]].x;

		if (t[k].answered) {
			rn_mac_format(t[k].who, mac);
			rn_info("ipam: pre-check: %s (pool \"%s\") is in use on %s's wire by %s: "
				"not pre-checked", rn_addr_format(&x->addr, buf), x->pool, master,
				mac);
			continue;
		}
		x->checked_ms = start;
		if (s->out.n < RN_PRECHECK_MAX)
			s->out.e[s->out.n++] = *x;
	}
out:
	cni_prober_close(&p);
	free(t);
	free(of);
}

static void probe_all(struct tick_state *s)
{
	for (unsigned int i = 0; i < s->n_jobs; i++) {
		bool seen = false;

		for (unsigned int k = 0; k < i && !seen; k++)
			seen = !strcmp(s->jobs[k].x.master, s->jobs[i].x.master);
		if (!seen)
			probe_master(s, s->jobs[i].x.master);
	}
}

/* The next tick with work: when the oldest entry turns half the max age
 * (or, with a pool short of pre-checks, 5 s later: the pool may have freed
 * addresses or the wire stopped answering; an ADD's marker brings it
 * forward, see rn_precheck_wants_changed). */
static int64_t due_after(const struct tick_state *s, unsigned int n_wants)
{
	int64_t due = s->now + s->max_age_ms / 2;

	for (unsigned int i = 0; i < s->out.n; i++)
		if (s->out.e[i].checked_ms + s->max_age_ms / 2 < due)
			due = s->out.e[i].checked_ms + s->max_age_ms / 2;
	if (s->out.n < n_wants * s->per_pool && s->now + 5000 < due)
		due = s->now + 5000;
	return due;
}

static void run_tick(const struct rn_config *c, int64_t now)
{
	static struct rn_precheck_want wants[RN_PRECHECK_MAX_WANTS];
	struct tick_state s = { .c = c, .now = now };
	struct rn_ipam_settings st;
	struct rn_ipam *ipam = NULL;
	struct rn_error e = { 0 };
	int n_wants;

	next_due = now + 5000;
	if (!c->cni.state_dir[0] || rn_ipam_settings_parse(&st, c, NULL))
		return;
	s.st = &st;
	s.per_pool = st.precheck_per_pool;
	s.max_age_ms = st.precheck_max_age_s * 1000;
	n_wants = s.per_pool ? rn_precheck_wants(c->cni.state_dir, wants, RN_PRECHECK_MAX_WANTS)
			     : 0;
	if (rn_precheck_load(c->cni.state_dir, &s.old, NULL))
		return;
	s.out.max_age_ms = s.max_age_ms;
	s.out.e = calloc(RN_PRECHECK_MAX, sizeof(*s.out.e));
	s.jobs = calloc(RN_PRECHECK_MAX, sizeof(*s.jobs));
	if (!s.out.e || !s.jobs)
		goto out;
	if (n_wants > 0 && rn_ipam_open_readonly(&ipam, c, &e)) {
		rn_debug("ipam: pre-checks: %s", e.msg);
		goto out;
	}
	for (int i = 0; i < n_wants; i++)
		plan_want(&s, ipam, &wants[i]);
	probe_all(&s);
	if ((s.out.n || s.old.n) && rn_precheck_save(c->cni.state_dir, &s.out, &e))
		rn_warn("ipam: pre-checks: %s", e.msg);
	next_due = n_wants > 0 ? due_after(&s, (unsigned int)n_wants) : now + 5000;
out:
	rn_ipam_close(ipam);
	rn_precheck_free(&s.old);
	free(s.out.e);
	free(s.jobs);
}

void rn_ipam_precheck_init(const struct rn_config *c)
{
	n_cursors = 0;
	next_due = 0;
	rn_ipam_precheck_tick(c);
}

long long rn_ipam_precheck_tick(const struct rn_config *c)
{
	int64_t now = rn_precheck_now_ms();
	struct rn_ipam_settings st;

	if (!rn_ipam_settings_parse(&st, c, NULL) &&
	    (st.precheck_max_age_s != last_age_s || st.precheck_per_pool != last_per_pool)) {
		last_age_s = st.precheck_max_age_s;
		last_per_pool = st.precheck_per_pool;
		next_due = 0;
	}
	if (rn_precheck_wants_changed(c->cni.state_dir) != last_wants) {
		last_wants = rn_precheck_wants_changed(c->cni.state_dir);
		next_due = 0;
	}
	if (now >= next_due) {
		run_tick(c, now);
		now = rn_precheck_now_ms();
	}
	return next_due > now ? next_due - now : 0;
}
