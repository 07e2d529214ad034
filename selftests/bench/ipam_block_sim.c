// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_block_sim CONFIG DIR NODES WORKERS PHASE [SECONDS]: many nodes
 * claiming and allocating per-node blocks (ipam/block_alloc.h) against the
 * config's real etcd, for make bench (bench_ipam_scale.sh). Node i is
 * "node-i" with its own node-local store DIR/node-i.db; WORKERS processes
 * share the nodes (node i goes to worker i % WORKERS), each driving the
 * same code the agent and the CNI plugin run:
 *   claim    each node's agent tick (rn_block_alloc_tick, reserve 100 %:
 *            a block of every block pool of the config); a tick that
 *            failed ("try again later") runs again in the next round
 *   churn    SECONDS of pods starting and stopping: each node in turn
 *            allocates an address of each pool (rn_block_alloc_allocate)
 *            and releases the previous one
 *   verify   every address any node's store holds, or that churn logged as
 *            handed out (DIR/handed.*), lies in a block etcd says is that
 *            node's; no address is held by two nodes
 * Prints one JSON object: {"nodes", "ops", "ok", "eagain", "errors",
 * "seconds", "per_s"} (verify: {"checked", "outside", "duplicates"}). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "ipam/block_alloc.h"
#include "ipam/ipam_settings.h"
#include "ipam/store.h"

struct counts {
	long long ops, ok, eagain, errors;
};

static struct rn_config cfg;
static struct rn_ipam_settings st;
static struct rn_pool *pools;
static unsigned int n_pools;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int node_open(struct rn_block_alloc **ba, const char *dir, int i, char *node,
		     struct rn_error *e)
{
	struct rn_ipam_settings ns = st;

	snprintf(node, RN_POOL_NODE_MAX, "node-%d", i);
	snprintf(ns.path, sizeof(ns.path), "%s/%s.db", dir, node);
	return rn_block_alloc_open(ba, &ns, node, e);
}

static void count(struct counts *c, int err, const struct rn_error *e)
{
	__atomic_add_fetch(&c->ops, 1, __ATOMIC_RELAXED);
	if (!err)
		__atomic_add_fetch(&c->ok, 1, __ATOMIC_RELAXED);
	else if (err == -EAGAIN)
		__atomic_add_fetch(&c->eagain, 1, __ATOMIC_RELAXED);
	else {
		if (__atomic_add_fetch(&c->errors, 1, __ATOMIC_RELAXED) <= 3)
			fprintf(stderr, "ipam_block_sim: %s\n", e->msg);
	}
}

/* Every node's agent tick; a node whose tick failed (etcd busy: "try
 * again later") ticks again in the next round, as the agent does, up to
 * CLAIM_ROUNDS rounds: the steady state starts with every node holding
 * its blocks. c->eagain counts the failed ticks of every round, c->errors
 * the nodes still without their blocks after the last. */
#define CLAIM_ROUNDS 5

static void claim(const char *dir, int nodes, int workers, int w, struct counts *c)
{
	const struct rn_block_tick t = { .reserve_pct = 100, .release_grace_ms = 1LL << 40 };
	int mine = (nodes - w + workers - 1) / workers, left = mine;
	bool *done = calloc((size_t)mine + 1, sizeof(*done));

	if (!done)
		exit(1);
	for (int round = 0; left && round < CLAIM_ROUNDS; round++) {
		for (int k = 0; k < mine; k++) {
			struct rn_error e = { 0 };
			struct rn_block_alloc *ba;
			char node[RN_POOL_NODE_MAX];
			int r;

			if (done[k])
				continue;
			r = node_open(&ba, dir, w + k * workers, node, &e);
			if (!r) {
				r = rn_block_alloc_tick(ba, pools, n_pools, &t, &e);
				rn_block_alloc_close(ba);
			}
			if (r >= 0) {	/* one op per block claimed */
				done[k] = true;
				left--;
				__atomic_add_fetch(&c->ops, r, __ATOMIC_RELAXED);
				__atomic_add_fetch(&c->ok, r, __ATOMIC_RELAXED);
			} else if (r == -EAGAIN && round + 1 < CLAIM_ROUNDS) {
				__atomic_add_fetch(&c->eagain, 1, __ATOMIC_RELAXED);
			} else {
				count(c, r, &e);
			}
		}
	}
	free(done);
}

static void churn(const char *dir, int nodes, int workers, int w, double seconds,
		  struct counts *c)
{
	int mine = (nodes - w + workers - 1) / workers;
	struct rn_block_alloc **ba = calloc((size_t)mine, sizeof(*ba));
	char path[4096], node[RN_POOL_NODE_MAX];
	double end;
	FILE *log;
	long long round = 0;

	snprintf(path, sizeof(path), "%s/handed.%d", dir, w);
	log = fopen(path, "a");
	if (!ba || !log)
		exit(1);
	for (int k = 0; k < mine; k++) {
		struct rn_error e = { 0 };

		if (node_open(&ba[k], dir, w + k * workers, node, &e)) {
			fprintf(stderr, "ipam_block_sim: %s\n", e.msg);
			exit(1);
		}
	}
	end = now_s() + seconds;
	while (now_s() < end) {
		for (int k = 0; k < mine && now_s() < end; k++) {
			int i = w + k * workers;

			snprintf(node, sizeof(node), "node-%d", i);
			for (unsigned int p = 0; p < n_pools; p++) {
				struct rn_error e = { 0 };
				struct rn_ipam_allocation out[2];
				struct rn_alloc_plan plan = { .ifname = "net1", .node = node,
							      .n_families = 1 };
				char cid[64], s[RN_ADDR_STRLEN];
				int err;

				snprintf(cid, sizeof(cid), "pod-%lld-%u", round, p);
				plan.container_id = cid;
				plan.fam[0].family = rn_pool_family(&pools[p]);
				plan.fam[0].n = 1;
				plan.fam[0].pools[0] = &pools[p];
				err = rn_block_alloc_allocate(ba[k], &plan, out, &e);
				count(c, err, &e);
				if (!err)
					fprintf(log, "%s %s %s\n", node, pools[p].name,
						rn_addr_format(&out[0].addr, s));
				/* the previous round's pod stops */
				if (round) {
					struct rn_store *local = rn_block_alloc_store(ba[k]);

					snprintf(cid, sizeof(cid), "pod-%lld-%u", round - 1, p);
					local->ops->release_owner(local, cid, "net1", NULL);
				}
			}
		}
		round++;
	}
	fclose(log);
	for (int k = 0; k < mine; k++)
		rn_block_alloc_close(ba[k]);
	free(ba);
}

struct held {
	char pool[RN_POOL_NAME_MAX];
	rn_u128 addr;
	int node;
};

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	int c = strcmp(x->pool, y->pool);

	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* in a block etcd says node holds */
static bool in_blocks(const struct rn_block *b, int n, const char *node, const char *pool,
		      rn_u128 a)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(b[i].node, node) && !strcmp(b[i].pool, pool) && a >= b[i].base &&
		    a <= rn_block_last(b[i].family, b[i].base, b[i].len))
			return true;
	return false;
}

static int verify(const char *dir, int nodes, int workers)
{
	struct rn_error e = { 0 };
	struct rn_block *blocks;
	struct rn_etcd *c;
	struct held *h = NULL;
	size_t n_h = 0, cap = 0;
	long long checked = 0, outside = 0, dup = 0;
	int n;

	if (rn_etcd_open(&c, &st, &e) ||
	    (n = rn_block_list(c, st.prefix, NULL, NULL, NULL, &blocks, &e)) < 0) {
		fprintf(stderr, "ipam_block_sim: %s\n", e.msg);
		return 1;
	}
	for (int i = 0; i < nodes; i++) {
		struct rn_ipam_settings ns = st;
		struct rn_alloc_filter all = { 0 };
		struct rn_ipam_allocation *a;
		struct rn_store *s;
		char node[RN_POOL_NODE_MAX];
		int k;

		snprintf(node, sizeof(node), "node-%d", i);
		snprintf(ns.path, sizeof(ns.path), "%s/%s.db", dir, node);
		ns.store = RN_IPAM_STORE_SQLITE;
		if (rn_store_sqlite_open(&s, &ns, true, &e))
			continue;
		k = s->ops->list(s, &all, &a, &e);
		for (int j = 0; j < k; j++) {
			if (n_h == cap) {
				cap = cap ? cap * 2 : 1024;
				h = realloc(h, cap * sizeof(*h));
			}
			snprintf(h[n_h].pool, sizeof(h[n_h].pool), "%s", a[j].pool);
			h[n_h].addr = rn_addr_to_u128(&a[j].addr);
			h[n_h++].node = i;
			checked++;
			outside += !in_blocks(blocks, n, node, a[j].pool, rn_addr_to_u128(&a[j].addr));
		}
		if (k > 0)
			free(a);
		s->ops->close(s);
	}
	/* every address churn handed out, released since or not */
	for (int w = 0; w < workers; w++) {
		char path[4096], node[RN_POOL_NODE_MAX], pool[RN_POOL_NAME_MAX], ip[64];
		struct rn_addr a;
		FILE *f;

		snprintf(path, sizeof(path), "%s/handed.%d", dir, w);
		f = fopen(path, "r");
		while (f && fscanf(f, "%63s %63s %63s", node, pool, ip) == 3) {
			checked++;
			if (rn_addr_parse(ip, &a) ||
			    !in_blocks(blocks, n, node, pool, rn_addr_to_u128(&a)))
				outside++;
		}
		if (f)
			fclose(f);
	}
	qsort(h, n_h, sizeof(*h), held_cmp);
	for (size_t i = 1; i < n_h; i++)
		dup += !held_cmp(&h[i - 1], &h[i]);
	printf("{\"checked\": %lld, \"outside\": %lld, \"duplicates\": %lld, \"blocks\": %d}\n",
	       checked, outside, dup, n);
	free(h);
	free(blocks);
	rn_etcd_close(c);
	return outside || dup;
}

int main(int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct counts *c;
	int nodes, workers;
	double t0, secs = argc > 6 ? atof(argv[6]) : 10;
	unsigned int k = 0;

	if (argc < 6) {
		fprintf(stderr, "usage: ipam_block_sim CONFIG DIR NODES WORKERS "
			"claim|churn|verify [SECONDS]\n");
		return 2;
	}
	nodes = atoi(argv[3]);
	workers = atoi(argv[4]);
	if (rn_config_load(&cfg, argv[1], &e) || rn_ipam_settings_parse(&st, &cfg, &e) ||
	    rn_ipam_config_pools(&cfg, &pools, &n_pools, &e)) {
		fprintf(stderr, "ipam_block_sim: %s\n", e.msg);
		return 1;
	}
	for (unsigned int i = 0; i < n_pools; i++)
		if (pools[i].block)
			pools[k++] = pools[i];
	n_pools = k;
	if (!strcmp(argv[5], "verify"))
		return verify(argv[2], nodes, workers);
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED || workers < 1)
		return 1;
	memset(c, 0, sizeof(*c));
	t0 = now_s();
	for (int w = 0; w < workers; w++) {
		if (fork() == 0) {
			if (!strcmp(argv[5], "claim"))
				claim(argv[2], nodes, workers, w, c);
			else
				churn(argv[2], nodes, workers, w, secs, c);
			_exit(0);
		}
	}
	while (wait(NULL) > 0)
		;
	t0 = now_s() - t0;
	printf("{\"nodes\": %d, \"ops\": %lld, \"ok\": %lld, \"eagain\": %lld, \"errors\": %lld, "
	       "\"seconds\": %.2f, \"per_s\": %.1f}\n", nodes, c->ops, c->ok, c->eagain, c->errors,
	       t0, c->ok / t0);
	return c->errors ? 1 : 0;
}
