// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The config core knows no module: the sections come from the table the
 * node composes (node/config_sections.c). This test links its own table
 * instead, with sections the core has never heard of, as a new module
 * (the DRA driver's) would add one: typed, kept, checked, in order. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"

static int checks_run;
static char order[8];

static int check_demo(const struct rn_config *c, struct rn_error *e)
{
	json_t *d = rn_config_section(c, "demo");

	order[checks_run++] = 'd';
	if (d && json_object_get(d, "bad"))
		return rn_fail(e, -EINVAL, "config: demo.bad: refused by the module");
	/* a check may read the core's keys, parsed before it */
	if (d && json_object_get(d, "needs_dscp_30") && c->qos.roce_dscp != 30)
		return rn_fail(e, -EINVAL, "config: demo: needs qos.roce_dscp 30");
	return 0;
}

static int check_across(const struct rn_config *c, struct rn_error *e)
{
	(void)c;
	(void)e;
	order[checks_run++] = 'x';
	return 0;
}

const struct rn_config_section rn_config_sections[] = {
	{ "demo", JSON_OBJECT, 0, check_demo },
	{ "demo_list", JSON_ARRAY, offsetof(struct rn_config, sriov), NULL },
	{ NULL, 0, 0, check_across },
	{ 0 }
};

static int parse(const char *text, struct rn_config *c, struct rn_error *e)
{
	checks_run = 0;
	memset(order, 0, sizeof(order));
	return rn_config_parse(c, text, e);
}

static void expect_error(const char *text, const char *needle)
{
	struct rn_error e = { 0 };
	struct rn_config c;

	if (!parse(text, &c, &e)) {
		rn_config_free(&c);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(e.msg, needle))
		fail_msg("error for %s\n  is: %s\n  wanted: %s", text, e.msg, needle);
	assert_null(c.root);
	assert_null(c.sriov);
	assert_int_equal(c.qos.roce_dscp, RN_DEFAULT_ROCE_DSCP);
}

static void test_new_section_kept_and_checked(void **state)
{
	struct rn_error e = { 0 };
	struct rn_config c;

	(void)state;
	assert_int_equal(parse("{\"demo\": {\"x\": 1}, \"demo_list\": [1],"
			       " \"qos\": {\"roce_dscp\": 30}}", &c, &e), 0);
	assert_non_null(rn_config_section(&c, "demo"));
	assert_int_equal(json_integer_value(json_object_get(rn_config_section(&c, "demo"),
							     "x")), 1);
	/* a field named in the table is filled too */
	assert_ptr_equal(c.sriov, rn_config_section(&c, "demo_list"));
	assert_null(rn_config_section(&c, "qos_missing"));
	assert_string_equal(order, "dx");
	rn_config_free(&c);

	/* absent sections: the checks still run (defaults are checked too) */
	assert_int_equal(parse("{}", &c, &e), 0);
	assert_null(rn_config_section(&c, "demo"));
	assert_string_equal(order, "dx");
	rn_config_free(&c);
}

static void test_errors_name_the_key(void **state)
{
	(void)state;
	expect_error("{\"demo\": [1]}", "config.demo: expected an object, got an array");
	expect_error("{\"demo_list\": {}}", "config.demo_list: expected an array, got an object");
	expect_error("{\"demo\": {\"bad\": 1}}", "config: demo.bad: refused by the module");
	assert_string_equal(order, "d");	/* the first failing check stops */
	expect_error("{\"demo\": {\"needs_dscp_30\": 1}}", "needs qos.roce_dscp 30");
	/* the core's own keys are still checked first */
	expect_error("{\"demo\": [1], \"qos\": 5}", "config.qos: expected an object");
}

static void test_core_knows_no_module(void **state)
{
	(void)state;
	/* this table has no "ipam": the core itself does not know it */
	expect_error("{\"ipam\": {}}", "config: unknown key \"ipam\"");
	expect_error("{\"dem\": {}}", "config: unknown key \"dem\"");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_section_kept_and_checked),
		cmocka_unit_test(test_errors_name_the_key),
		cmocka_unit_test(test_core_knows_no_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
