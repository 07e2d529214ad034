// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin's VF resources on the ConnectX-5 exclusive-mode fixture
 * (cx5_sriov: 12 VFs on ens1f0np0, two zero GUIDs, VF 5 held by a pod whose
 * netns is gone, VF 9's RDMA device in another netns), in a copy switched to
 * exclusive netns mode: which resources the "sriov" section makes (with and
 * without a device_plugin section) and the names kubelet would refuse; one
 * device per VF with its PCI address, health and why, NUMA; Allocate's
 * device specs and PCIDEVICE_ variable; refusals (held VF, unknown ID,
 * shared netns mode); GetPreferredAllocation over VFs. */
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
#include "rdma/sysfs_attr.h"
#include "selftests/fixtures/fixtures.h"

#define RDMA_VFS "\"sriov\": [{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, " \
		 "\"resourceName\": \"mellanoxroce\"}]"

struct tree {
	char dir[256];			/* a copy of the fixture: sys/, dev/, etc/ */
	char sys[300];
	char state[300];		/* the CNI state dir: holds under sriov/ */
};

static void tree_copy(struct tree *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/rn-dpsriov-XXXXXX");
	assert_int_equal(rn_fixture_copy("cx5_sriov", t->dir), 0);
	snprintf(t->sys, sizeof(t->sys), "%s/sys", t->dir);
	snprintf(t->state, sizeof(t->state), "%s/state", t->dir);
	/* the fixture host is in shared mode; VFs are for exclusive mode */
	assert_int_equal(rn_sysfs_write("N", "%s/module/ib_core/parameters/netns_mode", t->sys), 0);
	unsetenv(RN_SYSFS_ROOT_ENV);
	setenv(RN_SRIOV_STATE_DIR_ENV, t->state, 1);
}

/* a sysfs attribute the fixture lacks (numa_node) */
static void put(const struct tree *t, const char *rel, const char *val)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", t->sys, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", val);
	fclose(f);
}

static void tree_free(struct tree *t)
{
	assert_int_equal(rn_fixture_remove(t->dir), 0);
	unsetenv(RN_SRIOV_STATE_DIR_ENV);
}

/* VF 5 (0000:3b:00.7) in a pod whose netns no longer exists */
static void hold_vf5(const struct tree *t)
{
	struct rn_sriov_hold h = { .vf = 5, .since = 1764000000, .complete = true };
	struct rn_error e = { 0 };

	snprintf(h.pci, sizeof(h.pci), "0000:3b:00.7");
	snprintf(h.pf_ifname, sizeof(h.pf_ifname), "ens1f0np0");
	snprintf(h.container_id, sizeof(h.container_id), "c0ffee");
	snprintf(h.ifname, sizeof(h.ifname), "net1");
	snprintf(h.netns, sizeof(h.netns), "/var/run/netns/rn-no-such-pod");
	snprintf(h.pod_namespace, sizeof(h.pod_namespace), "default");
	snprintf(h.pod_name, sizeof(h.pod_name), "rdma-pod");
	snprintf(h.orig_netdev, sizeof(h.orig_netdev), "ens1f0v5");
	snprintf(h.orig_rdma_dev, sizeof(h.orig_rdma_dev), "mlx5_7");
	if (rn_sriov_hold_write(t->state, &h, &e))
		fail_msg("%s", e.msg);
}

/* VF 5's pod deleted, its netdev not back from the pod's dying netns */
static void release_vf5(const struct tree *t)
{
	struct rn_sriov_hold h;
	struct rn_error e = { 0 };

	if (rn_sriov_hold_read(t->state, "0000:3b:00.7", &h, &e))
		fail_msg("%s", e.msg);
	h.released = true;
	if (rn_sriov_hold_write(t->state, &h, &e))
		fail_msg("%s", e.msg);
}

static void config(struct rn_config *c, const char *json)
{
	struct rn_error e = { 0 };

	if (rn_config_parse(c, json, &e))
		fail_msg("refused %s: %s", json, e.msg);
}

static void expect_refused(const char *json, const char *needle)
{
	struct rn_config c;
	struct rn_error e = { 0 };

	if (!rn_config_parse(&c, json, &e)) {
		rn_config_free(&c);
		fail_msg("accepted %s", json);
	}
	if (!strstr(e.msg, needle))
		fail_msg("%s: error \"%s\" lacks \"%s\"", json, e.msg, needle);
}

/* The views of every resource of json over the tree's model. */
static void views(const struct tree *t, const char *json, struct rn_rdma_model *m,
		  struct rn_dp_view **v, int *n)
{
	struct rn_rdma_roots roots;
	struct rn_config c;
	struct rn_error e = { 0 };

	config(&c, json);
	rn_rdma_roots_init(&roots, t->sys);
	if (rn_rdma_model_load(m, &roots, RN_RDMA_SRC_SYSFS, &e))
		fail_msg("model: %s", e.msg);
	if (rn_dp_views(&c, m, v, n, &e))
		fail_msg("views: %s", e.msg);
	rn_config_free(&c);
}

static void views_free(struct rn_rdma_model *m, struct rn_dp_view *v, int n)
{
	for (int i = 0; i < n; i++)
		rn_dp_view_free(&v[i]);
	free(v);
	rn_rdma_model_free(m);
}

static const struct rn_dp_unit *unit(const struct rn_dp_view *v, const char *id)
{
	for (int i = 0; i < v->n_units; i++)
		if (!strcmp(v->units[i].id, id))
			return &v->units[i];
	fail_msg("%s: no device %s", v->resource, id);
	return NULL;
}

/* ---- which resources ---------------------------------------------------- */

static void test_resources_from_sriov(void **state)
{
	struct rn_dp_config *dc = calloc(1, sizeof(*dc));
	struct rn_config c;
	struct rn_error e = { 0 };

	(void)state;
	assert_non_null(dc);
	/* no device_plugin section: the VF resources alone, every key default */
	config(&c, "{" RDMA_VFS "}");
	assert_true(rn_dp_wanted(&c));
	assert_int_equal(rn_dp_config_build(&c, dc, &e), 0);
	assert_int_equal(dc->n_res, 1);
	assert_string_equal(dc->res[0].prefix, "rdma");
	assert_string_equal(dc->res[0].name, "mellanoxroce");
	assert_ptr_equal(dc->res[0].provider, rn_dp_provider_sriov);
	assert_ptr_equal(dc->res[0].sriov, &dc->sriov);
	assert_string_equal(dc->kubelet_dir, "/var/lib/kubelet");
	assert_int_equal(dc->periodic_s, 60);
	rn_dp_config_free(dc);
	rn_config_free(&c);

	/* shared resources first, then one per prefix/name: two PFs under one
	 * name pool their VFs; another prefix is another resource */
	config(&c, "{\"device_plugin\": {\"kubelet_dir\": \"/k\", \"configList\": [{\"resourceName\": "
		   "\"hca\", \"selectors\": {\"vendors\": [\"15b3\"]}}]}, \"sriov\": ["
		   "{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"resourceName\": \"vfs\"},"
		   "{\"pf\": \"ens1f1np1\", \"numVfs\": 4, \"resourceName\": \"vfs\"},"
		   "{\"pf\": \"ens2f0\", \"numVfs\": 4, \"resourceName\": \"vfs\", "
		   "\"resourcePrefix\": \"nvidia.com\"},"
		   "{\"pf\": \"ens3f0\", \"numVfs\": 4}]}");
	assert_int_equal(rn_dp_config_build(&c, dc, &e), 0);
	assert_int_equal(dc->n_res, 3);
	assert_null(dc->res[0].provider);
	assert_string_equal(dc->res[1].prefix, "rdma");
	assert_string_equal(dc->res[1].name, "vfs");
	assert_string_equal(dc->res[2].prefix, "nvidia.com");
	assert_string_equal(dc->kubelet_dir, "/k");
	rn_dp_config_free(dc);
	rn_config_free(&c);

	/* no resourceName anywhere, no device_plugin: no device plugin */
	config(&c, "{\"sriov\": [{\"pf\": \"ens1f0np0\", \"numVfs\": 12}]}");
	assert_false(rn_dp_wanted(&c));
	rn_config_free(&c);
	free(dc);
}

static void test_resource_name_errors(void **state)
{
	(void)state;
	expect_refused("{\"device_plugin\": {\"configList\": [{\"resourceName\": \"mellanoxroce\", "
		       "\"selectors\": {\"vendors\": [\"15b3\"]}}]}, " RDMA_VFS "}",
		       "config: sriov[0].resourceName: \"rdma/mellanoxroce\" is also a shared "
		       "resource");
	expect_refused("{\"sriov\": [{\"pf\": \"p\", \"numVfs\": 1, \"resourceName\": \"vfs\", "
		       "\"resourcePrefix\": \"Intel.COM\"}]}",
		       "config: sriov[0].resourceName: resource name \"Intel.COM/vfs\": prefix");
	expect_refused("{\"sriov\": [{\"pf\": \"p\", \"numVfs\": 1, \"resourceName\": \"-vfs\"}]}",
		       "config: sriov[0].resourceName: resource name \"rdma/-vfs\": name");
	expect_refused("{\"sriov\": [{\"pf\": \"p\", \"numVfs\": 1, \"resourceName\": \"v\", "
		       "\"resourcePrefix\": 3}]}", "config: sriov[0].resourcePrefix");
}

/* ---- devices and health --------------------------------------------------- */

static void test_devices_and_health(void **state)
{
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view *v, *v2;
	struct tree t;
	int n, n2, healthy = 0;

	(void)state;
	tree_copy(&t);
	hold_vf5(&t);
	put(&t, "bus/pci/devices/0000:3b:00.2/numa_node", "1");
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].resource, "rdma/mellanoxroce");
	assert_false(v[0].refused);
	assert_int_equal(v[0].n_units, 12);
	assert_string_equal(v[0].units[0].id, "0000:3b:00.2");
	assert_string_equal(v[0].units[11].id, "0000:3b:01.5");
	for (int i = 0; i < v[0].n_units; i++)
		healthy += rn_dp_unit_healthy(&v[0], &v[0].units[i]);
	assert_int_equal(healthy, 9);
	assert_true(rn_dp_unit_healthy(&v[0], unit(&v[0], "0000:3b:00.2")));
	assert_string_equal(unit(&v[0], "0000:3b:00.2")->vf->name, "mlx5_2");
	assert_string_equal(unit(&v[0], "0000:3b:00.2")->vf->netdev, "ens1f0v0");
	/* held by a pod: in use, which kubelet accounts for; Healthy */
	assert_true(rn_dp_unit_healthy(&v[0], unit(&v[0], "0000:3b:00.7")));
	assert_false(rn_dp_unit_healthy(&v[0], unit(&v[0], "0000:3b:00.5")));
	assert_string_equal(unit(&v[0], "0000:3b:00.5")->vf->why, "zero node GUID");
	assert_false(rn_dp_unit_healthy(&v[0], unit(&v[0], "0000:3b:01.1")));
	assert_false(rn_dp_unit_healthy(&v[0], unit(&v[0], "0000:3b:01.3")));
	assert_string_equal(unit(&v[0], "0000:3b:01.3")->vf->why, "no RDMA device in this netns");
	/* NUMA: the VF's own PCI numa_node; unknown gives no node */
	assert_int_equal(rn_dp_unit_numa(&v[0], unit(&v[0], "0000:3b:00.2")), 1ull << 1);
	assert_int_equal(rn_dp_unit_numa(&v[0], unit(&v[0], "0000:3b:00.3")), 0);

	/* the hold goes but the VF's RDMA device is still away (in this
	 * fixture): it cannot serve, and kubelet must hear of the change */
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", NULL), 0);
	rn_rdma_model_free(&m);
	memset(&m, 0, sizeof(m));
	views(&t, "{" RDMA_VFS "}", &m, &v2, &n2);
	assert_false(rn_dp_unit_healthy(&v2[0], unit(&v2[0], "0000:3b:00.7")));
	assert_string_equal(unit(&v2[0], "0000:3b:00.7")->vf->why, "no RDMA device in this netns");
	assert_true(rn_dp_view_differs(&v[0], &v2[0]));
	views_free(&m, v2, n2);

	/* the PF goes down: every VF Unhealthy, a different list for kubelet */
	assert_int_equal(rn_sysfs_write("down", "%s/class/net/ens1f0np0/operstate", t.sys), 0);
	memset(&m, 0, sizeof(m));
	views(&t, "{" RDMA_VFS "}", &m, &v2, &n2);
	for (int i = 0; i < v2[0].n_units; i++)
		assert_false(rn_dp_unit_healthy(&v2[0], &v2[0].units[i]));
	assert_string_equal(unit(&v2[0], "0000:3b:00.2")->vf->why, "PF ens1f0np0 down");
	assert_true(rn_dp_view_differs(&v[0], &v2[0]));
	views_free(&m, v2, n2);
	for (int i = 0; i < n; i++)
		rn_dp_view_free(&v[i]);
	free(v);

	/* shared netns mode: an isRdma resource is refused, nothing advertised */
	assert_int_equal(rn_sysfs_write("Y", "%s/module/ib_core/parameters/netns_mode", t.sys), 0);
	memset(&m, 0, sizeof(m));
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	assert_true(v[0].refused);
	assert_int_equal(v[0].n_units, 0);
	assert_non_null(strstr(v[0].refused_why, "shared netns mode"));
	views_free(&m, v, n);
	/* ... while VFs without RDMA are still fine there */
	memset(&m, 0, sizeof(m));
	views(&t, "{\"sriov\": [{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"resourceName\": "
		  "\"eth\"}]}", &m, &v, &n);
	assert_false(v[0].refused);
	assert_int_equal(v[0].n_units, 12);
	views_free(&m, v, n);
	tree_free(&t);
}

/* ---- Allocate ------------------------------------------------------------ */

static const char *specs(const struct rn_dp_alloc *a)
{
	static char out[1024];
	size_t off = 0;

	out[0] = '\0';
	for (int i = 0; i < a->n_specs; i++) {
		assert_string_equal(a->specs[i].host_path, a->specs[i].container_path);
		assert_string_equal(a->specs[i].permissions, "rwm");
		off += (size_t)snprintf(out + off, sizeof(out) - off, "%s%s", i ? " " : "",
					a->specs[i].host_path + strlen("/dev/infiniband/"));
	}
	return out;
}

static void test_allocate(void **state)
{
	const char *two[] = { "0000:3b:00.2", "0000:3b:00.3" };
	const char *held[] = { "0000:3b:00.7" }, *unknown[] = { "0000:3b:00.0" };
	const char *zero_guid[] = { "0000:3b:00.5" };
	struct rn_rdma_model m = { 0 };
	struct rn_error e = { 0 };
	struct rn_dp_alloc a;
	struct rn_dp_view *v;
	struct tree t;
	int n;

	(void)state;
	tree_copy(&t);
	hold_vf5(&t);
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	assert_int_equal(rn_dp_allocate(&v[0], &m, two, 2, &a, &e), 0);
	assert_string_equal(specs(&a), "issm2 umad2 uverbs2 issm3 umad3 uverbs3 rdma_cm");
	assert_string_equal(a.env_name, "PCIDEVICE_RDMA_MELLANOXROCE");
	assert_string_equal(a.env_value, "0000:3b:00.2,0000:3b:00.3");
	assert_int_equal(a.n_cdi, 0);
	rn_dp_alloc_free(&a);

	/* kubelet owns the in-use accounting: an ID it hands back is a VF
	 * it knows free (a hold still on it makes the CNI's ADD wait) */
	assert_int_equal(rn_dp_allocate(&v[0], &m, held, 1, &a, &e), 0);
	assert_string_equal(a.env_value, "0000:3b:00.7");
	rn_dp_alloc_free(&a);
	views_free(&m, v, n);
	/* its pod deleted but the VF not back yet: it cannot serve */
	release_vf5(&t);
	memset(&m, 0, sizeof(m));
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	assert_int_equal(rn_dp_allocate(&v[0], &m, held, 1, &a, &e), -EBUSY);
	assert_string_equal(e.msg, "rdma/mellanoxroce: VF 0000:3b:00.7 is not available: being "
			    "returned from default/rdma-pod's netns");
	assert_int_equal(rn_dp_allocate(&v[0], &m, zero_guid, 1, &a, &e), -EBUSY);
	assert_string_equal(e.msg, "rdma/mellanoxroce: VF 0000:3b:00.5 is not available: zero "
			    "node GUID");
	assert_int_equal(rn_dp_allocate(&v[0], &m, unknown, 1, &a, &e), -ENOENT);
	assert_string_equal(e.msg, "rdma/mellanoxroce: unknown device ID \"0000:3b:00.0\"");
	views_free(&m, v, n);

	/* a node sysfs names but /dev lacks fails, naming it */
	{
		char path[400];

		snprintf(path, sizeof(path), "%s/dev/infiniband/umad3", t.dir);
		assert_int_equal(unlink(path), 0);
	}
	memset(&m, 0, sizeof(m));
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	assert_int_equal(rn_dp_allocate(&v[0], &m, two, 2, &a, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "/dev/infiniband/umad3 of HCA mlx5_3 is missing"));
	views_free(&m, v, n);

	/* VFs without RDMA (no isRdma, another prefix): the PCI address only */
	memset(&m, 0, sizeof(m));
	views(&t, "{\"sriov\": [{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"resourceName\": "
		  "\"sriov_eth-a\", \"resourcePrefix\": \"nvidia.com\"}]}", &m, &v, &n);
	assert_string_equal(v[0].resource, "nvidia.com/sriov_eth-a");
	assert_int_equal(rn_dp_allocate(&v[0], &m, two, 1, &a, &e), 0);
	assert_string_equal(a.env_name, "PCIDEVICE_NVIDIA_COM_SRIOV_ETH-A");
	assert_string_equal(a.env_value, "0000:3b:00.2");
	assert_int_equal(a.n_specs, 0);	/* mlx5_2 exists, but the resource is not isRdma */
	rn_dp_alloc_free(&a);
	views_free(&m, v, n);
	tree_free(&t);
}

static void test_preferred(void **state)
{
	const char *avail[] = { "0000:3b:00.5", "0000:3b:00.7", "0000:3b:00.3", "0000:3b:00.2",
				"0000:3b:00.4" };
	const char *out[3];
	struct rn_rdma_model m = { 0 };
	struct rn_dp_view *v;
	struct tree t;
	int n;

	(void)state;
	tree_copy(&t);
	hold_vf5(&t);
	release_vf5(&t);	/* kubelet lists it free: its pod is gone */
	put(&t, "bus/pci/devices/0000:3b:00.2/numa_node", "1");
	put(&t, "bus/pci/devices/0000:3b:00.3/numa_node", "0");
	put(&t, "bus/pci/devices/0000:3b:00.4/numa_node", "1");
	views(&t, "{" RDMA_VFS "}", &m, &v, &n);
	/* must-include 00.2 (node 1): then the healthy VF on node 1, never
	 * the zero-GUID or returning ones while healthy ones are left */
	assert_int_equal(rn_dp_preferred(&v[0], avail, 5, avail + 3, 1, 3, out), 3);
	assert_string_equal(out[0], "0000:3b:00.2");
	assert_string_equal(out[1], "0000:3b:00.4");
	assert_string_equal(out[2], "0000:3b:00.3");
	views_free(&m, v, n);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resources_from_sriov),
		cmocka_unit_test(test_resource_name_errors),
		cmocka_unit_test(test_devices_and_health),
		cmocka_unit_test(test_allocate),
		cmocka_unit_test(test_preferred),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
