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
#include <unistd.h>
#include <cmocka.h>

#include "devplugin/deviceplugin_v1beta1.pb-c.h"
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

/* protobuf-c's own size of the list a view gives kubelet (as list_and_watch.c builds it) */
static size_t packed_size(const struct rn_dp_view *v)
{
	V1beta1__ListAndWatchResponse out = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
	V1beta1__Device *devs = calloc((size_t)v->n_units + 1, sizeof(*devs));
	V1beta1__Device **devp = calloc((size_t)v->n_units + 1, sizeof(*devp));
	V1beta1__TopologyInfo *topo = calloc((size_t)v->n_units + 1, sizeof(*topo));
	V1beta1__NUMANode nodes[64], *nodep[64];
	size_t n_nodes = 0, size;

	for (int b = 0; b < 64; b++) {
		v1beta1__numanode__init(&nodes[b]);
		nodes[b].id = b;
	}
	for (int i = 0; i < v->n_units; i++) {
		uint64_t numa = rn_dp_unit_numa(v, &v->units[i]);

		v1beta1__device__init(&devs[i]);
		devs[i].id = v->units[i].id;
		devs[i].health = rn_dp_unit_healthy(v, &v->units[i]) ? "Healthy" : "Unhealthy";
		if (numa) {
			n_nodes = 0;	/* one node set for every unit of these views */
			for (int b = 0; b < 64; b++)
				if (numa >> b & 1)
					nodep[n_nodes++] = &nodes[b];
			v1beta1__topology_info__init(&topo[i]);
			topo[i].n_nodes = n_nodes;
			topo[i].nodes = nodep;
			devs[i].topology = &topo[i];
		}
		devp[i] = &devs[i];
	}
	out.n_devices = (size_t)v->n_units;
	out.devices = devp;
	size = protobuf_c_message_get_packed_size(&out.base);
	free(devs);
	free(devp);
	free(topo);
	return size;
}

/* a shared view of n units over HCAs on the given NUMA nodes, healthy or not */
static void shared_view(struct rn_dp_view *v, int n, const int *numa, int n_hcas, bool healthy)
{
	memset(v, 0, sizeof(*v));
	v->n_hcas = n_hcas;
	for (int h = 0; h < n_hcas; h++) {
		v->hcas[h].numa = numa[h];
		v->hcas[h].healthy = healthy;
	}
	v->units = calloc((size_t)n, sizeof(*v->units));
	v->n_units = n;
	for (int i = 0; i < n; i++) {
		snprintf(v->units[i].id, sizeof(v->units[i].id), "shared-%d", i);
		v->units[i].hcas = (1ull << n_hcas) - 1;
	}
}

static void test_list_size(void **state)
{
	const int one[] = { -1 }, two[] = { 0, 1 }, far[] = { 3, 63 };
	struct rn_dp_view v;
	int fit;

	(void)state;
	/* the computed size is protobuf's, health, NUMA node 0 (left out as
	 * the default) and others, IDs of every length up to 6 digits */
	shared_view(&v, 1000, one, 1, true);
	assert_int_equal(rn_dp_list_bytes(&v, &fit), packed_size(&v));
	assert_int_equal(fit, 1000);
	rn_dp_view_free(&v);
	shared_view(&v, 1000, two, 2, false);
	assert_int_equal(rn_dp_list_bytes(&v, &fit), packed_size(&v));
	rn_dp_view_free(&v);
	shared_view(&v, 150000, far, 2, true);
	assert_int_equal(rn_dp_list_bytes(&v, &fit), packed_size(&v));
	/* 150,000 devices on two NUMA nodes: more than 4 MiB */
	assert_true(rn_dp_list_bytes(&v, &fit) > RN_DP_KUBELET_MSG_MAX);
	assert_true(fit > 100000 && fit < 150000);
	v.n_units = fit;
	assert_true(packed_size(&v) <= RN_DP_KUBELET_MSG_MAX);
	v.n_units = fit + 1;
	assert_true(packed_size(&v) > RN_DP_KUBELET_MSG_MAX);
	v.n_units = 150000;
	rn_dp_view_free(&v);
}

static void test_hca_max_limit(void **state)
{
	json_error_t jerr;
	json_t *j = json_loads("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": "
			       "200000, \"devices\": [\"x\"]}]}", 0, &jerr);
	struct rn_error e = { 0 };
	long long most = rn_dp_shared_units_fit(200000);
	struct rn_dp_view v;
	char want[160];

	(void)state;
	/* the most that fit at best: one more does not */
	shared_view(&v, (int)most + 1, (const int[]){ -1 }, 1, true);
	assert_true(rn_dp_list_bytes(&v, &(int){ 0 }) > RN_DP_KUBELET_MSG_MAX);
	v.n_units = (int)most;
	assert_true(rn_dp_list_bytes(&v, &(int){ 0 }) <= RN_DP_KUBELET_MSG_MAX);
	v.n_units = (int)most + 1;
	rn_dp_view_free(&v);
	assert_int_equal(rn_dp_shared_units_fit(100000), 100000);

	assert_int_equal(rn_dp_config_parse(j, &dc, &e), -EINVAL);
	snprintf(want, sizeof(want), "rdmaHcaMax: 200000 devices do not fit in one ListAndWatch "
		 "message (kubelet takes at most 4194304 bytes): at most %lld", most);
	assert_non_null(strstr(e.msg, want));
	json_decref(j);
	parse_ok("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": 100000, "
		 "\"devices\": [\"x\"]}]}");
}

/* CDI's AnnotationKey rule for the part after "cdi.k8s.io/" */
static bool cdi_name_ok(const char *key)
{
	const char *n = key + strlen("cdi.k8s.io/");
	size_t len = strlen(n);

	if (strncmp(key, "cdi.k8s.io/", 11) || !len || len > 63)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool alnum = (n[i] >= 'a' && n[i] <= 'z') || (n[i] >= 'A' && n[i] <= 'Z') ||
			     (n[i] >= '0' && n[i] <= '9');

		if (!alnum && (i == 0 || i == len - 1 || !strchr("_.-", n[i])))
			return false;
	}
	return true;
}

static void test_cdi_annotation_key(void **state)
{
	struct rn_dp_resource_config a = { .prefix = "rdma", .name = "hca_shared_devices_a" };
	struct rn_dp_resource_config b = { .prefix = "spidernet.io", .name = "hca_shared_devices_a" };
	char ka[128], kb[128], kl[128], kl2[128];

	(void)state;
	rn_dp_cdi_annotation_key(&a, ka, sizeof(ka));
	assert_string_equal(ka, "cdi.k8s.io/rdmanet_rdma_hca_shared_devices_a");
	/* the same name under two prefixes: two keys */
	rn_dp_cdi_annotation_key(&b, kb, sizeof(kb));
	assert_string_equal(kb, "cdi.k8s.io/rdmanet_spidernet.io_hca_shared_devices_a");
	/* 56 characters and more (the old key's limit was 55): cut, hashed */
	memset(a.name, 'x', 63);
	a.name[63] = '\0';
	memset(b.name, 'x', 63);
	b.name[63] = '\0';
	snprintf(b.prefix, sizeof(b.prefix), "rdma2");
	rn_dp_cdi_annotation_key(&a, kl, sizeof(kl));
	rn_dp_cdi_annotation_key(&b, kl2, sizeof(kl2));
	assert_int_equal(strlen(kl), strlen("cdi.k8s.io/") + 63);
	assert_true(cdi_name_ok(ka) && cdi_name_ok(kb) && cdi_name_ok(kl) && cdi_name_ok(kl2));
	assert_memory_equal(kl, kl2, strlen("cdi.k8s.io/rdmanet_rdma"));
	assert_string_not_equal(kl, kl2);
	/* a name ending in a character CDI refuses at the end is not possible:
	 * kubelet's rule (rn_dp_resource_name_check) ends it alphanumeric */
	snprintf(a.name, sizeof(a.name), "a.b-c_d9");
	rn_dp_cdi_annotation_key(&a, ka, sizeof(ka));
	assert_true(cdi_name_ok(ka));
}

/* CDI requires at least one device: with none the spec is removed */
static void test_cdi_no_devices(void **state)
{
	char dir[] = "/tmp/rn-cdi-XXXXXX", path[128];
	struct rn_rdma_model m = { 0 };
	struct rn_error e = { 0 };
	struct rn_dp_view v = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/rdmanet.io-hca.json", dir);
	f = fopen(path, "w");	/* an earlier run's spec */
	fputs("{}", f);
	fclose(f);
	assert_int_equal(rn_dp_cdi_write(dir, &v, 1, &m, &e), 0);
	assert_int_equal(access(path, F_OK), -1);
	/* and none there: still fine */
	assert_int_equal(rn_dp_cdi_write(dir, &v, 1, &m, &e), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_socket_path_length),
		cmocka_unit_test(test_socket_shared),
		cmocka_unit_test(test_kubelet_dir_length),
		cmocka_unit_test(test_list_size),
		cmocka_unit_test(test_hca_max_limit),
		cmocka_unit_test(test_cdi_annotation_key),
		cmocka_unit_test(test_cdi_no_devices),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
