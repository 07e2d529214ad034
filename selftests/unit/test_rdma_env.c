// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `rdmanetctl env`: a pod's interfaces resolved to HCA, port and RoCE v2
 * GID index on the ConnectX-5 fixture (two pods' macvlans share mlx5_0,
 * so their indexes differ), the variables NCCL and UCX get, and the
 * errors when nothing resolves. */
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

#include "rdma/nccl_env.h"
#include "selftests/fixtures/fixtures.h"

static void load(struct rn_rdma_model *m, const char *fixture)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, rn_fixture_sys(fixture));
	assert_int_equal(rn_rdma_model_load(m, &roots, RN_RDMA_SRC_SYSFS, &e), 0);
}

static struct rn_local_if iface(const char *name, const char *a1, const char *a2)
{
	struct rn_local_if li = { 0 };

	snprintf(li.name, sizeof(li.name), "%s", name);
	if (a1)
		assert_int_equal(rn_addr_parse(a1, &li.addrs[li.n_addrs++]), 0);
	if (a2)
		assert_int_equal(rn_addr_parse(a2, &li.addrs[li.n_addrs++]), 0);
	return li;
}

static const char *var(const struct rn_env_var *vars, const char *name)
{
	for (int i = 0; vars[i].name; i++)
		if (!strcmp(vars[i].name, name))
			return vars[i].value;
	return NULL;
}

static void test_one_pod_interface(void **state)
{
	struct rn_local_if ifs[2];
	struct rn_env_var vars[8];
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	struct rn_env env;

	(void)state;
	load(&m, "cx5");
	/* the pod's primary interface (no GID) and its RoCE interface */
	ifs[0] = iface("eth0", "10.244.1.7", NULL);
	ifs[1] = iface("net1", "172.16.11.22", "fd00:11::22");
	assert_int_equal(rn_env_resolve(&m, ifs, 2, NULL, &env, &e), 0);
	assert_int_equal(env.n_rails, 1);
	assert_string_equal(env.rails[0].dev, "mlx5_0");
	assert_int_equal(env.rails[0].port, 1);
	assert_int_equal(env.rails[0].gid_index, 7);
	assert_int_equal(env.n_skipped, 1);
	assert_string_equal(env.skipped[0].ifname, "eth0");
	assert_string_equal(env.skipped[0].why, "no RoCE v2 GID for 10.244.1.7 on any RDMA device");
	assert_int_equal(rn_env_vars(&env, vars), 4);
	assert_string_equal(var(vars, "NCCL_IB_HCA"), "=mlx5_0:1");
	assert_string_equal(var(vars, "NCCL_IB_GID_INDEX"), "7");
	assert_string_equal(var(vars, "NCCL_SOCKET_IFNAME"), "=net1");
	assert_string_equal(var(vars, "UCX_NET_DEVICES"), "mlx5_0:1");

	/* the other pod on the same HCA gets its own index */
	ifs[1] = iface("net1", "172.16.11.21", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, "net1", &env, &e), 0);
	assert_int_equal(env.rails[0].gid_index, 5);
	assert_int_equal(env.n_skipped, 0);

	/* an IPv6-only interface resolves through its IPv6 GID */
	ifs[1] = iface("net1", "fd00:11::21", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, "net1", &env, &e), 0);
	assert_int_equal(env.rails[0].gid_index, 9);
	assert_int_equal(env.family, AF_INET6);
	rn_rdma_model_free(&m);
}

static void test_two_rails(void **state)
{
	struct rn_local_if ifs[2];
	struct rn_env_var vars[8];
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	struct rn_env env;

	(void)state;
	load(&m, "cx5");
	/* a "pod" on both rails: index 7 on mlx5_0, 3 on mlx5_1 */
	ifs[0] = iface("net1", "172.16.11.22", NULL);
	ifs[1] = iface("ens1f1np1", "172.16.12.10", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, NULL, &env, &e), 0);
	assert_int_equal(env.n_rails, 2);
	assert_false(env.same_gid_index);
	rn_env_vars(&env, vars);
	assert_string_equal(var(vars, "NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
	assert_null(var(vars, "NCCL_IB_GID_INDEX"));
	assert_string_equal(var(vars, "NCCL_IB_ADDR_FAMILY"), "AF_INET");
	assert_string_equal(var(vars, "NCCL_IB_ROCE_VERSION_NUM"), "2");
	assert_string_equal(var(vars, "NCCL_SOCKET_IFNAME"), "=net1,ens1f1np1");
	assert_string_equal(var(vars, "UCX_NET_DEVICES"), "mlx5_0:1,mlx5_1:1");

	/* same index on both rails: one NCCL_IB_GID_INDEX fits */
	ifs[0] = iface("ens1f0np0", "172.16.11.10", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, NULL, &env, &e), 0);
	assert_true(env.same_gid_index);
	rn_env_vars(&env, vars);
	assert_string_equal(var(vars, "NCCL_IB_GID_INDEX"), "3");
	rn_rdma_model_free(&m);
}

static void test_errors(void **state)
{
	struct rn_local_if ifs[2];
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	struct rn_env env;

	(void)state;
	load(&m, "cx5");
	ifs[0] = iface("eth0", "10.244.1.7", NULL);
	/* an address the kernel has not added a GID for (the pain point) */
	ifs[1] = iface("net1", "172.16.11.23", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, NULL, &env, &e), -ENODEV);
	assert_string_equal(e.msg, "env: no interface in this network namespace has a RoCE v2 GID: "
			    "eth0: no RoCE v2 GID for 10.244.1.7 on any RDMA device; net1: no "
			    "RoCE v2 GID for 172.16.11.23 on any RDMA device");
	assert_int_equal(rn_env_resolve(&m, ifs, 2, "net7", &env, &e), -ENODEV);
	assert_string_equal(e.msg, "env: no interface \"net7\" with an address in this network "
			    "namespace");
	/* the address exists, but its GID belongs to another netdev */
	ifs[1] = iface("net2", "172.16.11.22", NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, "net2", &env, &e), -ENODEV);
	ifs[1] = iface("net1", NULL, NULL);
	assert_int_equal(rn_env_resolve(&m, ifs, 2, "net1", &env, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "net1: no IP address"));
	rn_rdma_model_free(&m);

	load(&m, "no_modules");
	assert_int_equal(rn_env_resolve(&m, ifs, 1, NULL, &env, &e), -ENODEV);
	assert_non_null(strstr(e.msg, "no RDMA device is visible in this network namespace"));
	rn_rdma_model_free(&m);
}

static void test_local_ifaces(void **state)
{
	struct rn_local_if *ifs;
	int n;
	struct rn_error e = { 0 };

	(void)state;
	assert_int_equal(rn_local_ifaces(&ifs, &n, &e), 0);
	for (int i = 0; i < n; i++) {
		assert_string_not_equal(ifs[i].name, "lo");
		for (int k = 1; k < ifs[i].n_addrs; k++)
			assert_true(ifs[i].addrs[k - 1].family <= ifs[i].addrs[k].family);
		if (i)
			assert_true(strcmp(ifs[i - 1].name, ifs[i].name) < 0);
	}
	free(ifs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_pod_interface),
		cmocka_unit_test(test_two_rails),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_local_ifaces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
