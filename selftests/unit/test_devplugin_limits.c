// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin's limits that kubelet, the kernel or CDI set, checked
 * before anything is served: a resource whose socket path a unix socket
 * cannot hold, or that shares its socket with another, is not servable
 * (and only that one); see the fixture tests for the agent's side. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "devplugin/devplugin.h"

static struct rn_dp_config dc;

static void parse_ok(const char *section)
{
	json_error_t jerr;
	json_t *j = json_loads(section, 0, &jerr);
	struct rn_error e = { 0 };

	if (!j)
		fail_msg("bad test JSON: %s: %s", section, jerr.text);
	if (rn_dp_config_parse(j, &dc, &e))
		fail_msg("refused %s: %s", section, e.msg);
	json_decref(j);
}

/* a configList of "<prefix>/<name>" resources, prefix and name made of
 * plen and nlen letters, under kubelet_dir "/k" */
static void resources(int n, const int *plen, const int *nlen)
{
	char text[4096], p[128], nm[128];
	size_t off;

	off = (size_t)snprintf(text, sizeof(text), "{\"kubelet_dir\": \"/k\", \"configList\": [");
	for (int i = 0; i < n; i++) {
		memset(p, 'p', (size_t)plen[i]);
		p[plen[i]] = '\0';
		memset(nm, 'a' + i, (size_t)nlen[i]);
		nm[nlen[i]] = '\0';
		off += (size_t)snprintf(text + off, sizeof(text) - off,
					"%s{\"resourcePrefix\": \"%s\", \"resourceName\": \"%s\", "
					"\"devices\": [\"x\"]}", i ? ", " : "", p, nm);
	}
	snprintf(text + off, sizeof(text) - off, "]}");
	parse_ok(text);
}

static void test_socket_path_length(void **state)
{
	/* "/k/plugins_registry/rdmanet-" + prefix + "-" + name + ".sock":
	 * 34 + prefix + name bytes; a unix socket path holds 107 */
	const int plen[] = { 10, 11, 52 }, nlen[] = { 63, 63, 50 };
	struct rn_error e = { 0 };
	char path[512];

	(void)state;
	resources(3, plen, nlen);
	assert_int_equal(rn_dp_socket_path(&dc, &dc.res[0], true, path, sizeof(path)), 107);
	assert_int_equal(rn_dp_resource_servable(&dc, 0, &e), 0);
	assert_int_equal(rn_dp_resource_servable(&dc, 1, &e), -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "is 108 bytes, longer than a unix socket allows (107)"));
	assert_non_null(strstr(e.msg, "device plugin ppppppppppp/"));
	assert_int_equal(rn_dp_resource_servable(&dc, 2, &e), -ENAMETOOLONG);
	/* the kubelet.sock path is fine: 2 + 28 bytes */
	assert_null(strstr(e.msg, "kubelet.sock"));
	/* the whole config: the first problem and how many more */
	assert_int_equal(rn_dp_config_servable(&dc, &e), -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "(and 1 more resource(s) that cannot be served)"));
	/* device-plugins is shorter than plugins_registry: the watcher's
	 * directory is what must fit, whichever kubelet has now */
	assert_int_equal(rn_dp_socket_path(&dc, &dc.res[1], false, path, sizeof(path)), 106);
}

static void test_socket_shared(void **state)
{
	struct rn_error e = { 0 };

	(void)state;
	/* "a-b"/"c" and "a"/"b-c": both rdmanet-a-b-c.sock */
	parse_ok("{\"configList\": [{\"resourcePrefix\": \"a-b\", \"resourceName\": \"c\", "
		 "\"devices\": [\"x\"]}, {\"resourcePrefix\": \"a\", \"resourceName\": \"b_c\", "
		 "\"devices\": [\"y\"]}, {\"resourcePrefix\": \"a-b\", \"resourceName\": \"d\", "
		 "\"devices\": [\"z\"]}]}");
	assert_int_equal(rn_dp_config_servable(&dc, &e), 0);
	snprintf(dc.res[1].name, sizeof(dc.res[1].name), "b-c");	/* a VF resource may */
	assert_int_equal(rn_dp_resource_servable(&dc, 0, &e), 0);
	assert_int_equal(rn_dp_resource_servable(&dc, 1, &e), -EEXIST);
	assert_non_null(strstr(e.msg, "device plugin a/b-c: its socket rdmanet-a-b-c.sock is "
				      "also a-b/c's"));
	assert_int_equal(rn_dp_resource_servable(&dc, 2, &e), 0);
}

static void test_kubelet_dir_length(void **state)
{
	char text[512], dir[100];
	struct rn_error e = { 0 };

	(void)state;
	/* 80 + "/device-plugins/kubelet.sock" (28) = 108 */
	memset(dir, 'k', 80);
	dir[0] = '/';
	dir[80] = '\0';
	snprintf(text, sizeof(text), "{\"kubelet_dir\": \"%s\", \"configList\": "
		 "[{\"resourceName\": \"a\", \"devices\": [\"x\"]}]}", dir);
	parse_ok(text);
	assert_int_equal(rn_dp_resource_servable(&dc, 0, &e), -ENAMETOOLONG);
	assert_non_null(strstr(e.msg, "/device-plugins/kubelet.sock is longer than a unix "
				      "socket allows"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_path_length),
		cmocka_unit_test(test_socket_shared),
		cmocka_unit_test(test_kubelet_dir_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
