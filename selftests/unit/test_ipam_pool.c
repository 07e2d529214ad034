// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pool model: parsing, validation messages, usable sets (IPv4 /31 and
 * /32, IPv6, exclusions, gateway), overlap between pools, and the small
 * codecs the etcd store relies on (base64, key layout, gateway answers). */
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
#include "base64.h"
#include "ipam/etcd_client.h"
#include "ipam/etcd_keys.h"
#include "ipam/ipam_settings.h"
#include "ipam/pool.h"

static int parse(struct rn_pool *p, const char *json, struct rn_error *e)
{
	memset(e, 0, sizeof(*e));
	return rn_pool_from_text(p, json, "pool", e);
}

static void expect_error(const char *json, const char *needle)
{
	struct rn_error e;
	struct rn_pool p;

	if (!parse(&p, json, &e)) {
		rn_pool_free(&p);
		fail_msg("accepted: %s", json);
	}
	if (!strstr(e.msg, needle))
		fail_msg("error for %s\n  is: %s\n  wanted it to mention: %s", json, e.msg, needle);
	assert_int_equal(e.code, -EINVAL);
}

static unsigned long long usable(const char *json)
{
	struct rn_error e;
	struct rn_pool p;
	unsigned long long n;

	if (parse(&p, json, &e))
		fail_msg("%s: %s", json, e.msg);
	n = rn_u128_sat64(p.size);
	rn_pool_free(&p);
	return n;
}

static bool has(const struct rn_pool *p, const char *ip)
{
	struct rn_addr a;

	assert_int_equal(rn_addr_parse(ip, &a), 0);
	return rn_pool_usable(p, &a);
}

static void test_minimal_v4(void **state)
{
	struct rn_error e;
	struct rn_pool p;

	(void)state;
	assert_int_equal(parse(&p, "{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\"}", &e), 0);
	assert_int_equal(rn_pool_family(&p), AF_INET);
	assert_int_equal(rn_u128_sat64(p.size), 254);	/* network and broadcast out */
	assert_false(has(&p, "10.0.0.0"));
	assert_true(has(&p, "10.0.0.1"));
	assert_true(has(&p, "10.0.0.254"));
	assert_false(has(&p, "10.0.0.255"));
	assert_false(has(&p, "10.0.1.1"));
	assert_false(has(&p, "fd00::1"));
	rn_pool_free(&p);
}

static void test_edges_v4(void **state)
{
	(void)state;
	/* RFC 3021: both addresses of a /31; a /32 is its one address */
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.0/31\"}"), 2);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.7/32\"}"), 1);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.0/30\"}"), 2);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.0/20\"}"), 4094);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.0/31\","
				"\"gateway\":\"10.0.0.0\"}"), 1);
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.7/32\",\"gateway\":\"10.0.0.7\"}",
		     "no usable address");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/30\",\"exclude\":[\"10.0.0.1-10.0.0.2\"]}",
		     "no usable address");
	/* explicit ranges that cover network and broadcast still skip them */
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"10.0.0.0/29\","
				"\"ips\":[\"10.0.0.0-10.0.0.7\"]}"), 6);
}

static void test_v6(void **state)
{
	struct rn_error e;
	struct rn_pool p;

	(void)state;
	assert_int_equal(parse(&p, "{\"name\":\"v6\",\"subnet\":\"fd00:1::/64\",\"gateway\":"
			       "\"fd00:1::1\",\"exclude\":[\"fd00:1::2-fd00:1::9\"]}", &e), 0);
	assert_int_equal(rn_pool_family(&p), AF_INET6);
	assert_false(has(&p, "fd00:1::"));	/* subnet-router anycast */
	assert_false(has(&p, "fd00:1::1"));	/* gateway */
	assert_false(has(&p, "fd00:1::5"));
	assert_true(has(&p, "fd00:1::a"));
	assert_true(has(&p, "fd00:1::ffff:ffff:ffff:ffff"));
	assert_true(p.size == ((rn_u128)1 << 64) - 1 - 1 - 8);
	rn_pool_free(&p);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"fd00::/127\"}"), 2);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"fd00::5/128\"}"), 1);
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"fd00::/120\"}"), 255);
	/* /0 saturates instead of wrapping */
	assert_int_equal(usable("{\"name\":\"a\",\"subnet\":\"::/0\"}"), ~0ULL);
}

static void test_ranges_and_excludes(void **state)
{
	struct rn_error e;
	struct rn_pool p;

	(void)state;
	assert_int_equal(parse(&p, "{\"name\":\"r\",\"subnet\":\"172.16.11.0/24\",\"ips\":"
			       "[\"172.16.11.10-172.16.11.20\",\"172.16.11.30\"],\"exclude\":"
			       "[\"172.16.11.12\",\"172.16.11.15-172.16.11.16\"],\"gateway\":"
			       "\"172.16.11.10\"}", &e), 0);
	assert_int_equal(rn_u128_sat64(p.size), 11 + 1 - 1 - 2 - 1);
	assert_false(has(&p, "172.16.11.10"));
	assert_true(has(&p, "172.16.11.11"));
	assert_false(has(&p, "172.16.11.12"));
	assert_false(has(&p, "172.16.11.16"));
	assert_true(has(&p, "172.16.11.17"));
	assert_true(has(&p, "172.16.11.30"));
	assert_false(has(&p, "172.16.11.29"));
	rn_pool_free(&p);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("{\"subnet\":\"10.0.0.0/24\"}", "name: required");
	expect_error("{\"name\":\"a b\",\"subnet\":\"10.0.0.0/24\"}", "only letters");
	expect_error("{\"name\":\"a\"}", "subnet: required");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0\"}", "not a CIDR");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/33\"}", "not a CIDR");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.1/24\"}", "host bits set (did you mean "
		     "10.0.0.0/24?)");
	expect_error("{\"name\":\"a\",\"subnet\":\"fd00::1/64\"}", "did you mean fd00::/64?");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":[\"10.0.0.5-\"]}",
		     "ips[0]: \"10.0.0.5-\" is not an address or a range");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":[\"10.0.1.5\"]}",
		     "ips[0]: \"10.0.1.5\" is outside the subnet");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":[\"10.0.0.9-10.0.0.5\"]}",
		     "first address is after the last");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":[\"fd00::1\"]}",
		     "not an IPv4 address");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":[\"10.0.0.1-10.0.0.9\","
		     "\"10.0.0.5\"]}", "overlaps");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"gateway\":\"10.0.1.1\"}",
		     "gateway: \"10.0.1.1\" is outside the subnet");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"gateway\":\"10.0.0.0\"}",
		     "network address");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"gateway\":\"10.0.0.255\"}",
		     "broadcast address");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"exclude\":[\"10.1.0.0\"]}",
		     "exclude[0]: \"10.1.0.0\" is outside the subnet");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"vlan\":4095}", "vlan");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"routes\":[{\"dst\":"
		     "\"10.2.0.1/16\"}]}", "routes[0].dst");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"routes\":[{\"dst\":"
		     "\"fd00::/8\"}]}", "address family");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"routes\":[{\"dst\":"
		     "\"0.0.0.0/0\",\"via\":\"10.0.0.1\"}]}", "unknown key \"via\"");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"masters\":[\"eth0\",\"eth0\"]}",
		     "listed twice");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"masters\":"
		     "[\"a-very-long-interface-name\"]}", "1 to 15 characters");
	expect_error("{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"color\":\"red\"}",
		     "unknown key \"color\"");
	expect_error("{\"name\":\"a\",\"subnet\":10}", "expected a string");
	expect_error("[]", "expected an object");
}

static void test_roundtrip(void **state)
{
	static const char *const src =
		"{\"name\":\"full\",\"subnet\":\"172.16.11.0/24\",\"ips\":[\"172.16.11.1-172.16.11.200\","
		"\"172.16.11.230\"],\"exclude\":[\"172.16.11.7\"],\"gateway\":\"172.16.11.254\","
		"\"routes\":[{\"dst\":\"172.16.0.0/16\",\"gw\":\"172.16.11.254\"},{\"dst\":"
		"\"10.0.0.0/8\"}],\"vlan\":100,\"masters\":[\"ens6f0np0\"],\"nodes\":[\"w1\",\"w2\"]}";
	struct rn_pool a, b;
	struct rn_error e;
	char *text;

	(void)state;
	assert_int_equal(parse(&a, src, &e), 0);
	text = rn_pool_to_text(&a);
	assert_string_equal(text, src);
	assert_int_equal(parse(&b, text, &e), 0);
	assert_true(rn_pool_equal(&a, &b));
	assert_int_equal(a.vlan, 100);
	assert_int_equal(a.n_routes, 2);
	assert_true(rn_pool_serves_master(&a, "ens6f0np0"));
	assert_false(rn_pool_serves_master(&a, "ens6f1np1"));
	assert_true(rn_pool_serves_master(&a, NULL));
	assert_true(rn_pool_serves_node(&a, "w2"));
	assert_false(rn_pool_serves_node(&a, "w3"));
	free(text);
	rn_pool_free(&b);
	/* canonical: addresses are printed canonically */
	assert_int_equal(parse(&b, "{\"name\":\"c\",\"subnet\":\"FD00:0:0::/64\"}", &e), 0);
	text = rn_pool_to_text(&b);
	assert_string_equal(text, "{\"name\":\"c\",\"subnet\":\"fd00::/64\"}");
	free(text);
	rn_pool_free(&b);
	rn_pool_free(&a);
}

static void test_overlap(void **state)
{
	struct rn_pool a, b, c, d, v6;
	struct rn_error e;

	(void)state;
	assert_int_equal(parse(&a, "{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\",\"ips\":"
			       "[\"10.0.0.1-10.0.0.99\"],\"masters\":[\"eth1\"]}", &e), 0);
	/* same subnet, disjoint range: fine (per-node split of one subnet) */
	assert_int_equal(parse(&b, "{\"name\":\"b\",\"subnet\":\"10.0.0.0/24\",\"ips\":"
			       "[\"10.0.0.100-10.0.0.199\"]}", &e), 0);
	/* overlapping, but on another master */
	assert_int_equal(parse(&c, "{\"name\":\"c\",\"subnet\":\"10.0.0.0/16\","
			       "\"masters\":[\"eth2\"]}", &e), 0);
	/* overlapping, on any master */
	assert_int_equal(parse(&d, "{\"name\":\"d\",\"subnet\":\"10.0.0.64/26\"}", &e), 0);
	assert_int_equal(parse(&v6, "{\"name\":\"v6\",\"subnet\":\"fd00::/64\"}", &e), 0);
	assert_int_equal(rn_pool_check_overlap(&a, &b, &e), 0);
	assert_int_equal(rn_pool_check_overlap(&a, &c, &e), 0);
	assert_int_equal(rn_pool_check_overlap(&a, &v6, &e), 0);
	assert_int_equal(rn_pool_check_overlap(&a, &d, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "pool \"a\" overlaps pool \"d\""));
	assert_non_null(strstr(e.msg, "10.0.0.65"));
	assert_int_equal(rn_pool_check_overlap(&b, &d, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "10.0.0.100"));
	assert_int_equal(rn_pool_check_overlap(&c, &d, &e), -EINVAL);
	rn_pool_free(&a);
	rn_pool_free(&b);
	rn_pool_free(&c);
	rn_pool_free(&d);
	rn_pool_free(&v6);
}

static int config_check(const char *json, struct rn_error *e)
{
	struct rn_config c;
	int err;

	memset(e, 0, sizeof(*e));
	err = rn_config_parse(&c, json, e);
	rn_config_free(&c);
	return err;
}

static void test_config(void **state)
{
	struct rn_ipam_settings st;
	struct rn_config c;
	struct rn_error e;

	(void)state;
	assert_int_equal(config_check("{\"pools\":[{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\"},"
				      "{\"name\":\"b\",\"subnet\":\"10.0.0.128/25\"}]}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "config: pools[1]: pool \"b\" overlaps pool \"a\""));
	assert_int_equal(config_check("{\"pools\":[{\"name\":\"a\",\"subnet\":\"10.0.0.0/24\"},"
				      "{\"name\":\"a\",\"subnet\":\"10.1.0.0/24\"}]}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "\"a\" is also pools[0]"));
	assert_int_equal(config_check("{\"pools\":[{\"name\":\"a\",\"subnet\":\"10.0.0.0/23\"}]}",
				      &e), 0);
	assert_int_equal(config_check("{\"pools\":[{\"name\":\"a\",\"subnet\":\"10.0.0.1/23\"}]}",
				      &e), -EINVAL);
	assert_non_null(strstr(e.msg, "config: pools[0] (\"a\").subnet"));
	assert_int_equal(config_check("{\"ipam\":{\"store\":\"redis\"}}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "config: ipam.store"));
	assert_int_equal(config_check("{\"ipam\":{\"store\":\"etcd\"}}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "endpoints: required"));
	assert_int_equal(config_check("{\"ipam\":{\"store\":\"etcd\",\"endpoints\":"
				      "[\"127.0.0.1:2379\"]}}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "endpoints[0]"));
	assert_int_equal(config_check("{\"ipam\":{\"path\":\"relative.db\"}}", &e), -EINVAL);
	assert_int_equal(config_check("{\"ipam\":{\"timeout_s\":0}}", &e), -EINVAL);
	assert_int_equal(config_check("{\"ipam\":{\"tls\":{\"cert_file\":\"/c\"}}}", &e), -EINVAL);
	assert_int_equal(config_check("{\"ipam\":{\"dbpath\":\"/x\"}}", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown key \"dbpath\""));

	memset(&e, 0, sizeof(e));
	assert_int_equal(rn_config_parse(&c, "{\"ipam\":{\"store\":\"etcd\",\"endpoints\":"
					 "[\"https://e1:2379/\",\"http://e2:2379\"],\"prefix\":\"/x\","
					 "\"timeout_s\":3,\"tls\":{\"ca_file\":\"/ca\"}}}", &e), 0);
	assert_int_equal(rn_ipam_settings_parse(&st, &c, &e), 0);
	assert_int_equal(st.store, RN_IPAM_STORE_ETCD);
	assert_int_equal(st.n_endpoints, 2);
	assert_string_equal(st.endpoints[0], "https://e1:2379");
	assert_string_equal(st.prefix, "/x");
	assert_int_equal(st.timeout_ms, 3000);
	assert_string_equal(st.tls.ca_file, "/ca");
	rn_config_free(&c);
	assert_int_equal(rn_config_parse(&c, "{}", &e), 0);
	assert_int_equal(rn_ipam_settings_parse(&st, &c, &e), 0);
	assert_int_equal(st.store, RN_IPAM_STORE_SQLITE);
	assert_string_equal(st.path, RN_DEFAULT_IPAM_DB);
	assert_int_equal(st.timeout_ms, 5000);
	rn_config_free(&c);
}

static void test_base64(void **state)
{
	static const char *const v[][2] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "foob", "Zm9vYg==" }, { "/rdmanet/ips/a/0a000001", "L3JkbWFuZXQvaXBzL2EvMGEwMDAwMDE=" },
	};
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		char *enc = rn_base64_encode(v[i][0], strlen(v[i][0]));
		char *dec = rn_base64_decode(v[i][1], &len);

		assert_string_equal(enc, v[i][1]);
		assert_non_null(dec);
		assert_int_equal(len, strlen(v[i][0]));
		assert_memory_equal(dec, v[i][0], len);
		free(enc);
		free(dec);
	}
	assert_null(rn_base64_decode("Zm9", &len));
	assert_null(rn_base64_decode("Z=9v", &len));
	assert_null(rn_base64_decode("Zm==Zm9v", &len));
	assert_null(rn_base64_decode("Zm9*", &len));
}

static void test_etcd_keys(void **state)
{
	char key[RN_ETCD_KEY_MAX], pool[RN_POOL_NAME_MAX], buf[RN_ADDR_STRLEN];
	struct rn_addr a, b;

	(void)state;
	rn_addr_parse("10.0.0.1", &a);
	rn_etcd_key_ip(key, "/rdmanet", "rail1", &a);
	assert_string_equal(key, "/rdmanet/ips/rail1/0a000001");
	assert_int_equal(rn_etcd_parse_ip_key(key, "/rdmanet", pool, sizeof(pool), &b), 0);
	assert_string_equal(pool, "rail1");
	assert_true(rn_addr_equal(&a, &b));
	rn_addr_parse("fd00::1:2", &a);
	rn_etcd_key_ip(key, "/p", "v6", &a);
	assert_string_equal(key, "/p/ips/v6/fd000000000000000000000000010002");
	assert_int_equal(rn_etcd_parse_ip_key(key, "/p", pool, sizeof(pool), &b), 0);
	assert_string_equal(rn_addr_format(&b, buf), "fd00::1:2");
	assert_int_equal(rn_etcd_parse_ip_key("/p/ips/v6/xyz", "/p", pool, sizeof(pool), &b),
			 -EINVAL);
	rn_etcd_key_owner(key, "/rdmanet", "abc/../d ef", "net1");
	assert_string_equal(key, "/rdmanet/owners/abc%2F..%2Fd%20ef/net1");
}

static void test_etcd_answers(void **state)
{
	struct rn_etcd_range r, res[2];
	struct rn_error e = { 0 };
	bool ok = true;
	json_t *v;

	(void)state;
	v = json_loads("{\"header\":{\"revision\":\"7\"},\"kvs\":[{\"key\":\"Zm9v\",\"create_revision\":"
		       "\"2\",\"mod_revision\":\"5\",\"value\":\"YmFy\"}],\"count\":\"1\",\"more\":true}",
		       0, NULL);
	assert_int_equal(rn_etcd_parse_range(v, &r, &e), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.kvs[0].key, "foo");
	assert_string_equal(r.kvs[0].value, "bar");
	assert_int_equal(r.kvs[0].mod_revision, 5);
	assert_int_equal(r.revision, 7);
	assert_true(r.more);
	rn_etcd_range_free(&r);
	json_decref(v);
	/* a failed txn has no "succeeded" (protobuf JSON leaves false out) */
	v = json_loads("{\"header\":{\"revision\":\"9\"},\"responses\":[{\"response_range\":"
		       "{\"header\":{\"revision\":\"9\"}}}]}", 0, NULL);
	assert_int_equal(rn_etcd_parse_txn(v, &ok, res, 2, &e), 0);
	assert_false(ok);
	assert_int_equal(res[0].n, 0);
	assert_int_equal(res[0].count, 0);
	json_decref(v);
	v = json_loads("{\"kvs\":[{\"key\":\"!!\"}]}", 0, NULL);
	assert_int_equal(rn_etcd_parse_range(v, &r, &e), -EIO);
	json_decref(v);
	v = json_loads("{\"error\":\"etcdserver: no leader\",\"code\":14}", 0, NULL);
	assert_true(rn_etcd_error_is_transient(v));
	json_decref(v);
	v = json_loads("{\"error\":\"etcdserver: key is not provided\",\"code\":3}", 0, NULL);
	assert_false(rn_etcd_error_is_transient(v));
	json_decref(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_v4),
		cmocka_unit_test(test_edges_v4),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_ranges_and_excludes),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_etcd_keys),
		cmocka_unit_test(test_etcd_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
