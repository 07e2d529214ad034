// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Allocator semantics through the public API (ipam.h): idempotency,
 * round-robin order, release, exhaustion, all-or-nothing dual stack, /31
 * and /32, IPv6, exclusions and gateway, GC (node-scoped), affinity, pool
 * management, read-only handles, pools added by another handle.
 *
 * Runs on the SQLite store in a temporary directory; with
 * RN_IPAM_TEST_ETCD=URL[,URL...] it runs the same cases on etcd instead
 * (selftests/ipam/test_ipam_etcd.sh does that against a real cluster),
 * each case under its own key prefix. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "ipam/ipam.h"

struct fixture {
	char dir[64];
	char section[1400];
	char text[8192];
	struct rn_config cfg;
	struct rn_ipam *ipam;
};

static const char *etcd_endpoints(void)
{
	const char *v = getenv("RN_IPAM_TEST_ETCD");

	return v && v[0] ? v : NULL;
}

/* The ipam section: a fresh SQLite file or a fresh etcd prefix. */
static void ipam_section(struct fixture *f, char *out, size_t size)
{
	static int serial;
	const char *eps = etcd_endpoints();

	if (!eps) {
		snprintf(out, size, "{\"path\":\"%s/ipam.db\"}", f->dir);
		return;
	}
	char list[1024] = "", *copy = strdup(eps), *save = NULL;

	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t used = strlen(list);

		snprintf(list + used, sizeof(list) - used, "%s\"%s\"", used ? "," : "", t);
	}
	free(copy);
	snprintf(out, size, "{\"store\":\"etcd\",\"endpoints\":[%s],\"prefix\":\"/rn-test-%d-%d\","
		 "\"timeout_s\":10}", list, getpid(), ++serial);
}

/* (Re)opens with these pools in the config; keeps the same store. */
static void open_with(struct fixture *f, const char *pools)
{
	struct rn_error e = { 0 };

	rn_ipam_close(f->ipam);
	f->ipam = NULL;
	rn_config_free(&f->cfg);
	if (!f->section[0])
		ipam_section(f, f->section, sizeof(f->section));
	snprintf(f->text, sizeof(f->text), "{\"node\":\"n1\",\"ipam\":%s,\"pools\":[%s]}",
		 f->section, pools);
	if (rn_config_parse(&f->cfg, f->text, &e))
		fail_msg("config %s: %s", f->text, e.msg);
	if (rn_ipam_open(&f->ipam, &f->cfg, &e))
		fail_msg("open: %s", e.msg);
}

/* A second handle on the fixture's store (another process, in effect). */
static struct rn_ipam *open_other(struct fixture *f, struct rn_config *cfg)
{
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;

	if (rn_config_parse(cfg, f->text, &e))
		fail_msg("config %s: %s", f->text, e.msg);
	if (rn_ipam_open(&ipam, cfg, &e))
		fail_msg("open: %s", e.msg);
	return ipam;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/rn-ipam-unit-%d-XXXXXX", getpid());
	if (!mkdtemp(f->dir))
		return -1;
	rn_config_defaults(&f->cfg);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	rn_ipam_close(f->ipam);
	rn_config_free(&f->cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", f->dir);
	free(f);
	return 0;
}

/* Allocates for (cid, ifname) from the named pools (v4 and v6 lists
 * separated by "|"); returns the error and the addresses as text. */
static int alloc(struct fixture *f, const char *cid, const char *ifname, const char *v4,
		 const char *v6, char out[2][RN_PREFIX_STRLEN], struct rn_error *e)
{
	const char *l4[4] = { 0 }, *l6[4] = { 0 };
	char b4[256] = "", b6[256] = "", *save;
	struct rn_ipam_request req = { .container_id = cid, .ifname = ifname,
				       .pod_namespace = "ns", .pod_name = cid,
				       .ipv4_pools = l4, .ipv6_pools = l6 };
	struct rn_ipam_result res;
	int err;

	snprintf(b4, sizeof(b4), "%s", v4 ? v4 : "");
	snprintf(b6, sizeof(b6), "%s", v6 ? v6 : "");
	for (char *t = strtok_r(b4, ",", &save); t; t = strtok_r(NULL, ",", &save))
		l4[req.n_ipv4_pools++] = t;
	for (char *t = strtok_r(b6, ",", &save); t; t = strtok_r(NULL, ",", &save))
		l6[req.n_ipv6_pools++] = t;
	memset(e, 0, sizeof(*e));
	err = rn_ipam_allocate(f->ipam, &req, &res, e);
	if (out) {
		out[0][0] = out[1][0] = '\0';
		for (unsigned int i = 0; !err && i < res.n; i++)
			rn_prefix_format(&res.addrs[i].address, out[i]);
	}
	return err;
}

/* Allocates one IPv4 address and returns it (fails the test on error). */
static const char *alloc4(struct fixture *f, const char *cid, const char *pool)
{
	static char out[2][RN_PREFIX_STRLEN];
	struct rn_error e;

	if (alloc(f, cid, "net1", pool, NULL, out, &e))
		fail_msg("allocate %s from %s: %s", cid, pool, e.msg);
	return out[0];
}

static int release(struct fixture *f, const char *cid)
{
	struct rn_error e = { 0 };
	int n = rn_ipam_release(f->ipam, cid, "net1", &e);

	if (n < 0)
		fail_msg("release %s: %s", cid, e.msg);
	return n;
}

static void expect_consistent(struct fixture *f)
{
	char report[4096];
	struct rn_error e = { 0 };
	int problems = rn_ipam_check(f->ipam, report, sizeof(report), &e);

	if (problems)
		fail_msg("check: %d (%s): %s", problems, e.msg, report);
}

static void test_idempotent(void **state)
{
	struct fixture *f = *state;
	char a[2][RN_PREFIX_STRLEN], b[2][RN_PREFIX_STRLEN];
	struct rn_error e;

	open_with(f, "{\"name\":\"p\",\"subnet\":\"10.9.0.0/24\"}");
	assert_int_equal(alloc(f, "c1", "net1", "p", NULL, a, &e), 0);
	assert_int_equal(alloc(f, "c1", "net1", "p", NULL, b, &e), 0);
	assert_string_equal(a[0], b[0]);
	assert_string_equal(a[0], "10.9.0.1/24");
	/* another interface of the same container is another owner */
	assert_int_equal(alloc(f, "c1", "net2", "p", NULL, b, &e), 0);
	assert_string_not_equal(a[0], b[0]);
	/* a new handle (another CNI process) sees the same */
	open_with(f, "{\"name\":\"p\",\"subnet\":\"10.9.0.0/24\"}");
	assert_int_equal(alloc(f, "c1", "net1", "p", NULL, b, &e), 0);
	assert_string_equal(a[0], b[0]);
	expect_consistent(f);
}

/* A pool added through another handle after this one loaded its pools:
 * the request names a known pool first and the new one second, so
 * resolving the second reloads the pool list while the plan already
 * points at the first. */
static void test_pool_added_elsewhere(void **state)
{
	struct fixture *f = *state;
	struct rn_config cfg2;
	struct rn_ipam *other;
	struct rn_error e = { 0 };
	struct rn_pool p;

	open_with(f, "{\"name\":\"a\",\"subnet\":\"10.9.16.0/24\"}");
	other = open_other(f, &cfg2);
	assert_int_equal(rn_pool_from_text(&p, "{\"name\":\"b\",\"subnet\":\"10.9.17.0/24\"}",
					   "t", &e), 0);
	assert_int_equal(rn_ipam_pool_add(other, &p, &e), 0);
	rn_pool_free(&p);
	rn_ipam_close(other);
	rn_config_free(&cfg2);
	/* "a" has room, so it serves the request */
	assert_string_equal(alloc4(f, "c1", "a,b"), "10.9.16.1/24");
	assert_string_equal(alloc4(f, "c2", "b,a"), "10.9.17.1/24");
	expect_consistent(f);
}

static void test_round_robin(void **state)
{
	struct fixture *f = *state;

	open_with(f, "{\"name\":\"rr\",\"subnet\":\"10.9.1.0/29\"}");	/* .1 - .6 */
	assert_string_equal(alloc4(f, "a", "rr"), "10.9.1.1/29");
	assert_string_equal(alloc4(f, "b", "rr"), "10.9.1.2/29");
	assert_string_equal(alloc4(f, "c", "rr"), "10.9.1.3/29");
	assert_int_equal(release(f, "b"), 1);
	/* .2 was just released: not reused while others are free */
	assert_string_equal(alloc4(f, "d", "rr"), "10.9.1.4/29");
	assert_string_equal(alloc4(f, "e", "rr"), "10.9.1.5/29");
	assert_int_equal(release(f, "a"), 1);
	assert_string_equal(alloc4(f, "g", "rr"), "10.9.1.6/29");
	/* wrapped: the oldest release first */
	assert_string_equal(alloc4(f, "h", "rr"), "10.9.1.1/29");
	assert_string_equal(alloc4(f, "i", "rr"), "10.9.1.2/29");
	expect_consistent(f);
}

static void test_release(void **state)
{
	struct fixture *f = *state;
	struct rn_ipam_allocation held[4];
	struct rn_error e = { 0 };
	struct rn_addr addr;

	open_with(f, "{\"name\":\"p\",\"subnet\":\"10.9.2.0/24\"}");
	alloc4(f, "c1", "p");
	assert_int_equal(release(f, "c1"), 1);
	assert_int_equal(release(f, "c1"), 0);		/* idempotent */
	assert_int_equal(release(f, "never"), 0);
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "c1", "net1", held, 4, &e), 0);
	rn_addr_parse("10.9.2.1", &addr);
	assert_int_equal(rn_ipam_lookup_ip(f->ipam, &addr, held, 4, &e), 0);
	/* release by address */
	alloc4(f, "c2", "p");
	rn_addr_parse("10.9.2.2", &addr);
	assert_int_equal(rn_ipam_lookup_ip(f->ipam, &addr, held, 4, &e), 1);
	assert_string_equal(held[0].container_id, "c2");
	assert_string_equal(held[0].pod_namespace, "ns");
	assert_string_equal(held[0].node, "n1");
	assert_int_equal(rn_ipam_release_ip(f->ipam, "p", &addr, &e), 1);
	assert_int_equal(rn_ipam_release_ip(f->ipam, "p", &addr, &e), 0);
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "c2", "net1", held, 4, &e), 0);
	assert_int_equal(rn_ipam_release(f->ipam, "", "net1", &e), -EINVAL);
	expect_consistent(f);
}

static void test_exhaustion(void **state)
{
	struct fixture *f = *state;
	char out[2][RN_PREFIX_STRLEN];
	struct rn_error e;

	open_with(f, "{\"name\":\"small\",\"subnet\":\"10.9.3.0/30\"},"
		  "{\"name\":\"spill\",\"subnet\":\"10.9.4.0/30\"}");
	alloc4(f, "a", "small");
	alloc4(f, "b", "small");
	assert_int_equal(alloc(f, "c", "net1", "small", NULL, out, &e), -ENOSPC);
	assert_non_null(strstr(e.msg, "no free IPv4 address"));
	/* the next pool in the list takes over */
	assert_string_equal(alloc4(f, "c", "small,spill"), "10.9.4.1/30");
	assert_int_equal(release(f, "a"), 1);
	assert_string_equal(alloc4(f, "d", "small,spill"), "10.9.3.1/30");
}

static void test_dual_stack(void **state)
{
	struct fixture *f = *state;
	char out[2][RN_PREFIX_STRLEN];
	struct rn_ipam_allocation held[4];
	struct rn_ipam_result res;
	struct rn_error e;

	open_with(f, "{\"name\":\"v4\",\"subnet\":\"10.9.5.0/31\"},"
		  "{\"name\":\"v6\",\"subnet\":\"fd00:9::/120\",\"gateway\":\"fd00:9::1\"}");
	assert_int_equal(alloc(f, "a", "net1", "v4", "v6", out, &e), 0);
	assert_string_equal(out[0], "10.9.5.0/31");
	assert_string_equal(out[1], "fd00:9::2/120");
	assert_int_equal(alloc(f, "b", "net1", "v4", NULL, out, &e), 0);
	assert_string_equal(out[0], "10.9.5.1/31");
	/* v4 is full: no v6 either */
	assert_int_equal(alloc(f, "c", "net1", "v4", "v6", out, &e), -ENOSPC);
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "c", "net1", held, 4, &e), 0);
	/* an owner holding v4 asks for both: its v4 plus a new v6 */
	assert_int_equal(alloc(f, "b", "net1", "v4", "v6", out, &e), 0);
	assert_string_equal(out[0], "10.9.5.1/31");
	assert_string_equal(out[1], "fd00:9::3/120");
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "b", "net1", held, 4, &e), 2);
	assert_int_equal(rn_ipam_held(f->ipam, "b", "net1", &res, &e), 0);
	assert_int_equal(res.n, 2);
	assert_string_equal(rn_prefix_format(&res.addrs[0].address, out[0]), "10.9.5.1/31");
	assert_string_equal(rn_prefix_format(&res.addrs[1].address, out[1]), "fd00:9::3/120");
	assert_true(res.addrs[1].has_gateway);
	assert_int_equal(release(f, "b"), 2);
	assert_int_equal(rn_ipam_held(f->ipam, "b", "net1", &res, &e), 0);
	assert_int_equal(res.n, 0);
	expect_consistent(f);
}

static void test_edges(void **state)
{
	struct fixture *f = *state;
	char out[2][RN_PREFIX_STRLEN];
	struct rn_error e;

	open_with(f, "{\"name\":\"p31\",\"subnet\":\"10.9.6.0/31\"},"
		  "{\"name\":\"p32\",\"subnet\":\"10.9.7.9/32\"},"
		  "{\"name\":\"p128\",\"subnet\":\"fd00:9:1::7/128\"}");
	assert_string_equal(alloc4(f, "a", "p31"), "10.9.6.0/31");
	assert_string_equal(alloc4(f, "b", "p31"), "10.9.6.1/31");
	assert_int_equal(alloc(f, "c", "net1", "p31", NULL, out, &e), -ENOSPC);
	assert_string_equal(alloc4(f, "c", "p32"), "10.9.7.9/32");
	assert_int_equal(alloc(f, "d", "net1", "p32", NULL, out, &e), -ENOSPC);
	assert_int_equal(alloc(f, "d", "net1", NULL, "p128", out, &e), 0);
	assert_string_equal(out[0], "fd00:9:1::7/128");
	assert_int_equal(alloc(f, "e", "net1", NULL, "p128", out, &e), -ENOSPC);
}

static void test_ipv6_excludes_gateway(void **state)
{
	struct fixture *f = *state;
	char out[2][RN_PREFIX_STRLEN], seen[16][RN_PREFIX_STRLEN], cid[16];
	struct rn_error e;
	int n = 0;

	open_with(f, "{\"name\":\"v6\",\"subnet\":\"fd00:9:2::/64\",\"ips\":[\"fd00:9:2::1-"
		  "fd00:9:2::8\"],\"exclude\":[\"fd00:9:2::3\",\"fd00:9:2::5-fd00:9:2::6\"],"
		  "\"gateway\":\"fd00:9:2::1\",\"routes\":[{\"dst\":\"fd00::/16\",\"gw\":"
		  "\"fd00:9:2::1\"}],\"vlan\":42}");
	for (;;) {
		snprintf(cid, sizeof(cid), "c%d", n);
		if (alloc(f, cid, "net1", NULL, "v6", out, &e))
			break;
		snprintf(seen[n++], sizeof(seen[0]), "%s", out[0]);
	}
	assert_int_equal(e.code, -ENOSPC);
	assert_int_equal(n, 4);
	assert_string_equal(seen[0], "fd00:9:2::2/64");
	assert_string_equal(seen[1], "fd00:9:2::4/64");
	assert_string_equal(seen[2], "fd00:9:2::7/64");
	assert_string_equal(seen[3], "fd00:9:2::8/64");
}

static void test_result_fields(void **state)
{
	struct fixture *f = *state;
	const char *l4[] = { "r" };
	struct rn_ipam_request req = { .container_id = "x", .ifname = "net1",
				       .ipv4_pools = l4, .n_ipv4_pools = 1 };
	struct rn_ipam_result res;
	struct rn_error e = { 0 };
	char a[RN_ADDR_STRLEN];

	open_with(f, "{\"name\":\"r\",\"subnet\":\"10.9.8.0/24\",\"gateway\":\"10.9.8.254\","
		  "\"routes\":[{\"dst\":\"10.0.0.0/8\",\"gw\":\"10.9.8.254\"},{\"dst\":"
		  "\"192.168.0.0/16\"}],\"vlan\":7}");
	assert_int_equal(rn_ipam_allocate(f->ipam, &req, &res, &e), 0);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.addrs[0].address.len, 24);
	assert_true(res.addrs[0].has_gateway);
	assert_string_equal(rn_addr_format(&res.addrs[0].gateway, a), "10.9.8.254");
	assert_int_equal(res.addrs[0].n_routes, 2);
	assert_true(res.addrs[0].routes[0].has_gw);
	assert_false(res.addrs[0].routes[1].has_gw);
	assert_int_equal(res.addrs[0].vlan, 7);
	assert_string_equal(res.addrs[0].pool, "r");
}

static void test_gc(void **state)
{
	struct fixture *f = *state;
	struct rn_ipam_owner valid[] = { { "c2", "net1" }, { "c4", "net1" }, { "zz", "net9" } };
	struct rn_ipam_allocation *all;
	struct rn_error e = { 0 };
	char cid[8];
	int n;

	open_with(f, "{\"name\":\"g\",\"subnet\":\"10.9.9.0/24\"}");
	for (int i = 1; i <= 5; i++) {
		snprintf(cid, sizeof(cid), "c%d", i);
		alloc4(f, cid, "g");
	}
	assert_int_equal(rn_ipam_gc(f->ipam, valid, 3, true, &e), 3);	/* dry run */
	assert_int_equal(rn_ipam_allocations(f->ipam, "g", &all, &e), 5);
	free(all);
	assert_int_equal(rn_ipam_gc(f->ipam, valid, 3, false, &e), 3);
	n = rn_ipam_allocations(f->ipam, "g", &all, &e);
	assert_int_equal(n, 2);
	assert_string_equal(all[0].container_id, "c2");
	assert_string_equal(all[1].container_id, "c4");
	free(all);
	assert_int_equal(rn_ipam_gc(f->ipam, valid, 3, false, &e), 0);	/* idempotent */
	assert_int_equal(rn_ipam_gc(f->ipam, NULL, 0, false, &e), 2);	/* nothing valid */
	expect_consistent(f);
}

/* Allocates for cid through another handle whose config names node. */
static void alloc4_on_node(struct fixture *f, const char *node, const char *cid,
			   const char *pool)
{
	static const char head[] = "{\"node\":\"n1\",";	/* open_with()'s */
	struct fixture other = *f;
	struct rn_config cfg;

	assert_memory_equal(f->text, head, sizeof(head) - 1);
	snprintf(other.text, sizeof(other.text), "{\"node\":\"%s\",%s", node,
		 f->text + sizeof(head) - 1);
	other.ipam = open_other(&other, &cfg);
	alloc4(&other, cid, pool);
	rn_ipam_close(other.ipam);
	rn_config_free(&cfg);
}

/* Two nodes share one store (etcd, in a cluster): a node's GC knows only
 * its own attachments, so it must leave other nodes' allocations alone. */
static void test_gc_node_scope(void **state)
{
	struct fixture *f = *state;
	const struct rn_ipam_gc_scope n2 = { .node = "n2" }, every = { .all_nodes = true };
	const struct rn_ipam_owner keep_b1[] = { { "b1", "net1" } };
	struct rn_ipam_allocation *all, held[2];
	struct rn_error e = { 0 };
	int n;

	open_with(f, "{\"name\":\"g\",\"subnet\":\"10.9.18.0/24\"}");
	alloc4(f, "a1", "g");
	alloc4_on_node(f, "n2", "b1", "g");
	alloc4_on_node(f, "n2", "b2", "g");
	assert_int_equal(rn_ipam_gc(f->ipam, NULL, 0, true, &e), 1);
	assert_int_equal(rn_ipam_gc(f->ipam, NULL, 0, false, &e), 1);
	n = rn_ipam_allocations(f->ipam, "g", &all, &e);
	assert_int_equal(n, 2);
	assert_string_equal(all[0].container_id, "b1");
	assert_string_equal(all[0].node, "n2");
	assert_string_equal(all[1].container_id, "b2");
	free(all);
	/* n2's GC, run from here by naming the node */
	assert_int_equal(rn_ipam_gc_scoped(f->ipam, &n2, keep_b1, 1, false, &e), 1);
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "b1", "net1", held, 2, &e), 1);
	/* the whole store, when the operator means it */
	alloc4(f, "a2", "g");
	assert_int_equal(rn_ipam_gc_scoped(f->ipam, &every, keep_b1, 1, true, &e), 1);
	assert_int_equal(rn_ipam_gc_scoped(f->ipam, &every, NULL, 0, false, &e), 2);
	assert_int_equal(rn_ipam_allocations(f->ipam, "g", &all, &e), 0);
	free(all);
	expect_consistent(f);
}

/* A read-only handle on the fixture's store, with these pools in its config. */
static int open_readonly_with(struct fixture *f, const char *pools, struct rn_config *cfg,
			      struct rn_ipam **ipam, struct rn_error *e)
{
	char text[sizeof(f->text)];

	if (!f->section[0])
		ipam_section(f, f->section, sizeof(f->section));
	snprintf(text, sizeof(text), "{\"node\":\"n1\",\"ipam\":%s,\"pools\":[%s]}",
		 f->section, pools);
	if (rn_config_parse(cfg, text, e))
		fail_msg("config %s: %s", text, e->msg);
	memset(e, 0, sizeof(*e));
	return rn_ipam_open_readonly(ipam, cfg, e);
}

/* Reads (listings, lookups, metrics) create and write nothing. */
static void test_read_only(void **state)
{
	static const char p_def[] = "{\"name\":\"p\",\"subnet\":\"10.9.19.0/24\"}";
	static const char q_def[] = "{\"name\":\"q\",\"subnet\":\"10.9.20.0/24\"}";
	const char *l4[] = { "p" };
	struct rn_ipam_request req = { .container_id = "r", .ifname = "net1",
				       .ipv4_pools = l4, .n_ipv4_pools = 1 };
	struct fixture *f = *state;
	struct rn_ipam_pool_info *pools, info;
	struct rn_ipam_result res;
	struct rn_error e = { 0 };
	struct rn_config cfg;
	struct rn_ipam *ro;
	char both[256], path[128];
	int n;

	if (!etcd_endpoints()) {
		snprintf(path, sizeof(path), "%s/ipam.db", f->dir);
		assert_int_equal(open_readonly_with(f, p_def, &cfg, &ro, &e), -ENOENT);
		assert_non_null(strstr(e.msg, "no IPAM store yet"));
		assert_int_equal(access(path, F_OK), -1);	/* nothing created */
		rn_config_free(&cfg);
	}
	open_with(f, p_def);
	alloc4(f, "a", "p");
	snprintf(both, sizeof(both), "%s,%s", p_def, q_def);
	assert_int_equal(open_readonly_with(f, both, &cfg, &ro, &e), 0);
	n = rn_ipam_pool_list(ro, &pools, &e);
	assert_int_equal(n, 1);			/* q is not written */
	assert_string_equal(pools[0].pool.name, "p");
	assert_int_equal(pools[0].allocated, 1);
	rn_ipam_pools_free(pools, n);
	assert_int_equal(rn_ipam_pool_get(ro, "q", &info, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "in the config but not in the store yet"));
	assert_int_equal(rn_ipam_allocate(ro, &req, &res, &e), -EROFS);
	assert_int_equal(rn_ipam_release(ro, "a", "net1", &e), -EROFS);
	assert_int_equal(rn_ipam_gc(ro, NULL, 0, true, &e), 1);	/* a dry run reads */
	assert_int_equal(rn_ipam_gc(ro, NULL, 0, false, &e), -EROFS);
	assert_int_equal(rn_ipam_sync(ro, &e), -EROFS);
	rn_ipam_close(ro);
	rn_config_free(&cfg);
	/* the writer's view: still only p, still allocated */
	n = rn_ipam_pool_list(f->ipam, &pools, &e);
	assert_int_equal(n, 1);
	assert_int_equal(pools[0].allocated, 1);
	rn_ipam_pools_free(pools, n);
	/* a writer with both adds q on open, and a sync counts it */
	open_with(f, both);
	assert_int_equal(rn_ipam_sync(f->ipam, &e), 1);
	assert_int_equal(rn_ipam_sync(f->ipam, &e), 0);
	expect_consistent(f);
}

static void test_affinity(void **state)
{
	struct fixture *f = *state;
	const char *l4[] = { "rail1", "rail2" };
	struct rn_ipam_request req = { .container_id = "x", .ifname = "net1",
				       .ipv4_pools = l4, .n_ipv4_pools = 2 };
	struct rn_ipam_result res;
	struct rn_error e = { 0 };

	open_with(f, "{\"name\":\"rail1\",\"subnet\":\"10.9.10.0/24\",\"masters\":[\"eth1\"],"
		  "\"nodes\":[\"n1\"]},{\"name\":\"rail2\",\"subnet\":\"10.9.11.0/24\","
		  "\"masters\":[\"eth2\"]}");
	req.master = "eth2";
	assert_int_equal(rn_ipam_allocate(f->ipam, &req, &res, &e), 0);
	assert_string_equal(res.addrs[0].pool, "rail2");
	req.container_id = "y";
	req.master = "eth1";
	req.node = "n2";
	assert_int_equal(rn_ipam_allocate(f->ipam, &req, &res, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "serves master \"eth1\" on node \"n2\""));
	req.node = NULL;	/* the config's node: n1 */
	assert_int_equal(rn_ipam_allocate(f->ipam, &req, &res, &e), 0);
	assert_string_equal(res.addrs[0].pool, "rail1");
	req.master = "eth3";
	req.container_id = "z";
	assert_int_equal(rn_ipam_allocate(f->ipam, &req, &res, &e), -EINVAL);
}

static void test_bad_requests(void **state)
{
	struct fixture *f = *state;
	char out[2][RN_PREFIX_STRLEN];
	char longid[300];
	struct rn_error e;

	open_with(f, "{\"name\":\"p\",\"subnet\":\"10.9.12.0/24\"},"
		  "{\"name\":\"p6\",\"subnet\":\"fd00:9:3::/64\"}");
	assert_int_equal(alloc(f, "c", "net1", "nope", NULL, out, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "pool \"nope\" not found"));
	assert_int_equal(alloc(f, "c", "net1", "p6", NULL, out, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "listed under ipv4"));
	assert_int_equal(alloc(f, "", "net1", "p", NULL, out, &e), -EINVAL);
	assert_int_equal(alloc(f, "c", "", "p", NULL, out, &e), -EINVAL);
	assert_int_equal(alloc(f, "c", "averyveryverylongifname", "p", NULL, out, &e), -EINVAL);
	memset(longid, 'x', sizeof(longid) - 1);
	longid[sizeof(longid) - 1] = '\0';
	assert_int_equal(alloc(f, longid, "net1", "p", NULL, out, &e), -EINVAL);
	assert_int_equal(alloc(f, "c", "net1", NULL, NULL, out, &e), -EINVAL);
	/* nothing was allocated by any of them */
	expect_consistent(f);
	assert_string_equal(alloc4(f, "ok", "p"), "10.9.12.1/24");
}

static void test_pool_management(void **state)
{
	struct fixture *f = *state;
	struct rn_ipam_pool_info *pools, info;
	struct rn_ipam_allocation held[2];
	struct rn_error e = { 0 };
	struct rn_pool p;
	int n;

	open_with(f, "{\"name\":\"cfg\",\"subnet\":\"10.9.13.0/24\",\"masters\":[\"eth1\"]}");
	assert_int_equal(rn_pool_from_text(&p, "{\"name\":\"cli\",\"subnet\":\"10.9.13.128/25\","
					   "\"masters\":[\"eth1\"]}", "t", &e), 0);
	assert_int_equal(rn_ipam_pool_add(f->ipam, &p, &e), -EINVAL);	/* overlap */
	assert_non_null(strstr(e.msg, "overlaps pool \"cfg\""));
	rn_pool_free(&p);
	assert_int_equal(rn_pool_from_text(&p, "{\"name\":\"cli\",\"subnet\":\"10.9.13.128/25\","
					   "\"masters\":[\"eth2\"]}", "t", &e), 0);
	assert_int_equal(rn_ipam_pool_add(f->ipam, &p, &e), 0);
	assert_int_equal(rn_ipam_pool_add(f->ipam, &p, &e), -EEXIST);
	rn_pool_free(&p);
	alloc4(f, "a", "cli");
	alloc4(f, "b", "cli");
	assert_int_equal(rn_ipam_pool_get(f->ipam, "cli", &info, &e), 0);
	assert_int_equal(info.allocated, 2);
	assert_int_equal(info.total, 126);
	assert_false(info.from_config);
	rn_pool_free(&info.pool);
	assert_int_equal(rn_ipam_pool_del(f->ipam, "cli", false, &e), -EBUSY);
	assert_non_null(strstr(e.msg, "still holds 2 addresses"));
	assert_int_equal(rn_ipam_pool_del(f->ipam, "cli", true, &e), 2);
	assert_int_equal(rn_ipam_lookup_owner(f->ipam, "a", "net1", held, 2, &e), 0);
	assert_int_equal(rn_ipam_pool_del(f->ipam, "cli", false, &e), -ENOENT);
	n = rn_ipam_pool_list(f->ipam, &pools, &e);
	assert_int_equal(n, 1);
	assert_string_equal(pools[0].pool.name, "cfg");
	assert_true(pools[0].from_config);
	rn_ipam_pools_free(pools, n);
	expect_consistent(f);
}

static void test_sync(void **state)
{
	struct fixture *f = *state;
	struct rn_ipam_pool_info info;
	struct rn_error e = { 0 };

	open_with(f, "{\"name\":\"s\",\"subnet\":\"10.9.14.0/29\"}");
	alloc4(f, "a", "s");
	/* the config changes: open alone keeps the stored definition ... */
	open_with(f, "{\"name\":\"s\",\"subnet\":\"10.9.14.0/28\"}");
	assert_int_equal(rn_ipam_pool_get(f->ipam, "s", &info, &e), 0);
	assert_int_equal(info.total, 6);
	rn_pool_free(&info.pool);
	/* ... a sync replaces it; allocations stay */
	assert_int_equal(rn_ipam_sync(f->ipam, &e), 1);
	assert_int_equal(rn_ipam_sync(f->ipam, &e), 0);
	assert_int_equal(rn_ipam_pool_get(f->ipam, "s", &info, &e), 0);
	assert_int_equal(info.total, 14);
	assert_int_equal(info.allocated, 1);
	rn_pool_free(&info.pool);
	/* a pool dropped from the config stays in the store */
	open_with(f, "{\"name\":\"t\",\"subnet\":\"10.9.15.0/29\"}");
	assert_int_equal(rn_ipam_pool_get(f->ipam, "s", &info, &e), 0);
	rn_pool_free(&info.pool);
	expect_consistent(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_idempotent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_added_elsewhere, setup, teardown),
		cmocka_unit_test_setup_teardown(test_round_robin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exhaustion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dual_stack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv6_excludes_gateway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gc_node_scope, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_affinity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pool_management, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync, setup, teardown),
	};

	/* freed memory is overwritten at once, so a read through a stale
	 * pointer (a use after free) gives wrong results here, not only
	 * under valgrind (selftests/ipam/test_ipam_valgrind.sh) */
	mallopt(M_PERTURB, 0xa5);
	return cmocka_run_group_tests_name(etcd_endpoints() ? "ipam allocator (etcd)" :
					   "ipam allocator (sqlite)", tests, NULL, NULL);
}
