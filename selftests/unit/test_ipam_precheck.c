// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Pre-checked addresses (ipam/precheck_table.h, ipam/alloc_pick.h): the
 * table's round trip, what a reader refuses to trust (another boot, a cut
 * or garbled file, an entry past the max age or from the future), the
 * plugin's markers, and the allocator taking a preferred address first
 * only when it is usable and free (SQLite store). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "ipam/alloc_pick.h"
#include "ipam/ipam.h"
#include "ipam/precheck_table.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rn-precheck-unit-%d-XXXXXX", getpid());
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) ? -1 : 0;
}

static struct rn_precheck_entry entry(const char *pool, const char *master, const char *addr,
				      int64_t at)
{
	struct rn_precheck_entry x = { .checked_ms = at };

	snprintf(x.pool, sizeof(x.pool), "%s", pool);
	snprintf(x.master, sizeof(x.master), "%s", master);
	assert_int_equal(rn_addr_parse(addr, &x.addr), 0);
	return x;
}

static void write_file(const char *name, const char *text)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_round_trip(void **state)
{
	int64_t now = rn_precheck_now_ms();
	struct rn_precheck_entry e[3] = {
		entry("rail0", "ens1", "10.0.0.5", now - 100),
		entry("rail0-v6", "ens1", "fd00::5", now - 100),
		entry("rail0", "ens1", "10.0.0.6", now - 40000),	/* past the max age */
	};
	struct rn_precheck_table t = { .max_age_ms = 30000, .n = 3, .e = e }, r;
	struct rn_addr a;
	struct rn_error err = { 0 };

	(void)state;
	assert_int_equal(rn_precheck_save(dir, &t, &err), 0);
	assert_int_equal(rn_precheck_load(dir, &r, &err), 0);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.max_age_ms, 30000);
	assert_int_equal(r.e[1].checked_ms, now - 100);
	rn_addr_parse("10.0.0.5", &a);
	assert_non_null(rn_precheck_find(&r, "rail0", "ens1", &a, now));
	assert_null(rn_precheck_find(&r, "rail0", "ens2", &a, now));	/* another master */
	assert_null(rn_precheck_find(&r, "rail1", "ens1", &a, now));
	rn_addr_parse("fd00::5", &a);
	assert_non_null(rn_precheck_find(&r, "rail0-v6", "ens1", &a, now));
	rn_addr_parse("10.0.0.6", &a);
	assert_null(rn_precheck_find(&r, "rail0", "ens1", &a, now));	/* too old */
	/* a check "in the future" is no check */
	assert_false(rn_precheck_fresh(&r, &r.e[0], now - 200));
	rn_precheck_free(&r);
}

static void test_untrusted_tables(void **state)
{
	char text[512], boot[64] = "";
	struct rn_precheck_table r;
	FILE *b = fopen("/proc/sys/kernel/random/boot_id", "r");

	(void)state;
	assert_non_null(b);
	assert_int_equal(fscanf(b, "%63s", boot), 1);
	fclose(b);
	/* no file */
	assert_int_equal(rn_precheck_load(dir, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	/* another boot */
	write_file(RN_PRECHECK_FILE, "rdmanet-precheck 1 00000000-0000-0000-0000-000000000000 "
		   "30000\nrail0 ens1 10.0.0.5 1\n");
	assert_int_equal(rn_precheck_load(dir, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	rn_precheck_free(&r);
	/* a garbled entry: nothing of the file is trusted */
	snprintf(text, sizeof(text), "rdmanet-precheck 1 %s 30000\nrail0 ens1 10.0.0.5 1\n"
		 "rail0 ens1 10.0.0.6\n", boot);
	write_file(RN_PRECHECK_FILE, text);
	assert_int_equal(rn_precheck_load(dir, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	rn_precheck_free(&r);
	/* cut in the header */
	write_file(RN_PRECHECK_FILE, "rdmanet-prech");
	assert_int_equal(rn_precheck_load(dir, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	rn_precheck_free(&r);
	/* a good one, for contrast */
	snprintf(text, sizeof(text), "rdmanet-precheck 1 %s 30000\nrail0 ens1 10.0.0.5 1\n", boot);
	write_file(RN_PRECHECK_FILE, text);
	assert_int_equal(rn_precheck_load(dir, &r, NULL), 0);
	assert_int_equal(r.n, 1);
	rn_precheck_free(&r);
}

static void test_wants(void **state)
{
	struct rn_precheck_want w[4];
	struct rn_error e = { 0 };
	int64_t before;

	(void)state;
	assert_int_equal(rn_precheck_wants(dir, w, 4), 0);
	assert_int_equal(rn_precheck_wants_changed(dir), 0);
	assert_int_equal(rn_precheck_want(dir, "rail.0", "ens1f0", &e), 0);
	assert_int_equal(rn_precheck_want(dir, "rail.0", "ens1f0", &e), 0);	/* idempotent */
	before = rn_precheck_wants_changed(dir);
	assert_true(before != 0);
	assert_int_equal(rn_precheck_wants(dir, w, 4), 1);
	assert_string_equal(w[0].pool, "rail.0");
	assert_string_equal(w[0].master, "ens1f0");
	rn_precheck_unwant(dir, &w[0]);
	assert_int_equal(rn_precheck_wants(dir, w, 4), 0);
}

/* the allocator: a preferred address first, if usable and free */
static void test_prefer(void **state)
{
	char text[512];
	struct rn_config cfg;
	struct rn_ipam *ipam;
	struct rn_error e = { 0 };
	const char *pools[] = { "p4" };
	struct rn_ipam_request req = { .ifname = "net1", .ipv4_pools = pools, .n_ipv4_pools = 1 };
	struct rn_ipam_result res;
	struct rn_alloc_prefer pref[3];
	struct rn_addr a;
	char got[RN_ADDR_STRLEN];
	const char *want[] = { "10.9.0.10", "10.9.0.15", "10.9.0.16", "10.9.0.17" };
	const char *cids[] = { "c0", "c1", "c2", "c3" };

	(void)state;
	snprintf(text, sizeof(text), "{\"node\":\"n1\",\"ipam\":{\"path\":\"%s/ipam.db\"},"
		 "\"pools\":[{\"name\":\"p4\",\"subnet\":\"10.9.0.0/24\","
		 "\"ips\":[\"10.9.0.10-10.9.0.20\"],\"exclude\":[\"10.9.0.12\"]}]}", dir);
	assert_int_equal(rn_config_parse(&cfg, text, &e), 0);
	assert_int_equal(rn_ipam_open(&ipam, &cfg, &e), 0);
	for (int i = 0; i < 4; i++) {
		unsigned int n = 0;

		/* c1: .15 preferred; c2: .10 (allocated), .12 (excluded), .16;
		 * c3: .15 (allocated by now) only, so the round-robin after .16 */
		if (i == 1) {
			rn_addr_parse("10.9.0.15", &a);
			pref[n++] = (struct rn_alloc_prefer){ "p4", rn_addr_to_u128(&a) };
		} else if (i == 2) {
			rn_addr_parse("10.9.0.10", &a);
			pref[n++] = (struct rn_alloc_prefer){ "p4", rn_addr_to_u128(&a) };
			rn_addr_parse("10.9.0.12", &a);
			pref[n++] = (struct rn_alloc_prefer){ "p4", rn_addr_to_u128(&a) };
			rn_addr_parse("10.9.0.16", &a);
			pref[n++] = (struct rn_alloc_prefer){ "p4", rn_addr_to_u128(&a) };
		} else if (i == 3) {
			rn_addr_parse("10.9.0.15", &a);
			pref[n++] = (struct rn_alloc_prefer){ "p4", rn_addr_to_u128(&a) };
		}
		rn_alloc_prefer_set(pref, n);
		req.container_id = cids[i];
		assert_int_equal(rn_ipam_allocate(ipam, &req, &res, &e), 0);
		rn_addr_format(&res.addrs[0].address.addr, got);
		assert_string_equal(got, want[i]);
	}
	/* another pool's preference is not this one's */
	rn_addr_parse("10.9.0.20", &a);
	pref[0] = (struct rn_alloc_prefer){ "other", rn_addr_to_u128(&a) };
	rn_alloc_prefer_set(pref, 1);
	req.container_id = "c4";
	assert_int_equal(rn_ipam_allocate(ipam, &req, &res, &e), 0);
	rn_addr_format(&res.addrs[0].address.addr, got);
	assert_string_equal(got, "10.9.0.18");
	rn_alloc_prefer_set(NULL, 0);
	rn_ipam_close(ipam);
	rn_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untrusted_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wants, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefer, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
