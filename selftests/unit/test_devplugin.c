// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin without gRPC: the "device_plugin" config section (the
 * RDMA shared device plugin's keys, inline or as its config.json), what
 * each selector picks on the ConnectX-5 fixture trees (alone, combined,
 * nothing), the shared plugin's README example configs, Allocate's device
 * specs and its failures, NUMA nodes, health, exclusive netns mode and
 * GetPreferredAllocation. */
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
#include "devplugin/devplugin.h"
#include "rdma/roots.h"
#include "selftests/fixtures/fixtures.h"

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

static void load(struct rn_rdma_model *m, const char *sys)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, sys);
	if (rn_rdma_model_load(m, &roots, RN_RDMA_SRC_SYSFS, &e))
		fail_msg("load %s: %s", sys, e.msg);
}

/* The HCAs resource i of dc selects on a fixture, as "mlx5_0,mlx5_1". */
static const char *picked(const char *fixture, int i, int *units)
{
	static char out[256];
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;
	struct rn_error e = { 0 };
	size_t off = 0;

	load(&m, rn_fixture_sys(fixture));
	if (rn_dp_view_build(&dc.res[i], &m, &v, &e))
		fail_msg("view: %s", e.msg);
	out[0] = '\0';
	for (int h = 0; h < v.n_hcas; h++)
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", h ? "," : "",
					v.hcas[h].name);
	if (units)
		*units = v.n_units;
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	return out;
}

static const char *sel(const char *selectors)
{
	char text[1024];

	snprintf(text, sizeof(text), "{\"configList\": [{\"resourceName\": \"r\", "
		 "\"selectors\": %s}]}", selectors);
	parse_ok(text);
	return picked("cx5_healthy", 0, NULL);
}

static void test_defaults(void **state)
{
	(void)state;
	parse_ok("{}");
	assert_int_equal(dc.n_res, 0);
	assert_string_equal(dc.kubelet_dir, "/var/lib/kubelet");
	assert_string_equal(dc.cdi_dir, "/var/run/cdi");
	assert_false(dc.cdi);
	parse_ok("{\"configList\": [{\"resourceName\": \"hca\", \"devices\": [\"ens1f0np0\"]}]}");
	assert_int_equal(dc.n_res, 1);
	assert_string_equal(dc.res[0].prefix, "rdma");
	assert_int_equal(dc.res[0].hca_max, 1000);
	assert_true(dc.res[0].from_devices);
	assert_int_equal(dc.res[0].selectors.n_if_names, 1);
	assert_int_equal(dc.periodic_s, 60);
}

static void test_selectors_alone(void **state)
{
	(void)state;
	assert_string_equal(sel("{\"vendors\": [\"15b3\"]}"), "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_string_equal(sel("{\"vendors\": [\"8086\"]}"), "");
	assert_string_equal(sel("{\"deviceIDs\": [\"1017\"]}"), "mlx5_0,mlx5_1");
	assert_string_equal(sel("{\"deviceIDs\": [\"1018\"]}"), "mlx5_2,mlx5_3");
	assert_string_equal(sel("{\"drivers\": [\"mlx5_core\"]}"), "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_string_equal(sel("{\"drivers\": [\"ice\"]}"), "");
	assert_string_equal(sel("{\"ifNames\": [\"ens1f0v1\"]}"), "mlx5_3");
	assert_string_equal(sel("{\"ifNames\": [\"ens1f1np1\", \"ens1f0np0\"]}"), "mlx5_0,mlx5_1");
	assert_string_equal(sel("{\"linkTypes\": [\"ether\"]}"), "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_string_equal(sel("{\"linkTypes\": [\"infiniband\"]}"), "");
	/* on the VPI card in IB mode, mlx5_1 is the IB port */
	parse_ok("{\"configList\": [{\"resourceName\": \"ib\", "
		 "\"selectors\": {\"linkTypes\": [\"infiniband\"]}}]}");
	assert_string_equal(picked("ib_port", 0, NULL), "mlx5_1");
}

static void test_selectors_combined(void **state)
{
	int units = -1;

	(void)state;
	assert_string_equal(sel("{\"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"]}"),
			    "mlx5_0,mlx5_1");
	assert_string_equal(sel("{\"deviceIDs\": [\"1017\"], \"ifNames\": [\"ens1f1np1\"]}"),
			    "mlx5_1");
	assert_string_equal(sel("{\"vendors\": [\"15b3\"], \"ifNames\": [\"ens1f0np0\", "
				"\"ens1f0v0\"], \"linkTypes\": [\"ether\"]}"), "mlx5_0,mlx5_2");
	/* ANDed across selectors: a VF's device ID with a PF's netdev */
	assert_string_equal(sel("{\"deviceIDs\": [\"1018\"], \"ifNames\": [\"ens1f0np0\"]}"), "");
	/* nothing matching: an empty list, not an error */
	sel("{\"ifNames\": [\"ens9\"]}");
	assert_string_equal(picked("cx5_healthy", 0, &units), "");
	assert_int_equal(units, 0);
}

/* The shared plugin's README configs, as its users' ConfigMaps have them,
 * through configFile: the resources it would advertise on this host. */
static void test_readme_examples(void **state)
{
	static const char readme[] =
		"{\n"
		"  \"periodicUpdateInterval\": 300,\n"
		"  \"configList\": [{\n"
		"      \"resourceName\": \"hca_shared_devices_a\",\n"
		"      \"rdmaHcaMax\": 1000,\n"
		"      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"],\n"
		"                       \"ifNames\": [\"ens2f0\"] }\n"
		"    },\n"
		"    {\n"
		"      \"resourceName\": \"hca_shared_devices_b\",\n"
		"      \"rdmaHcaMax\": 500,\n"
		"      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"],\n"
		"                       \"ifNames\": [\"ib0\"] }\n"
		"    }\n"
		"  ]\n"
		"}\n";
	static const char legacy[] =
		"{\"configList\": [{\"resourceName\": \"hca_shared_devices_a\", \"rdmaHcaMax\": 1000,"
		" \"devices\": [\"ens1f0np0\", \"ens1f1np1\"]}]}";
	static const char operator_cfg[] =
		"{\"configList\":[{\"resourceName\":\"rdma_shared_device_a\",\"rdmaHcaMax\":63,"
		"\"selectors\":{\"vendors\":[\"15b3\"]}}]}";
	char path[] = "/tmp/rn-dp-readme.XXXXXX", text[512];
	int fd = mkstemp(path), units = -1;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, readme, sizeof(readme) - 1), (ssize_t)sizeof(readme) - 1);
	close(fd);
	snprintf(text, sizeof(text), "{\"configFile\": \"%s\"}", path);
	parse_ok(text);
	unlink(path);
	assert_string_equal(dc.config_file, path);
	assert_int_equal(dc.n_res, 2);
	assert_int_equal(dc.periodic_s, 300);
	assert_string_equal(dc.res[1].name, "hca_shared_devices_b");
	assert_int_equal(dc.res[1].hca_max, 500);
	/* that host had ens2f0 and ib0; this one has neither: both empty */
	assert_string_equal(picked("cx5_healthy", 0, &units), "");
	assert_int_equal(units, 0);
	assert_string_equal(picked("cx5_healthy", 1, NULL), "");

	parse_ok(legacy);
	assert_string_equal(picked("cx5_healthy", 0, &units), "mlx5_0,mlx5_1");
	assert_int_equal(units, 1000);

	parse_ok(operator_cfg);
	assert_string_equal(picked("cx5_healthy", 0, &units), "mlx5_0,mlx5_1,mlx5_2,mlx5_3");
	assert_int_equal(units, 63);
}

static void expect_error(const char *section, const char *needle)
{
	char text[2048];
	struct rn_config c;
	struct rn_error e = { 0 };

	snprintf(text, sizeof(text), "{\"device_plugin\": %s}", section);
	if (!rn_config_parse(&c, text, &e)) {
		rn_config_free(&c);
		fail_msg("accepted: %s", section);
	}
	if (!strstr(e.msg, needle))
		fail_msg("error for %s\n  is: %s\n  wanted: %s", section, e.msg, needle);
}

static void test_config_errors(void **state)
{
	(void)state;
	expect_error("[]", "device_plugin: expected an object");
	expect_error("{\"kubelet_dir\": \"relative\"}", "kubelet_dir: must be an absolute path");
	expect_error("{\"cdi\": \"yes\"}", "device_plugin.cdi");
	expect_error("{\"configList\": [{\"resourceName\": \"a\", \"healthyWhen\": \"some\", "
		     "\"devices\": [\"x\"]}]}", "device_plugin.configList[0].healthyWhen");
	expect_error("{\"configList\": [{\"resourceName\": \"a\", \"selectors\": "
		     "{\"ifNames\": [\"x\"]}, \"rdmaHcaMaxx\": 1}]}",
		     "configList[0]: unknown key \"rdmaHcaMaxx\"");
	expect_error("{\"configList\": [{\"selectors\": {\"ifNames\": [\"x\"]}}]}",
		     "configList[0].resourceName: missing");
	expect_error("{\"configList\": [{\"resourceName\": \"a\", \"selectors\": "
		     "{\"linkTypes\": [\"eth\"]}}]}", "expected ether or infiniband");
	expect_error("{\"configList\": [{\"resourceName\": \"a\", \"resourcePrefix\": "
		     "\"kubernetes.io\", \"devices\": [\"x\"]}]}", "kubernetes.io prefix is reserved");
	expect_error("{\"configFile\": \"/x.json\", \"configList\": []}",
		     "configFile and configList/periodicUpdateInterval both given");
	expect_error("{\"periodicUpdateInterval\": -1}", "periodicUpdateInterval");
}

static void test_resource_names(void **state)
{
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(rn_dp_resource_name_check("rdma/hca_shared_devices", &e), 0);
	assert_int_equal(rn_dp_resource_name_check("spidernet.io/shared_cx5_gpu1", &e), 0);
	assert_int_equal(rn_dp_resource_name_check("hca", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check("rdma/", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check("rdma/_x", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check("rdma/a/b", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check("-rdma/a", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check("x.kubernetes.io/a", &e), -EINVAL);
	assert_int_equal(rn_dp_resource_name_check(
		"rdma/a123456789012345678901234567890123456789012345678901234567890123", &e), -EINVAL);
}

static void view_of(const char *fixture, const char *selectors, long long max,
		    struct rn_rdma_model *m, struct rn_dp_view *v)
{
	char text[1024];
	struct rn_error e = { 0 };

	snprintf(text, sizeof(text), "{\"configList\": [{\"resourceName\": \"r\", "
		 "\"rdmaHcaMax\": %lld, \"selectors\": %s}]}", max, selectors);
	parse_ok(text);
	load(m, fixture);
	if (rn_dp_view_build(&dc.res[0], m, v, &e))
		fail_msg("view: %s", e.msg);
}

static void test_allocate(void **state)
{
	const char *ids[] = { "shared-0", "shared-1" }, *bad[] = { "shared-9" };
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;
	struct rn_dp_alloc a;
	struct rn_error e = { 0 };
	char tree[] = "/tmp/rn-dp-tree.XXXXXX", cmd[10000], sys[512];

	(void)state;
	view_of(rn_fixture_sys("cx5_healthy"), "{\"ifNames\": [\"ens1f1np1\"]}", 3, &m, &v);
	assert_int_equal(v.n_units, 3);
	assert_int_equal(rn_dp_allocate(&v, &m, ids, 2, &a, &e), 0);
	assert_int_equal(a.n_specs, 4);
	assert_string_equal(a.specs[0].host_path, "/dev/infiniband/issm1");
	assert_string_equal(a.specs[1].host_path, "/dev/infiniband/umad1");
	assert_string_equal(a.specs[2].host_path, "/dev/infiniband/uverbs1");
	assert_string_equal(a.specs[3].host_path, "/dev/infiniband/rdma_cm");
	for (int i = 0; i < a.n_specs; i++) {
		assert_string_equal(a.specs[i].container_path, a.specs[i].host_path);
		assert_string_equal(a.specs[i].permissions, "rwm");
	}
	assert_string_equal(a.env_name, "RDMANET_HCAS_RDMA_R");
	assert_string_equal(a.env_value, "mlx5_1:1:ens1f1np1");
	assert_int_equal(a.n_cdi, 1);
	assert_string_equal(a.cdi_names[0], "rdmanet.io/hca=mlx5_1");
	rn_dp_alloc_free(&a);
	assert_int_equal(rn_dp_allocate(&v, &m, bad, 1, &a, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "unknown device ID \"shared-9\""));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);

	/* a node sysfs names but /dev lacks fails, naming it; issm may be absent */
	assert_non_null(mkdtemp(tree));
	snprintf(cmd, sizeof(cmd), "cp -a %s/.. %s/h && rm %s/h/dev/infiniband/issm1",
		 rn_fixture_sys("cx5_healthy"), tree, tree);
	assert_int_equal(system(cmd), 0);
	snprintf(sys, sizeof(sys), "%s/h/sys", tree);
	view_of(sys, "{\"ifNames\": [\"ens1f1np1\"]}", 3, &m, &v);
	assert_int_equal(rn_dp_allocate(&v, &m, ids, 1, &a, &e), 0);
	assert_int_equal(a.n_specs, 3);
	rn_dp_alloc_free(&a);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	snprintf(cmd, sizeof(cmd), "rm %s/h/dev/infiniband/uverbs1", tree);
	assert_int_equal(system(cmd), 0);
	view_of(sys, "{\"ifNames\": [\"ens1f1np1\"]}", 3, &m, &v);
	assert_int_equal(rn_dp_allocate(&v, &m, ids, 1, &a, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/dev/infiniband/uverbs1 of HCA mlx5_1 is missing"));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	snprintf(cmd, sizeof(cmd), "rm %s/h/dev/infiniband/rdma_cm && cp %s/../dev/infiniband/uverbs1 "
		 "%s/h/dev/infiniband/", tree, rn_fixture_sys("cx5_healthy"), tree);
	assert_int_equal(system(cmd), 0);
	view_of(sys, "{\"ifNames\": [\"ens1f1np1\"]}", 3, &m, &v);
	assert_int_equal(rn_dp_allocate(&v, &m, ids, 1, &a, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/dev/infiniband/rdma_cm is missing"));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tree);
	assert_int_equal(system(cmd), 0);
}

static void test_numa(void **state)
{
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;

	(void)state;
	view_of(rn_fixture_sys("cx5_healthy"), "{\"deviceIDs\": [\"1017\"]}", 2, &m, &v);
	assert_int_equal(v.n_hcas, 2);
	assert_int_equal(v.hcas[0].numa, 0);
	assert_int_equal(v.hcas[1].numa, 1);
	assert_int_equal(rn_dp_unit_numa(&v, &v.units[0]), 0x3);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	view_of(rn_fixture_sys("cx5_healthy"), "{\"ifNames\": [\"ens1f1np1\"]}", 2, &m, &v);
	assert_int_equal(rn_dp_unit_numa(&v, &v.units[1]), 0x2);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	/* Soft-RoCE on a NIC without a NUMA node: no topology, not node 0 */
	view_of(rn_fixture_sys("rxe"), "{\"ifNames\": [\"eth0\"]}", 2, &m, &v);
	assert_int_equal(v.n_hcas, 1);
	assert_string_equal(v.hcas[0].name, "rxe0");
	assert_int_equal(v.hcas[0].numa, -1);
	assert_int_equal(rn_dp_unit_numa(&v, &v.units[0]), 0);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
}

static void test_health_and_exclusive(void **state)
{
	const char *ids[] = { "shared-0" };
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;
	struct rn_dp_alloc a;
	struct rn_error e = { 0 };

	(void)state;
	view_of(rn_fixture_sys("port_down"), "{\"deviceIDs\": [\"1017\"]}", 2, &m, &v);
	assert_true(v.hcas[0].healthy);
	assert_false(v.hcas[1].healthy);
	assert_string_equal(v.hcas[1].why, "mlx5_1 port 1 DOWN");
	/* healthyWhen "anyHca" (the default): one down port of two leaves
	 * every unit Healthy (mlx5_0 serves) */
	assert_false(v.healthy_every);
	for (int i = 0; i < v.n_units; i++)
		assert_true(rn_dp_unit_healthy(&v, &v.units[i]));
	/* "everyHca": one down port, every unit Unhealthy */
	v.healthy_every = true;
	assert_false(rn_dp_unit_healthy(&v, &v.units[0]));
	/* and with every HCA down, "anyHca" is Unhealthy too */
	v.healthy_every = false;
	v.hcas[0].healthy = false;
	assert_false(rn_dp_unit_healthy(&v, &v.units[0]));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	parse_ok("{\"configList\": [{\"resourceName\": \"r\", \"healthyWhen\": \"everyHca\", "
		 "\"selectors\": {\"deviceIDs\": [\"1017\"]}}]}");
	assert_true(dc.res[0].healthy_every);
	load(&m, rn_fixture_sys("port_down"));
	assert_int_equal(rn_dp_view_build(&dc.res[0], &m, &v, &e), 0);
	assert_true(v.healthy_every);
	assert_false(rn_dp_unit_healthy(&v, &v.units[0]));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	view_of(rn_fixture_sys("port_down"), "{\"ifNames\": [\"ens1f0np0\"]}", 2, &m, &v);
	assert_true(rn_dp_unit_healthy(&v, &v.units[0]));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);

	view_of(rn_fixture_sys("netns_exclusive"), "{\"vendors\": [\"15b3\"]}", 2, &m, &v);
	assert_true(v.refused);
	assert_int_equal(v.n_units, 0);
	assert_non_null(strstr(v.refused_why, "exclusive netns mode"));
	assert_int_equal(rn_dp_allocate(&v, &m, ids, 1, &a, &e), -EPERM);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
}

static void test_preferred(void **state)
{
	const char *avail[] = { "shared-0", "shared-1", "shared-2", "shared-3" };
	const char *must[] = { "shared-3" }, *out[4];
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;

	(void)state;
	view_of(rn_fixture_sys("cx5_healthy"), "{\"deviceIDs\": [\"1017\"]}", 4, &m, &v);
	assert_int_equal(rn_dp_preferred(&v, avail, 4, must, 1, 2, out), 2);
	assert_string_equal(out[0], "shared-3");
	assert_string_equal(out[1], "shared-0");
	assert_int_equal(rn_dp_preferred(&v, avail, 4, NULL, 0, 3, out), 3);
	assert_string_equal(out[2], "shared-2");
	/* never more than asked, nor than there is */
	assert_int_equal(rn_dp_preferred(&v, avail, 2, NULL, 0, 3, out), 2);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
}

/* A list kubelet could not take (more than 4 MiB with both PFs' NUMA nodes)
 * is refused, nothing advertised, with the limit and what would fit. */
static void test_list_too_big(void **state)
{
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view v;

	(void)state;
	view_of(rn_fixture_sys("cx5_healthy"), "{\"deviceIDs\": [\"1017\"]}", 150000, &m, &v);
	assert_true(v.refused);
	assert_int_equal(v.n_units, 0);
	assert_non_null(strstr(v.refused_why, "the device list of 150000 devices is "));
	assert_non_null(strstr(v.refused_why, "more than kubelet takes in one message (4194304 "
					      "bytes): at most 12"));
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
	view_of(rn_fixture_sys("cx5_healthy"), "{\"deviceIDs\": [\"1017\"]}", 100000, &m, &v);
	assert_false(v.refused);
	assert_int_equal(v.n_units, 100000);
	rn_dp_view_free(&v);
	rn_rdma_model_free(&m);
}

/* What the agent watches and when it restarts the plugin: the configFile a
 * config names, and whether two parses give kubelet the same resources. */
static void test_config_inputs(void **state)
{
	char paths[4][PATH_MAX], file[] = "/tmp/rn-dp-unit-XXXXXX";
	static struct rn_dp_config a;
	char text[PATH_MAX + 64];
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(rn_dp_config_files("{\"device_plugin\": {\"configFile\": \"/a/b.json\"}}",
					    paths, 4), 1);
	assert_string_equal(paths[0], "/a/b.json");
	assert_int_equal(rn_dp_config_files("{\"device_plugin\": {\"configList\": []}}", paths, 4),
			 0);
	assert_int_equal(rn_dp_config_files("{ not json", paths, 4), 0);

	fd = mkstemp(file);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": 500, "
	      "\"devices\": [\"x\"]}]}", f);
	fclose(f);
	snprintf(text, sizeof(text), "{\"configFile\": \"%s\"}", file);
	parse_ok(text);
	a = dc;
	parse_ok(text);
	assert_true(rn_dp_config_same(&a, &dc));
	/* the shared plugin's ConfigMap edited: 500 -> 7, the section the same */
	f = fopen(file, "w");
	fputs("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": 7, "
	      "\"devices\": [\"x\"]}]}", f);
	fclose(f);
	parse_ok(text);
	assert_false(rn_dp_config_same(&a, &dc));
	unlink(file);
	parse_ok("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": 500, "
		 "\"devices\": [\"x\"]}]}");
	assert_false(rn_dp_config_same(&a, &dc));	/* inline now: configFile differs */
	a = dc;
	parse_ok("{\"configList\": [{\"resourceName\": \"a\", \"rdmaHcaMax\": 500, "
		 "\"devices\": [\"y\"]}]}");
	assert_false(rn_dp_config_same(&a, &dc));	/* another selector */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_selectors_alone),
		cmocka_unit_test(test_selectors_combined),
		cmocka_unit_test(test_readme_examples),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_resource_names),
		cmocka_unit_test(test_allocate),
		cmocka_unit_test(test_numa),
		cmocka_unit_test(test_health_and_exclusive),
		cmocka_unit_test(test_preferred),
		cmocka_unit_test(test_config_inputs),
		cmocka_unit_test(test_list_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
