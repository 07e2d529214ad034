// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The node config: defaults, every key, and errors that name the key and
 * leave the defaults in place. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"

static void expect_error(const char *text, const char *needle)
{
	struct rn_error e = { 0 };
	struct rn_config c;

	if (!rn_config_parse(&c, text, &e)) {
		rn_config_free(&c);
		fail_msg("accepted: %s", text);
	}
	if (!strstr(e.msg, needle))
		fail_msg("error for %s\n  is: %s\n  wanted it to mention: %s", text, e.msg, needle);
	/* a rejected config leaves the defaults */
	assert_int_equal(c.n_masters, 0);
	assert_int_equal(c.qos.roce_dscp, RN_DEFAULT_ROCE_DSCP);
	assert_null(c.root);
}

static void test_defaults(void **state)
{
	struct rn_error e = { 0 };
	struct rn_config c;

	(void)state;
	assert_int_equal(rn_config_parse(&c, "{}", &e), 0);
	assert_int_equal(c.n_masters, 0);
	assert_int_equal(c.default_policy, RN_POLICY_MONITOR);
	assert_int_equal(c.qos.roce_dscp, 26);
	assert_int_equal(c.qos.cnp_dscp, 48);
	assert_int_equal(c.qos.ecn, RN_ECN_ECT0);
	assert_string_equal(c.bpf.pin_dir, RN_DEFAULT_PIN_DIR);
	assert_int_equal(c.bpf.max_pods, 2048);
	assert_string_equal(c.textfile.dir, RN_DEFAULT_TEXTFILE_DIR);
	assert_int_equal(c.textfile.interval_s, 15);
	assert_true(c.node[0] != '\0');
	rn_config_free(&c);
}

static void test_every_key(void **state)
{
	struct rn_error e = { 0 };
	struct rn_config c;
	const char *text =
		"{\"node\": \"worker-7\", \"default_policy\": \"enforce\","
		" \"masters\": [ {\"ifname\": \"ens6f0np0\", \"policy\": \"off\", \"xdp_mode\": \"skb\","
		"                 \"tc_mode\": \"clsact\"},"
		"                {\"ifname\": \"ens6f1np1\"} ],"
		" \"qos\": {\"roce_dscp\": 24, \"cnp_dscp\": 46, \"ecn\": \"ect1\"},"
		" \"textfile\": {\"dir\": \"/tmp/tf\", \"interval_s\": 0},"
		" \"bpf\": {\"pin_dir\": \"/sys/fs/bpf/x\", \"max_pods\": 64}}";

	(void)state;
	assert_int_equal(rn_config_parse(&c, text, &e), 0);
	assert_string_equal(c.node, "worker-7");
	assert_int_equal(c.n_masters, 2);
	assert_string_equal(c.masters[0].ifname, "ens6f0np0");
	assert_int_equal(c.masters[0].policy, RN_POLICY_OFF);
	assert_int_equal(c.masters[0].xdp_mode, RN_XDP_MODE_SKB);
	assert_int_equal(c.masters[0].tc_mode, RN_TC_MODE_CLSACT);
	/* a master without a policy takes default_policy, wherever it is written */
	assert_int_equal(c.masters[1].policy, RN_POLICY_ENFORCE);
	assert_int_equal(c.masters[1].xdp_mode, RN_XDP_MODE_AUTO);
	assert_int_equal(c.qos.roce_dscp, 24);
	assert_int_equal(c.qos.cnp_dscp, 46);
	assert_int_equal(c.qos.ecn, RN_ECN_ECT1);
	assert_string_equal(c.textfile.dir, "/tmp/tf");
	assert_int_equal(c.textfile.interval_s, 0);
	assert_string_equal(c.bpf.pin_dir, "/sys/fs/bpf/x");
	assert_int_equal(c.bpf.max_pods, 64);
	assert_non_null(rn_config_master(&c, "ens6f1np1"));
	assert_null(rn_config_master(&c, "eth0"));
	rn_config_free(&c);
}

static void test_errors_name_the_key(void **state)
{
	(void)state;
	expect_error("[]", "expected a JSON object");
	expect_error("{\"nodes\": \"x\"}", "config: unknown key \"nodes\"");
	expect_error("{\"masters\": [{\"ifname\": \"a\", \"polcy\": \"off\"}]}",
		     "masters[0]: unknown key \"polcy\"");
	expect_error("{\"masters\": [{\"policy\": \"off\"}]}", "masters[0].ifname: required");
	expect_error("{\"masters\": [{\"ifname\": \"a\"}, {\"ifname\": \"a\"}]}",
		     "masters[1].ifname: \"a\" listed twice");
	expect_error("{\"masters\": [{\"ifname\": \"a\", \"policy\": \"strict\"}]}",
		     "masters[0].policy: expected one of off|monitor|enforce");
	expect_error("{\"masters\": [{\"ifname\": \"a\", \"xdp_mode\": \"hw\"}]}",
		     "xdp_mode: expected one of auto|native|skb|off");
	expect_error("{\"masters\": [{\"ifname\": \"a\", \"tc_mode\": 1}]}",
		     "tc_mode: expected one of auto|tcx|clsact");
	expect_error("{\"masters\": [{\"ifname\": \"a-name-longer-than-15\"}]}",
		     "masters[0].ifname: longer than 15 characters");
	expect_error("{\"masters\": {}}", "config.masters: expected an array, got an object");
	expect_error("{\"qos\": {\"roce_dscp\": 64}}", "qos.roce_dscp: 64 is outside 0..63");
	expect_error("{\"qos\": {\"cnp_dscp\": -1}}", "qos.cnp_dscp: -1 is outside 0..63");
	expect_error("{\"qos\": {\"roce_dscp\": \"26\"}}", "qos.roce_dscp: expected an integer, got a string");
	expect_error("{\"qos\": {\"ecn\": \"ce\"}}", "qos.ecn: expected one of off|ect0|ect1");
	expect_error("{\"textfile\": {\"interval_s\": 100000}}", "textfile.interval_s");
	expect_error("{\"bpf\": {\"pin_dir\": \"relative\"}}", "bpf.pin_dir: must be an absolute path");
	expect_error("{\"bpf\": {\"max_pods\": 1}}", "bpf.max_pods: 1 is outside 16..65536");
	expect_error("{\"default_policy\": \"drop\"}", "default_policy: expected one of");
	expect_error("{\"node\": \"a\", \"node\": \"b\"}", "duplicate object key");
	expect_error("{\"masters\": [", "line 1 column");
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/rn-config-XXXXXX";
	struct rn_error e = { 0 };
	struct rn_config c;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	(void)state;
	fputs("{\"qos\": {\"roce_dscp\": 10}}\n", f);
	fclose(f);
	assert_int_equal(rn_config_load(&c, path, &e), 0);
	assert_int_equal(c.qos.roce_dscp, 10);
	rn_config_free(&c);
	unlink(path);
	assert_int_equal(rn_config_load(&c, path, &e), -ENOENT);
	assert_non_null(strstr(e.msg, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_errors_name_the_key),
		cmocka_unit_test(test_load_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
