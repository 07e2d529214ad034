// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The config's "rdma" section (netns mode, the RDMA shared device
 * plugin's selectors, the sysfs root) through the whole config parser,
 * with the error each bad value gets; selector matching and its
 * explanations on the ConnectX-5 fixture; GID text and types. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "rdma/gid.h"
#include "rdma/rdma_config.h"
#include "rdma/roots.h"
#include "selftests/fixtures/fixtures.h"

static void expect_error(const char *rdma_json, const char *needle)
{
	char text[2048];
	struct rn_config c;
	struct rn_error e = { 0 };

	snprintf(text, sizeof(text), "{\"rdma\": %s}", rdma_json);
	if (!rn_config_parse(&c, text, &e)) {
		rn_config_free(&c);
		fail_msg("accepted: %s", rdma_json);
	}
	if (!strstr(e.msg, needle))
		fail_msg("error for %s\n  is: %s\n  wanted it to mention: %s", rdma_json, e.msg,
			 needle);
	assert_int_equal(e.code, -EINVAL);
}

static void test_defaults(void **state)
{
	struct rn_rdma_config rc;
	struct rn_config c;
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(rn_config_parse(&c, "{}", &e), 0);
	rn_rdma_config_get(&c, &rc);
	assert_int_equal(rc.netns_mode, RN_NETNS_SHARED);
	assert_false(rc.netns_mode_given);
	assert_true(rn_selectors_empty(&rc.selectors));
	assert_string_equal(rc.sysfs_root, "");
	rn_config_free(&c);
}

static void test_full_section(void **state)
{
	const char *text =
		"{\"rdma\": {\"netns_mode\": \"exclusive\", \"sysfs_root\": \"/host/sys\","
		" \"selectors\": {\"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\", \"1018\"],"
		" \"drivers\": [\"mlx5_core\"], \"ifNames\": [\"ens1f0np0\"],"
		" \"linkTypes\": [\"ether\"]}}}";
	struct rn_rdma_config rc;
	struct rn_rdma_roots roots;
	struct rn_config c;
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(rn_config_parse(&c, text, &e), 0);
	rn_rdma_config_get(&c, &rc);
	assert_int_equal(rc.netns_mode, RN_NETNS_EXCLUSIVE);
	assert_true(rc.netns_mode_given);
	assert_string_equal(rc.sysfs_root, "/host/sys");
	assert_int_equal(rc.selectors.n_vendors, 1);
	assert_int_equal(rc.selectors.n_device_ids, 2);
	assert_string_equal(rc.selectors.device_ids[1], "1018");
	assert_string_equal(rc.selectors.drivers[0], "mlx5_core");
	assert_string_equal(rc.selectors.if_names[0], "ens1f0np0");
	assert_string_equal(rc.selectors.link_types[0], "ether");
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_config_roots(&c, &roots);
	assert_string_equal(roots.sys, "/host/sys");
	assert_string_equal(roots.etc, "/host/etc");
	rn_config_free(&c);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[]", "rdma: expected an object");
	expect_error("{\"netns\": \"shared\"}", "unknown key \"netns\"");
	expect_error("{\"netns_mode\": \"private\"}",
		     "netns_mode: expected one of exclusive|shared");
	expect_error("{\"netns_mode\": 1}", "netns_mode");
	expect_error("{\"sysfs_root\": \"sys\"}", "sysfs_root: must be an absolute path");
	expect_error("{\"sysfs_root\": 7}", "sysfs_root: expected a string");
	expect_error("{\"selectors\": []}", "selectors: expected an object");
	expect_error("{\"selectors\": {\"vendor\": [\"15b3\"]}}", "unknown key \"vendor\"");
	expect_error("{\"selectors\": {\"vendors\": \"15b3\"}}", "vendors: expected an array");
	expect_error("{\"selectors\": {\"vendors\": [\"15B3\"]}}",
		     "vendors[0]: \"15B3\": expected 4 lowercase hex digits");
	expect_error("{\"selectors\": {\"vendors\": [\"0x15b3\"]}}", "vendors[0]");
	expect_error("{\"selectors\": {\"deviceIDs\": [\"1017\", \"101\"]}}",
		     "deviceIDs[1]: \"101\"");
	expect_error("{\"selectors\": {\"deviceIDs\": [1017]}}", "deviceIDs[0]: expected a string");
	expect_error("{\"selectors\": {\"linkTypes\": [\"ethernet\"]}}",
		     "linkTypes[0]: \"ethernet\": expected ether or infiniband");
	expect_error("{\"selectors\": {\"ifNames\": [\"a-very-long-interface-name\"]}}",
		     "ifNames[0]: longer than 15 characters");
	expect_error("{\"selectors\": {\"drivers\": [\"\"]}}",
		     "drivers[0]: \"\" is not a valid name");
	expect_error("{\"selectors\": {\"ifNames\": [\"a/b\"]}}", "is not a valid name");
}

static void load_cx5(struct rn_rdma_model *m)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, rn_fixture_sys("cx5"));
	assert_int_equal(rn_rdma_model_load(m, &roots, RN_RDMA_SRC_SYSFS, &e), 0);
}

static void sel(struct rn_rdma_selectors *s, const char *json)
{
	json_t *j = json_loads(json, 0, NULL);
	struct rn_error e = { 0 };

	assert_non_null(j);
	if (rn_selectors_parse(j, s, "sel", &e))
		fail_msg("%s: %s", json, e.msg);
	json_decref(j);
}

static int matching(const struct rn_rdma_model *m, const struct rn_rdma_selectors *s)
{
	int n = 0;

	for (int i = 0; i < m->n_devs; i++)
		n += rn_selectors_match(s, &m->devs[i]);
	return n;
}

static void test_selector_matching(void **state)
{
	struct rn_rdma_selectors s;
	struct rn_rdma_model m;
	char why[256];

	(void)state;
	load_cx5(&m);
	sel(&s, "{}");
	assert_int_equal(matching(&m, &s), 4);
	sel(&s, "{\"vendors\": [\"15b3\"]}");
	assert_int_equal(matching(&m, &s), 4);
	/* AND across lists, OR within one */
	sel(&s, "{\"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"]}");
	assert_int_equal(matching(&m, &s), 2);
	sel(&s, "{\"deviceIDs\": [\"1017\", \"1018\"]}");
	assert_int_equal(matching(&m, &s), 4);
	sel(&s, "{\"deviceIDs\": [\"101d\"]}");
	assert_int_equal(matching(&m, &s), 0);
	sel(&s, "{\"ifNames\": [\"ens1f1np1\"]}");
	assert_int_equal(matching(&m, &s), 1);
	assert_true(rn_selectors_match(&s, rn_rdma_find_dev(&m, "mlx5_1")));
	sel(&s, "{\"drivers\": [\"mlx5_core\"], \"linkTypes\": [\"ether\"]}");
	assert_int_equal(matching(&m, &s), 4);
	sel(&s, "{\"linkTypes\": [\"infiniband\"]}");
	assert_int_equal(matching(&m, &s), 0);

	sel(&s, "{\"vendors\": [\"8086\"], \"deviceIDs\": [\"101d\", \"101f\"]}");
	rn_selectors_explain(&s, &m.devs[0], why, sizeof(why));
	assert_string_equal(why, "vendor 15b3 not in [8086], deviceID 1017 not in [101d 101f]");
	rn_rdma_model_free(&m);
}

static void test_gid_text(void **state)
{
	uint8_t raw[16], back[16];
	char buf[RN_GID_STRLEN], abuf[RN_ADDR_STRLEN];
	enum rn_gid_type t;
	struct rn_addr a;

	(void)state;
	assert_int_equal(rn_gid_parse("0000:0000:0000:0000:0000:ffff:ac10:0b15", raw), 0);
	rn_gid_format(raw, buf);
	assert_string_equal(buf, "0000:0000:0000:0000:0000:ffff:ac10:0b15");
	rn_gid_addr(raw, RN_GID_TYPE_ROCE_V2, &a);
	assert_string_equal(rn_addr_format(&a, abuf), "172.16.11.21");
	rn_gid_from_addr(&a, back);
	assert_memory_equal(raw, back, 16);
	/* the IPv6 form works too */
	assert_int_equal(rn_gid_parse("fe80::ee0d:9aff:fe78:6fa2", raw), 0);
	rn_gid_format(raw, buf);
	assert_string_equal(buf, "fe80:0000:0000:0000:ee0d:9aff:fe78:6fa2");
	rn_gid_addr(raw, RN_GID_TYPE_IB, &a);
	assert_int_equal(a.family, 0);
	memset(raw, 0, sizeof(raw));
	assert_true(rn_gid_is_zero(raw));
	rn_gid_addr(raw, RN_GID_TYPE_ROCE_V2, &a);
	assert_int_equal(a.family, 0);

	assert_int_equal(rn_gid_parse("", raw), -EINVAL);
	assert_int_equal(rn_gid_parse("0000:0000", raw), -EINVAL);
	assert_int_equal(rn_gid_parse("0000:0000:0000:0000:0000:ffff:ac10:0b15:0000", raw),
			 -EINVAL);
	assert_int_equal(rn_gid_parse("zzzz:0000:0000:0000:0000:ffff:ac10:0b15", raw), -EINVAL);

	assert_int_equal(rn_gid_type_parse("RoCE v2", true, &t), 0);
	assert_int_equal(t, RN_GID_TYPE_ROCE_V2);
	assert_int_equal(rn_gid_type_parse("IB/RoCE v1", true, &t), 0);
	assert_int_equal(t, RN_GID_TYPE_ROCE_V1);
	assert_int_equal(rn_gid_type_parse("IB/RoCE v1", false, &t), 0);
	assert_int_equal(t, RN_GID_TYPE_IB);
	assert_int_equal(rn_gid_type_parse("RoCE v3", true, &t), -EINVAL);
	assert_string_equal(rn_gid_type_names[RN_GID_TYPE_ROCE_V2], "RoCE v2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_full_section),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_selector_matching),
		cmocka_unit_test(test_gid_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
