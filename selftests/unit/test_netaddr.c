// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Small parsers the CLI, the registry and the CNI plugin share: MAC and IP
 * addresses, prefixes; pod specs; Prometheus label escaping. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "netaddr.h"
#include "datapath/datapath.h"
#include "textfile.h"

static void test_mac(void **state)
{
	uint8_t mac[6];
	char buf[RN_MAC_STRLEN];
	const char *bad[] = { "", "02:00:00:00:00", "02:00:00:00:00:0", "02:00:00:00:00:0g",
			      "02-00-00-00-00-01", "02:00:00:00:00:01:", "0200:00:00:00:01",
			      " 02:00:00:00:00:01", NULL };

	(void)state;
	assert_int_equal(rn_mac_parse("0A:58:aB:00:ff:01", mac), 0);
	rn_mac_format(mac, buf);
	assert_string_equal(buf, "0a:58:ab:00:ff:01");
	assert_false(rn_mac_is_zero(mac));
	for (int i = 0; bad[i]; i++)
		if (rn_mac_parse(bad[i], mac) != -EINVAL)
			fail_msg("accepted MAC \"%s\"", bad[i]);
}

static void test_addr_and_prefix(void **state)
{
	struct rn_addr a, b;
	struct rn_prefix p;
	char buf[RN_PREFIX_STRLEN];

	(void)state;
	assert_int_equal(rn_addr_parse("10.0.0.1", &a), 0);
	assert_int_equal(a.family, AF_INET);
	assert_int_equal(rn_addr_len(&a), 4);
	assert_int_equal(rn_addr_parse("fd00::1", &b), 0);
	assert_int_equal(b.family, AF_INET6);
	assert_false(rn_addr_equal(&a, &b));
	assert_int_equal(rn_addr_parse("10.0.0.256", &a), -EINVAL);
	assert_int_equal(rn_addr_parse("10.0.0.1/24", &a), -EINVAL);

	assert_int_equal(rn_prefix_parse("10.1.2.3/24", &p, false), 0);
	assert_int_equal(rn_prefix_parse("10.1.2.3/24", &p, true), -EINVAL);	/* host bits */
	assert_int_equal(rn_prefix_parse("10.1.2.0/24", &p, true), 0);
	assert_string_equal(rn_prefix_format(&p, buf), "10.1.2.0/24");
	rn_addr_parse("10.1.2.200", &a);
	assert_true(rn_prefix_contains(&p, &a));
	rn_addr_parse("10.1.3.1", &a);
	assert_false(rn_prefix_contains(&p, &a));
	assert_int_equal(rn_prefix_parse("fd00:1::/33", &p, true), 0);
	rn_addr_parse("fd00:1:7fff::1", &a);
	assert_true(rn_prefix_contains(&p, &a));
	rn_addr_parse("fd00:1:8000::1", &a);
	assert_false(rn_prefix_contains(&p, &a));
	assert_int_equal(rn_prefix_parse("0.0.0.0/0", &p, true), 0);
	assert_true(rn_prefix_contains(&p, &a) == false);	/* other family */
	assert_int_equal(rn_prefix_parse("10.0.0.0/33", &p, false), -EINVAL);
	assert_int_equal(rn_prefix_parse("10.0.0.0/", &p, false), -EINVAL);
	assert_int_equal(rn_prefix_parse("10.0.0.0/-1", &p, false), -EINVAL);
	assert_int_equal(rn_prefix_parse("10.0.0.0/2x", &p, false), -EINVAL);
	assert_int_equal(rn_prefix_parse("10.0.0.0", &p, false), -EINVAL);
}

static void spec(struct rn_pod_spec *s)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->container_id, "c1");
	strcpy(s->ifname, "net1");
	strcpy(s->master, "roce0");
	rn_mac_parse("02:00:00:00:00:01", s->mac);
	s->dscp = -1;
}

static void test_pod_spec(void **state)
{
	struct rn_pod_spec s;
	struct rn_error e = { 0 };

	(void)state;
	spec(&s);
	assert_int_equal(rn_pod_spec_check(&s, &e), 0);
	s.dscp = 64;
	assert_int_equal(rn_pod_spec_check(&s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "dscp 64 is outside 0..63"));
	spec(&s);
	memset(s.mac, 0, 6);
	assert_int_equal(rn_pod_spec_check(&s, &e), -EINVAL);
	spec(&s);
	for (int i = 0; i < 5; i++) {
		char ip[16];

		snprintf(ip, sizeof(ip), "10.0.0.%d", i + 1);
		rn_addr_parse(ip, &s.ips[s.n_ips++]);
	}
	assert_int_equal(rn_pod_spec_check(&s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "at most 4 IPv4"));
	spec(&s);
	rn_addr_parse("10.0.0.1", &s.ips[0]);
	rn_addr_parse("10.0.0.1", &s.ips[1]);
	s.n_ips = 2;
	assert_int_equal(rn_pod_spec_check(&s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "IP listed twice"));
	spec(&s);
	s.ip_keyed = true;
	assert_int_equal(rn_pod_spec_check(&s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "needs an IP"));
}

static void test_label_escaping(void **state)
{
	const char *labels[] = { "pod", "a\"b\\c\nd", "namespace", "", NULL };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	(void)state;
	rn_metric_family(f, "rdmanet_x_total", "counter", "Help.");
	rn_metric_sample(f, "rdmanet_x_total", labels, 18446744073709551615ull);
	rn_metric_sample(f, "rdmanet_y", NULL, 0);
	fclose(f);
	assert_string_equal(out, "# HELP rdmanet_x_total Help.\n# TYPE rdmanet_x_total counter\n"
				 "rdmanet_x_total{pod=\"a\\\"b\\\\c\\nd\",namespace=\"\"} "
				 "18446744073709551615\nrdmanet_y 0\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mac),
		cmocka_unit_test(test_addr_and_prefix),
		cmocka_unit_test(test_pod_spec),
		cmocka_unit_test(test_label_escaping),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
