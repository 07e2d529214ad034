// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The RDMA device model's sysfs parser on fixture trees shaped like real
 * hosts (selftests/fixtures/sysfs): a ConnectX-5 with PFs, VFs and pod
 * GIDs, Soft-RoCE, an InfiniBand port, a host without RDMA modules; the
 * roots override; the attribute readers; and clean degradation on this
 * machine, which has no RDMA at all. */
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

#include "rdma/gid.h"
#include "rdma/model.h"
#include "rdma/model_json.h"
#include "rdma/roots.h"
#include "rdma/sysfs_attr.h"
#include "selftests/fixtures/fixtures.h"

static void load(struct rn_rdma_model *m, const char *fixture, unsigned int sources)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, rn_fixture_sys(fixture));
	if (rn_rdma_model_load(m, &roots, sources, &e))
		fail_msg("load %s: %s", fixture, e.msg);
}

static const struct rn_rdma_gid *gid_at(const struct rn_rdma_port *p, unsigned int index)
{
	for (int i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == index)
			return &p->gids[i];
	return NULL;
}

static void test_cx5_devices(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;

	(void)state;
	load(&m, "cx5", RN_RDMA_SRC_SYSFS);
	assert_int_equal(m.n_devs, 4);
	assert_string_equal(m.devs[0].name, "mlx5_0");
	assert_string_equal(m.devs[3].name, "mlx5_3");
	assert_int_equal(m.sources, RN_RDMA_SRC_SYSFS);
	assert_int_equal(m.netns_mode, RN_NETNS_SHARED);
	assert_string_equal(m.netns_mode_source, "sysfs");
	assert_true(m.rdma_cm_present);

	d = rn_rdma_find_dev(&m, "mlx5_0");
	assert_non_null(d);
	assert_true(d->is_pci);
	assert_int_equal(d->fn, RN_FN_PF);
	assert_string_equal(d->pci.addr, "0000:3b:00.0");
	assert_string_equal(d->pci.vendor, "15b3");
	assert_string_equal(d->pci.device, "1017");
	assert_string_equal(d->pci.driver, "mlx5_core");
	assert_string_equal(d->driver, "mlx5_core");
	assert_string_equal(d->provider, "mlx5");
	assert_int_equal(d->pci.sriov_numvfs, 2);
	assert_int_equal(d->pci.sriov_totalvfs, 8);
	assert_int_equal(d->pci.n_vfs, 2);
	assert_string_equal(d->pci.vfs[0], "0000:3b:00.2");
	assert_string_equal(d->pci.vfs[1], "0000:3b:00.3");
	assert_int_equal(d->pci.vf_index, -1);
	assert_string_equal(d->node_guid, "ec0d:9a03:0078:6fa2");
	assert_false(rn_rdma_guid_is_zero(d->node_guid));
	assert_string_equal(d->fw_ver, "16.35.2000");
	assert_string_equal(d->node_type, "CA");
	assert_string_equal(d->hca_type, "MT4119");

	d = rn_rdma_find_dev(&m, "mlx5_1");
	assert_int_equal(d->pci.sriov_numvfs, 0);
	assert_int_equal(d->pci.n_vfs, 0);

	d = rn_rdma_find_dev(&m, "mlx5_3");
	assert_int_equal(d->fn, RN_FN_VF);
	assert_string_equal(d->pci.physfn, "0000:3b:00.0");
	assert_int_equal(d->pci.vf_index, 1);
	assert_string_equal(d->pci.device, "1018");
	assert_int_equal(d->pci.sriov_totalvfs, -1);
	assert_true(rn_rdma_guid_is_zero(d->node_guid));
	assert_int_equal(rn_rdma_find_dev(&m, "mlx5_2")->pci.vf_index, 0);
	assert_null(rn_rdma_find_dev(&m, "mlx5_9"));
	rn_rdma_model_free(&m);
}

static void test_cx5_ports_and_gids(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;
	struct rn_rdma_port *p;
	const struct rn_rdma_gid *g;
	struct rn_addr a;
	char buf[RN_ADDR_STRLEN];

	(void)state;
	load(&m, "cx5", RN_RDMA_SRC_SYSFS);
	p = rn_rdma_find_port_by_netdev(&m, "ens1f0np0", &d);
	assert_non_null(p);
	assert_string_equal(d->name, "mlx5_0");
	assert_int_equal(p->num, 1);
	assert_string_equal(p->link_layer, "Ethernet");
	assert_int_equal(p->state, RN_PORT_ACTIVE);
	assert_int_equal(p->phys_state, 5);
	assert_string_equal(p->phys_state_name, "LinkUp");
	assert_int_equal(p->netdev_ifindex, 4);
	assert_string_equal(p->rate, "100 Gb/sec (4X EDR)");
	assert_int_equal(p->active_mtu, 0);	/* only verbs knows */
	assert_false(p->gids_from_verbs);
	/* 16 entries in sysfs, 10 valid: the zero GIDs are not entries */
	assert_int_equal(p->n_gids, 10);
	for (int i = 1; i < p->n_gids; i++)
		assert_true(p->gids[i - 1].index < p->gids[i].index);

	g = gid_at(p, 0);
	assert_int_equal(g->type, RN_GID_TYPE_ROCE_V1);
	assert_int_equal(g->addr.family, AF_INET6);
	assert_string_equal(rn_addr_format(&g->addr, buf), "fe80::ee0d:9aff:fe78:6fa2");

	/* the pods' macvlans: one v1 and one v2 entry each, netdev net1 */
	g = gid_at(p, 7);
	assert_int_equal(g->type, RN_GID_TYPE_ROCE_V2);
	assert_string_equal(g->netdev, "net1");
	assert_string_equal(rn_addr_format(&g->addr, buf), "172.16.11.22");
	rn_addr_parse("172.16.11.21", &a);
	assert_int_equal(rn_rdma_find_gid(p, &a, RN_GID_TYPE_ROCE_V2, NULL)->index, 5);
	assert_int_equal(rn_rdma_find_gid(p, &a, RN_GID_TYPE_ROCE_V1, "net1")->index, 4);
	assert_null(rn_rdma_find_gid(p, &a, RN_GID_TYPE_ROCE_V2, "net2"));
	rn_addr_parse("fd00:11::21", &a);
	assert_int_equal(rn_rdma_find_gid(p, &a, RN_GID_TYPE_ROCE_V2, "net1")->index, 9);
	rn_addr_parse("172.16.11.99", &a);
	assert_null(rn_rdma_find_gid(p, &a, RN_GID_TYPE_ROCE_V2, NULL));

	/* hardware counters only when asked for */
	assert_int_equal(p->n_counters, 0);
	assert_null(p->counters_source);
	assert_null(rn_rdma_find_port_by_netdev(&m, "net1", NULL));
	rn_rdma_model_free(&m);
}

static void test_cx5_counters_and_chardevs(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;
	struct rn_rdma_port *p;

	(void)state;
	load(&m, "cx5", RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_COUNTERS);
	p = rn_rdma_find_port_by_netdev(&m, "ens1f0np0", &d);
	assert_string_equal(p->counters_source, "sysfs");
	assert_int_equal(p->n_counters, 6);	/* lifespan is not a counter */
	assert_string_equal(p->counters[0].name, "np_cnp_sent");
	assert_int_equal(p->counters[0].value, 12);
	assert_string_equal(p->counters[2].name, "out_of_buffer");

	assert_int_equal(d->n_chardevs, 3);
	assert_string_equal(d->chardevs[0].name, "issm0");
	assert_string_equal(d->chardevs[2].name, "uverbs0");
	assert_string_equal(d->chardevs[2].kind, "uverbs");
	assert_string_equal(d->chardevs[2].devt, "231:192");
	assert_string_equal(d->chardevs[2].path, "/dev/infiniband/uverbs0");
	assert_true(d->chardevs[2].present);
	assert_int_equal(d->chardevs[1].port, 1);
	assert_int_equal(rn_rdma_find_dev(&m, "mlx5_3")->chardevs[2].devt[4], '1');
	rn_rdma_model_free(&m);
}

/* the JSON a query compares: a port's rate in Gb/s, a number (not the
 * kernel's text, which is "rate_text"); a value sysfs lacks is null */
static void test_model_json_rate(void **state)
{
	struct rn_rdma_model m;
	json_t *j, *port;

	(void)state;
	load(&m, "cx5", RN_RDMA_SRC_SYSFS);
	j = rn_rdma_model_json(&m, "mlx5_0");
	port = json_array_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0),
					      "ports"), 0);
	assert_true(json_is_real(json_object_get(port, "rate")));
	assert_true(json_real_value(json_object_get(port, "rate")) == 100.0);
	assert_string_equal(json_string_value(json_object_get(port, "rate_text")),
			    "100 Gb/sec (4X EDR)");
	json_decref(j);
	m.devs[0].ports[0].rate[0] = '\0';
	j = rn_rdma_model_json(&m, "mlx5_0");
	port = json_array_get(json_object_get(json_array_get(json_object_get(j, "devices"), 0),
					      "ports"), 0);
	assert_true(json_is_null(json_object_get(port, "rate")));
	assert_true(json_is_null(json_object_get(port, "rate_text")));
	json_decref(j);
	rn_rdma_model_free(&m);
}

static void test_rxe(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;
	char buf[RN_ADDR_STRLEN];

	(void)state;
	load(&m, "rxe", RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_COUNTERS);
	assert_int_equal(m.n_devs, 1);
	d = &m.devs[0];
	assert_string_equal(d->name, "rxe0");
	assert_false(d->is_pci);
	assert_int_equal(d->fn, RN_FN_VIRTUAL);
	assert_string_equal(d->parent, "eth0");
	assert_string_equal(d->driver, "rxe");
	assert_string_equal(d->provider, "rxe");
	assert_string_equal(d->ports[0].netdev, "eth0");
	assert_int_equal(d->ports[0].n_gids, 4);
	assert_string_equal(rn_addr_format(&d->ports[0].gids[2].addr, buf), "192.168.77.11");
	assert_string_equal(d->ports[0].gids[2].netdev, "net1");
	assert_int_equal(d->ports[0].gids[2].type, RN_GID_TYPE_ROCE_V2);
	assert_int_equal(d->ports[0].n_counters, 15);
	assert_int_equal(d->n_chardevs, 1);
	rn_rdma_model_free(&m);
}

static void test_ib_port(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;

	(void)state;
	load(&m, "ib_port", RN_RDMA_SRC_SYSFS);
	d = rn_rdma_find_dev(&m, "mlx5_1");
	assert_string_equal(d->ports[0].link_layer, "InfiniBand");
	assert_int_equal(d->ports[0].n_gids, 1);
	/* "IB/RoCE v1" on an IB port is an IB GID, and maps no address */
	assert_int_equal(d->ports[0].gids[0].type, RN_GID_TYPE_IB);
	assert_int_equal(d->ports[0].gids[0].addr.family, 0);
	assert_string_equal(d->ports[0].netdev, "");
	rn_rdma_model_free(&m);
}

static void test_states_and_modes(void **state)
{
	struct rn_rdma_model m;
	struct rn_rdma_dev *d;

	(void)state;
	load(&m, "port_down", RN_RDMA_SRC_SYSFS);
	d = rn_rdma_find_dev(&m, "mlx5_1");
	assert_int_equal(d->ports[0].state, RN_PORT_DOWN);
	assert_string_equal(d->ports[0].phys_state_name, "Disabled");
	rn_rdma_model_free(&m);

	load(&m, "netns_exclusive", RN_RDMA_SRC_SYSFS);
	assert_int_equal(m.netns_mode, RN_NETNS_EXCLUSIVE);
	rn_rdma_model_free(&m);

	/* no RDMA driver: an empty model that says why, not an error */
	load(&m, "no_modules", RN_RDMA_SRC_SYSFS);
	assert_int_equal(m.n_devs, 0);
	assert_int_equal(m.netns_mode, RN_NETNS_UNKNOWN);
	assert_int_equal(m.n_notes, 1);
	assert_non_null(strstr(m.notes[0], "no RDMA devices"));
	rn_rdma_model_free(&m);
}

static void test_overridden_root_skips_live_sources(void **state)
{
	struct rn_rdma_model m;

	(void)state;
	load(&m, "cx5", RN_RDMA_SRC_ALL | RN_RDMA_SRC_COUNTERS);
	assert_int_equal(m.sources, RN_RDMA_SRC_SYSFS);
	assert_int_equal(m.verbs_devices, -1);
	assert_non_null(strstr(m.notes[0], "not the live /sys"));
	/* counters fell back to sysfs */
	assert_string_equal(m.devs[0].ports[0].counters_source, "sysfs");
	rn_rdma_model_free(&m);
}

/* This machine has no RDMA: netlink and verbs say so, sysfs is used. */
static void test_live_host_degrades(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };

	(void)state;
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, NULL);
	assert_false(roots.overridden);
	assert_int_equal(rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_ALL, &e), 0);
	assert_true(m.sources & RN_RDMA_SRC_SYSFS);
	if (access("/sys/class/infiniband", F_OK) == 0) {
		rn_rdma_model_free(&m);
		skip();
	}
	assert_int_equal(m.n_devs, 0);
	assert_true(m.n_notes >= 1);
	for (int i = 0; i < m.n_notes; i++)
		assert_true(strlen(m.notes[i]) > 10);
	rn_rdma_model_free(&m);
}

static void test_bad_root(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };

	(void)state;
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, "/nonexistent/sys");
	assert_int_equal(rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "not a sysfs tree"));
	assert_int_equal(m.n_devs, 0);
}

static void test_roots(void **state)
{
	struct rn_rdma_roots r;

	(void)state;
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&r, NULL);
	assert_string_equal(r.sys, "/sys");
	assert_string_equal(r.dev, "/dev");
	assert_string_equal(r.etc, "/etc");
	assert_false(r.overridden);
	rn_rdma_roots_init(&r, "/tmp/x/sys/");
	assert_string_equal(r.sys, "/tmp/x/sys");
	assert_string_equal(r.dev, "/tmp/x/dev");
	assert_string_equal(r.etc, "/tmp/x/etc");
	assert_true(r.overridden);
	/* the environment wins over the config */
	setenv(RN_SYSFS_ROOT_ENV, "/env/root/sys", 1);
	rn_rdma_roots_init(&r, "/tmp/x/sys");
	assert_string_equal(r.sys, "/env/root/sys");
	assert_string_equal(r.dev, "/env/root/dev");
	unsetenv(RN_SYSFS_ROOT_ENV);
}

static void test_sysfs_attr(void **state)
{
	char dir[] = "/tmp/rn_attr_XXXXXX", buf[64], lnk[512];
	long v;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* sysfs attributes exist or not; writing never creates one */
	assert_int_equal(rn_sysfs_write("x", "%s/a", dir), -ENOENT);
	snprintf(lnk, sizeof(lnk), "%s/a", dir);
	fclose(fopen(lnk, "w"));
	snprintf(lnk, sizeof(lnk), "%s/hex", dir);
	fclose(fopen(lnk, "w"));
	assert_int_equal(rn_sysfs_write("  4: ACTIVE \n", "%s/a", dir), 0);
	assert_int_equal(rn_sysfs_read(buf, sizeof(buf), "%s/a", dir), 0);
	assert_string_equal(buf, "  4: ACTIVE");
	assert_int_equal(rn_sysfs_write("0x15b3\n", "%s/hex", dir), 0);
	assert_int_equal(rn_sysfs_read_long(&v, "%s/hex", dir), 0);
	assert_int_equal(v, 0x15b3);
	assert_int_equal(rn_sysfs_read_long(&v, "%s/a", dir), -EINVAL);
	assert_int_equal(rn_sysfs_read(buf, sizeof(buf), "%s/missing", dir), -ENOENT);
	assert_string_equal(buf, "");
	snprintf(lnk, sizeof(lnk), "%s/drv", dir);
	assert_int_equal(symlink("../../bus/pci/drivers/mlx5_core/", lnk), 0);
	assert_int_equal(rn_sysfs_link_name(buf, sizeof(buf), "%s", lnk), 0);
	assert_string_equal(buf, "mlx5_core");
	assert_true(rn_sysfs_exists("%s/a", dir));
	assert_false(rn_sysfs_exists("%s/b", dir));
	memset(lnk, 'x', sizeof(lnk) - 1);
	lnk[sizeof(lnk) - 1] = '\0';
	assert_int_equal(rn_pathf(buf, sizeof(buf), "%s", lnk), -ENAMETOOLONG);
	unlink(lnk);
	snprintf(lnk, sizeof(lnk), "rm -rf %s", dir);
	assert_int_equal(system(lnk), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cx5_devices),
		cmocka_unit_test(test_cx5_ports_and_gids),
		cmocka_unit_test(test_model_json_rate),
		cmocka_unit_test(test_cx5_counters_and_chardevs),
		cmocka_unit_test(test_rxe),
		cmocka_unit_test(test_ib_port),
		cmocka_unit_test(test_states_and_modes),
		cmocka_unit_test(test_overridden_root_skips_live_sources),
		cmocka_unit_test(test_live_host_degrades),
		cmocka_unit_test(test_bad_root),
		cmocka_unit_test(test_roots),
		cmocka_unit_test(test_sysfs_attr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
