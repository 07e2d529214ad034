// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_blocks CONFIG NODE VERB ...: drives the block claims of one node
 * (ipam/block_claim.h) against the config's etcd, for the tests and the
 * bench. Every verb first takes the node's lease (the one etcd holds for it,
 * kept alive, or a new one of TTL seconds, default 60):
 *   lease [TTL]                   prints the lease id (hex) and its TTL
 *   claim POOL [N] [TTL]          claims N blocks (default 1), one "POOL BASE/LEN" a line
 *   claim-cost POOL               claims one block: "POOL BASE/LEN REQUESTS KEYS", the
 *                                 etcd requests the claim made and the keys it read
 *   list [POOL]                   the node's blocks, one a line
 *   owned POOL BASE/LEN           exit 0 if the node holds the block, 1 if not
 *   release POOL BASE/LEN         exit 0 if released, 1 if it was not there
 *   revoke                        gives the lease and every block back
 *   hold TTL                      keeps the lease alive (TTL/3) until killed; prints
 *                                 "held <id>" once; exits 1 when the lease is lost
 * and, without taking a lease first:
 *   all [POOL]                    every claimed block: "POOL BASE/LEN NODE" (NODE ignored)
 *   report [POOL]                 rn_block_report for NODE: "POOL BASE/LEN HOLDER LEASE
 *                                 USED/SIZE" (USED "-": another node's block)
 *   tick RESERVE_PCT GRACE_MS     one agent tick over the config's block pools
 *                                 (rn_block_alloc_tick); prints what it changed
 * Exit 75 when etcd does not answer in time, 3 when the pool is full. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ipam/block_alloc.h"
#include "ipam/block_claim.h"
#include "ipam/block_report.h"
#include "ipam/ipam_settings.h"

static struct rn_config cfg;
static struct rn_ipam_settings st;
static struct rn_pool *pools;
static unsigned int n_pools;
static bool print_holder;

static int fail(const struct rn_error *e)
{
	fprintf(stderr, "ipam_blocks: %s\n", e->msg);
	return e->code == -EAGAIN ? 75 : e->code == -ENOSPC ? 3 : 1;
}

static const struct rn_pool *pool_named(const char *name)
{
	for (unsigned int i = 0; i < n_pools; i++)
		if (!strcmp(pools[i].name, name))
			return &pools[i];
	fprintf(stderr, "ipam_blocks: no pool \"%s\" in the config\n", name);
	exit(2);
}

static void print_block(const struct rn_block *b)
{
	char s[RN_ADDR_STRLEN];
	struct rn_addr a;

	rn_addr_from_u128(&a, b->family, b->base);
	printf("%s %s/%u", b->pool, rn_addr_format(&a, s), b->len);
	printf(print_holder ? " %s\n" : "\n", b->node);
}

static void parse_block(const char *pool, const char *text, struct rn_block *b)
{
	struct rn_prefix p;

	if (rn_prefix_parse(text, &p, true)) {
		fprintf(stderr, "ipam_blocks: \"%s\" is not a block (BASE/LEN)\n", text);
		exit(2);
	}
	memset(b, 0, sizeof(*b));
	snprintf(b->pool, sizeof(b->pool), "%s", pool);
	b->family = p.addr.family;
	b->base = rn_addr_to_u128(&p.addr);
	b->len = p.len;
}

int main(int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_block_lease l;
	const char *node, *verb;
	struct rn_etcd *c;
	long long ttl = 60;
	int r;

	if (argc < 4) {
		fprintf(stderr, "usage: ipam_blocks CONFIG NODE lease|claim|list|owned|release|"
			"revoke|hold ...\n");
		return 2;
	}
	node = argv[2];
	verb = argv[3];
	if (rn_config_load(&cfg, argv[1], &e) || rn_ipam_settings_parse(&st, &cfg, &e) ||
	    rn_ipam_config_pools(&cfg, &pools, &n_pools, &e) || rn_etcd_open(&c, &st, &e))
		return fail(&e);
	if (!strcmp(verb, "all")) {
		struct rn_block *b;
		int n = rn_block_list(c, st.prefix, NULL, NULL, argc > 4 ? argv[4] : NULL, &b, &e);

		if (n < 0)
			return fail(&e);
		print_holder = true;
		for (int i = 0; i < n; i++)
			print_block(&b[i]);
		free(b);
		rn_etcd_close(c);
		return 0;
	}
	if (!strcmp(verb, "report")) {
		struct rn_block_usage *u;
		int n = rn_block_report(&st, node, argc > 4 ? argv[4] : NULL, &u, &e);

		if (n < 0)
			return fail(&e);
		for (int i = 0; i < n; i++) {
			char used[24], s[RN_ADDR_STRLEN];
			struct rn_addr a;

			snprintf(used, sizeof(used), u[i].used_here < 0 ? "-" : "%lld", u[i].used_here);
			rn_addr_from_u128(&a, u[i].b.family, u[i].b.base);
			printf("%s %s/%u %s %llx %s/%llu\n", u[i].b.pool, rn_addr_format(&a, s),
			       u[i].b.len, u[i].b.node, (unsigned long long)u[i].b.lease, used,
			       u[i].size);
		}
		free(u);
		rn_etcd_close(c);
		return 0;
	}
	if (!strcmp(verb, "tick") && argc > 5) {
		struct rn_block_tick t = { .reserve_pct = (unsigned int)atoi(argv[4]),
					   .release_grace_ms = atoll(argv[5]) };
		struct rn_block_alloc *ba;
		unsigned int k = 0;

		for (unsigned int i = 0; i < n_pools; i++)
			if (pools[i].block)
				pools[k++] = pools[i];
		if (rn_block_alloc_open(&ba, &st, node, &e))
			return fail(&e);
		r = rn_block_alloc_tick(ba, pools, k, &t, &e);
		rn_block_alloc_close(ba);
		rn_etcd_close(c);
		if (r < 0)
			return fail(&e);
		printf("%d\n", r);
		return 0;
	}
	if (!strcmp(verb, "lease") && argc > 4)
		ttl = atoll(argv[4]);
	if (!strcmp(verb, "claim") && argc > 6)
		ttl = atoll(argv[6]);
	if (!strcmp(verb, "hold") && argc > 4)
		ttl = atoll(argv[4]);
	if (rn_block_lease_get(c, st.prefix, node, ttl, &l, &e))
		return fail(&e);
	if (!strcmp(verb, "lease")) {
		printf("%llx %lld\n", (unsigned long long)l.id, l.ttl_s);
	} else if (!strcmp(verb, "claim") && argc > 4) {
		const struct rn_pool *p = pool_named(argv[4]);
		int n = argc > 5 ? atoi(argv[5]) : 1;

		for (int i = 0; i < n; i++) {
			struct rn_block b;

			if (rn_block_claim(c, st.prefix, node, &l, p, &b, &e))
				return fail(&e);
			print_block(&b);
			fflush(stdout);
		}
	} else if (!strcmp(verb, "claim-cost") && argc > 4) {
		long long q0, k0, q1, k1;
		struct rn_block b;
		char s[RN_ADDR_STRLEN];
		struct rn_addr a;

		rn_etcd_counts(c, &q0, &k0);
		if (rn_block_claim(c, st.prefix, node, &l, pool_named(argv[4]), &b, &e))
			return fail(&e);
		rn_etcd_counts(c, &q1, &k1);
		rn_addr_from_u128(&a, b.family, b.base);
		printf("%s %s/%u %lld %lld\n", b.pool, rn_addr_format(&a, s), b.len, q1 - q0,
		       k1 - k0);
	} else if (!strcmp(verb, "list")) {
		struct rn_block *b;
		int n = rn_block_list(c, st.prefix, node, &l, argc > 4 ? argv[4] : NULL, &b, &e);

		if (n < 0)
			return fail(&e);
		for (int i = 0; i < n; i++)
			print_block(&b[i]);
		free(b);
	} else if ((!strcmp(verb, "owned") || !strcmp(verb, "release")) && argc > 5) {
		struct rn_block b;

		parse_block(argv[4], argv[5], &b);
		r = rn_block_owned(c, st.prefix, node, &l, &b, &e);
		if (r > 0 && !strcmp(verb, "release"))
			r = rn_block_release(c, st.prefix, &b, &e);
		if (r < 0)
			return fail(&e);
		return r ? 0 : 1;
	} else if (!strcmp(verb, "revoke")) {
		if (rn_block_lease_revoke(c, &l, &e))
			return fail(&e);
	} else if (!strcmp(verb, "hold")) {
		printf("held %llx\n", (unsigned long long)l.id);
		fflush(stdout);
		for (;;) {
			sleep((unsigned int)(l.ttl_s / 3 > 0 ? l.ttl_s / 3 : 1));
			r = rn_block_lease_keepalive(c, &l, &e);
			if (r == -ENOENT)
				return fail(&e);
		}
	} else {
		fprintf(stderr, "ipam_blocks: unknown verb or missing argument: %s\n", verb);
		return 2;
	}
	rn_etcd_close(c);
	rn_ipam_config_pools_free(pools, n_pools);
	rn_config_free(&cfg);
	return 0;
}
