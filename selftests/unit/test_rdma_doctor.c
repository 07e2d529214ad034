// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Every doctor check on fixture trees: the healthy ConnectX-5 host passes
 * everything, and each failure mode (zero VF GUID, port down, wrong netns
 * mode, rdma-core missing, RDMA modules missing, InfiniBand link layer,
 * selectors that match nothing, MTU mismatch, a pod address without its
 * RoCE v2 GID, bpffs missing, the pin dir not made yet, programs not
 * attached) is diagnosed by the
 * right check with the right fix, and by no other check. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "doctor/doctor.h"
#include "rdma/roce_netdevs.h"
#include "selftests/fixtures/fixtures.h"

struct fx {
	struct rn_rdma_model m;
	struct rn_rdma_config rc;
	char masters[RN_MAX_MASTERS][RN_IFNAMSIZ];
	struct rn_doctor_master att[RN_MAX_MASTERS];
	struct rn_pod_addr pods[4];
	struct rn_doctor_facts f;
	struct rn_doctor_report r;
};

/* A fixture tree with rdmanetd attached to every discovered master and
 * the RoCE MTU verbs would report for a 9000-byte netdev. */
static struct fx *setup(const char *fixture, const char *rdma_json)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	json_t *j = rdma_json ? json_loads(rdma_json, 0, NULL) : NULL;

	assert_non_null(x);
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, rn_fixture_sys(fixture));
	if (rn_rdma_model_load(&x->m, &roots, RN_RDMA_SRC_SYSFS, &e))
		fail_msg("%s: %s", fixture, e.msg);
	if (rn_rdma_config_parse(j, &x->rc, &e))
		fail_msg("%s: %s", rdma_json, e.msg);
	json_decref(j);
	for (int i = 0; i < x->m.n_devs; i++)
		for (int p = 0; p < x->m.devs[i].n_ports; p++)
			x->m.devs[i].ports[p].active_mtu = x->m.devs[i].ports[p].max_mtu = 4096;
	x->f.model = &x->m;
	x->f.rdma = &x->rc;
	x->f.masters = x->masters;
	x->f.n_masters = rn_rdma_roce_netdevs(&x->m, &x->rc.selectors, x->masters, RN_MAX_MASTERS);
	for (int i = 0; i < x->f.n_masters; i++) {
		snprintf(x->att[i].ifname, RN_IFNAMSIZ, "%s", x->masters[i]);
		x->att[i].in_map = true;
		x->att[i].xdp = 1;
		x->att[i].tc = 1;
	}
	x->f.attached = x->att;
	x->f.n_attached = x->f.n_masters;
	x->f.bpffs_mounted = true;
	x->f.pin_dir = "/sys/fs/bpf/rdmanet";
	x->f.pods = x->pods;
	return x;
}

static void add_pod(struct fx *x, const char *master, const char *ip)
{
	struct rn_pod_addr *pa = &x->pods[x->f.n_pods++];

	snprintf(pa->ns, sizeof(pa->ns), "team");
	snprintf(pa->pod, sizeof(pa->pod), "trainer-%d", x->f.n_pods);
	snprintf(pa->ifname, sizeof(pa->ifname), "net1");
	snprintf(pa->master, sizeof(pa->master), "%s", master);
	assert_int_equal(rn_addr_parse(ip, &pa->addr), 0);
}

static void teardown(struct fx *x)
{
	rn_rdma_model_free(&x->m);
	free(x);
}

static const struct rn_check *run(struct fx *x, const char *name)
{
	const struct rn_check *c;

	rn_doctor_run(&x->f, &x->r);
	c = rn_doctor_find(&x->r, name);
	if (!c)
		fail_msg("no check %s", name);
	return c;
}

#define assert_contains(hay, needle) do { \
	if (!strstr((hay), (needle))) \
		fail_msg("\"%s\"\n  does not contain \"%s\"", (hay), (needle)); \
} while (0)

/* The named check has status s, and every other check passes. */
static void expect_only(struct fx *x, const char *name, enum rn_check_status s)
{
	const struct rn_check *c = run(x, name);

	assert_int_equal(x->r.n, RN_DOCTOR_CHECKS);
	if (c->status != s)
		fail_msg("%s: %s (%s), wanted %s", name, rn_check_status_names[c->status],
			 c->detail, rn_check_status_names[s]);
	for (int i = 0; i < x->r.n; i++) {
		const struct rn_check *o = &x->r.checks[i];

		if (o != c && o->status != RN_CHECK_PASS)
			fail_msg("%s also %s: %s", o->name, rn_check_status_names[o->status],
				 o->detail);
	}
	if (s == RN_CHECK_FAIL && !c->fix[0])
		fail_msg("%s fails without a fix", name);
}

static void test_healthy(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);

	(void)state;
	add_pod(x, "ens1f0np0", "172.16.11.21");
	add_pod(x, "ens1f0np0", "fd00:11::21");
	rn_doctor_run(&x->f, &x->r);
	for (int i = 0; i < x->r.n; i++)
		if (x->r.checks[i].status != RN_CHECK_PASS)
			fail_msg("%s: %s", x->r.checks[i].name, x->r.checks[i].detail);
	assert_int_equal(x->r.failed, 0);
	assert_int_equal(x->r.warned, 0);
	assert_contains(run(x, "devices")->detail, "4 devices: mlx5_0 mlx5_1 mlx5_2 mlx5_3");
	assert_contains(run(x, "pod-gids")->detail, "all 2 pod addresses have a RoCE v2 GID");
	assert_contains(run(x, "vf-guids")->detail, "2 VFs, node GUIDs set");
	assert_contains(run(x, "mtu")->detail, "ens1f0np0 MTU 9000, mlx5_0/1 RoCE MTU 4096");
	assert_contains(run(x, "datapath")->detail, "ens1f0np0: xdp native, tc tcx");
	/* the masters discovered: the PFs' netdevs, not the VFs' */
	assert_int_equal(x->f.n_masters, 2);
	assert_string_equal(x->masters[0], "ens1f0np0");
	assert_string_equal(x->masters[1], "ens1f1np1");
	teardown(x);
}

static void test_zero_vf_guid(void **state)
{
	struct fx *x = setup("cx5", NULL);
	const struct rn_check *c;

	(void)state;
	expect_only(x, "vf-guids", RN_CHECK_FAIL);
	c = run(x, "vf-guids");
	assert_contains(c->detail,
			"mlx5_3 (VF 1 of 0000:3b:00.0) has node GUID 0000:0000:0000:0000");
	assert_contains(c->fix, "ip link set dev ens1f0np0 vf 1 node_guid 02:11:22:ff:fe:33:44:01 "
			"port_guid 02:11:22:ff:fe:33:44:01");
	assert_contains(c->fix, "echo 0000:3b:00.3 > /sys/bus/pci/drivers/mlx5_core/unbind");
	teardown(x);
}

/* two VFs with a zero GUID (cx5_sriov: VF 3 and VF 7): the command for
 * each, not only for the last one found */
static void test_zero_vf_guids_each_fixed(void **state)
{
	struct fx *x = setup("cx5_sriov", NULL);
	const struct rn_check *c;

	(void)state;
	c = run(x, "vf-guids");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->fix, " vf 3 node_guid ");
	assert_contains(c->fix, " vf 7 node_guid ");
	assert_contains(c->fix, "bind; ip link set dev ");
	teardown(x);
}

static void test_port_down(void **state)
{
	struct fx *x = setup("port_down", NULL);
	const struct rn_check *c;

	(void)state;
	expect_only(x, "port-state", RN_CHECK_FAIL);
	c = run(x, "port-state");
	assert_contains(c->detail, "mlx5_1/1 is DOWN (Disabled), netdev ens1f1np1 is down");
	assert_contains(c->fix, "ip link set dev ens1f1np1 up");
	teardown(x);
}

static void test_netns_mode(void **state)
{
	struct fx *x = setup("netns_exclusive", NULL);
	const struct rn_check *c;

	(void)state;
	expect_only(x, "netns-mode", RN_CHECK_FAIL);
	c = run(x, "netns-mode");
	assert_contains(c->detail, "the system is exclusive, the config wants shared");
	assert_contains(c->fix, "rdma system set netns shared");
	assert_contains(c->fix, "options ib_core netns_mode=1");
	teardown(x);

	x = setup("netns_exclusive", "{\"netns_mode\": \"exclusive\"}");
	expect_only(x, "netns-mode", RN_CHECK_PASS);
	teardown(x);

	x = setup("cx5_healthy", "{\"netns_mode\": \"exclusive\"}");
	c = run(x, "netns-mode");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->fix, "netns_mode=0");
	teardown(x);

	x = setup("cx5_healthy", NULL);
	x->m.netns_mode = RN_NETNS_UNKNOWN;
	expect_only(x, "netns-mode", RN_CHECK_WARN);
	teardown(x);
}

static void test_rdma_core_missing(void **state)
{
	struct fx *x = setup("no_rdma_core", NULL);
	const struct rn_check *c;

	(void)state;
	expect_only(x, "rdma-core", RN_CHECK_FAIL);
	c = run(x, "rdma-core");
	assert_contains(c->detail, "rdma-core is not installed");
	assert_contains(c->fix, "apt-get install rdma-core ibverbs-providers");
	teardown(x);

	/* providers there, but libibverbs does not list every device */
	x = setup("cx5_healthy", NULL);
	x->m.verbs_devices = 2;
	expect_only(x, "rdma-core", RN_CHECK_FAIL);
	assert_contains(run(x, "rdma-core")->detail, "libibverbs lists 2 of 4 devices");
	assert_contains(run(x, "rdma-core")->fix, "/dev/infiniband");
	teardown(x);

	/* a device whose provider is not installed */
	x = setup("rxe", NULL);
	strcpy(x->m.devs[0].provider, "siw");
	c = run(x, "rdma-core");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "rxe0 needs the siw provider");
	assert_contains(c->fix, "ibverbs-providers");
	teardown(x);
}

static void test_modules_missing(void **state)
{
	struct fx *x = setup("no_modules", NULL);
	const struct rn_check *c;

	(void)state;
	c = run(x, "modules");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "ib_core not loaded; ib_uverbs not loaded");
	assert_contains(c->detail, "mlx5_core NIC ens1f0np0 without mlx5_ib");
	assert_string_equal(c->fix, "modprobe ib_core ib_uverbs mlx5_ib");
	c = run(x, "devices");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "no RDMA devices");
	assert_contains(c->fix, "modprobe mlx5_ib");
	assert_int_equal(run(x, "link-layer")->status, RN_CHECK_WARN);
	teardown(x);
}

static void test_infiniband_port(void **state)
{
	struct fx *x = setup("ib_port", NULL);
	const struct rn_check *c;

	(void)state;
	/* an IB port has no netdev: discovery skips it, selectors see it */
	assert_int_equal(x->f.n_masters, 1);
	expect_only(x, "link-layer", RN_CHECK_FAIL);
	c = run(x, "link-layer");
	assert_contains(c->detail, "mlx5_1/1 is InfiniBand, RoCE needs Ethernet");
	assert_contains(c->fix, "mlxconfig -d 0000:3b:00.1 set LINK_TYPE_P1=2");
	teardown(x);
}

static void test_selectors(void **state)
{
	struct fx *x = setup("cx5_healthy", "{\"selectors\": {\"vendors\": [\"15b3\"], "
				"\"deviceIDs\": [\"101d\"]}}");
	const struct rn_check *c;

	(void)state;
	c = run(x, "selectors");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "no device matches the selectors");
	assert_contains(c->detail, "mlx5_0: deviceID 1017 not in [101d]");
	assert_contains(c->fix, "\"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"]");
	teardown(x);

	x = setup("cx5_healthy", "{\"selectors\": {\"deviceIDs\": [\"1017\"]}}");
	expect_only(x, "selectors", RN_CHECK_PASS);
	assert_contains(run(x, "selectors")->detail, "2 of 4 devices match: mlx5_0 mlx5_1");
	teardown(x);
}

static void test_mtu(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);
	const struct rn_check *c;

	(void)state;
	/* what libibverbs reports when the HCA port lags the netdev's 9000 */
	x->m.devs[0].ports[0].active_mtu = 1024;
	expect_only(x, "mtu", RN_CHECK_FAIL);
	c = run(x, "mtu");
	assert_contains(c->detail, "ens1f0np0 MTU 9000 allows RoCE MTU 4096 but mlx5_0/1 runs at "
			"1024");
	assert_contains(c->fix, "ip link set dev ens1f0np0 mtu 9000");
	teardown(x);

	/* without libibverbs the RoCE MTU is unknown: a warning, not a pass */
	x = setup("cx5_healthy", NULL);
	for (int i = 0; i < x->m.n_devs; i++)
		x->m.devs[i].ports[0].active_mtu = 0;
	expect_only(x, "mtu", RN_CHECK_WARN);
	teardown(x);

	/* Soft-RoCE on a 1500-byte netdev: 1024 is right */
	x = setup("rxe", NULL);
	x->m.devs[0].ports[0].active_mtu = 1024;
	c = run(x, "mtu");
	assert_int_equal(c->status, RN_CHECK_PASS);
	assert_contains(c->detail, "eth0 MTU 1500, rxe0/1 RoCE MTU 1024");
	teardown(x);
}

static void test_pod_gids(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);
	const struct rn_check *c;

	(void)state;
	add_pod(x, "ens1f0np0", "172.16.11.21");
	add_pod(x, "ens1f0np0", "172.16.11.23");
	expect_only(x, "pod-gids", RN_CHECK_FAIL);
	c = run(x, "pod-gids");
	assert_contains(c->detail,
			"team/trainer-2 net1 172.16.11.23 has no RoCE v2 GID on mlx5_0/1");
	assert_null(strstr(c->detail, "172.16.11.21"));
	assert_contains(c->fix, "macvlan/ipvlan child of ens1f0np0");
	teardown(x);

	/* registered on a master that is no RDMA port */
	x = setup("cx5_healthy", NULL);
	add_pod(x, "ens9", "172.16.11.21");
	c = run(x, "pod-gids");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "master ens9 backs no RDMA port");
	teardown(x);

	/* the address is on the other port's device: not good enough */
	x = setup("cx5_healthy", NULL);
	add_pod(x, "ens1f1np1", "172.16.11.21");
	assert_int_equal(run(x, "pod-gids")->status, RN_CHECK_FAIL);
	teardown(x);
}

static void test_datapath(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);
	const struct rn_check *c;

	(void)state;
	x->f.bpffs_mounted = false;
	expect_only(x, "bpffs", RN_CHECK_FAIL);
	assert_contains(run(x, "bpffs")->fix, "mount -t bpf bpf /sys/fs/bpf");
	teardown(x);

	x = setup("cx5_healthy", NULL);
	x->f.maps_err = -ENOENT;
	c = run(x, "datapath");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "no pinned data-path maps under /sys/fs/bpf/rdmanet");
	assert_contains(c->fix, "start rdmanetd");
	assert_int_equal(run(x, "pod-gids")->status, RN_CHECK_WARN);
	teardown(x);

	x = setup("cx5_healthy", NULL);
	x->f.n_attached = 1;
	x->att[0].tc = 0;
	expect_only(x, "datapath", RN_CHECK_FAIL);
	c = run(x, "datapath");
	assert_contains(c->detail, "ens1f0np0: xdp native, tc none");
	assert_contains(c->detail, "ens1f1np1 is not attached");
	teardown(x);

	/* XDP: tc ingress counts rx without it; how bad that is depends */
	x = setup("cx5_healthy", NULL);
	x->att[0].xdp = 0;
	expect_only(x, "datapath", RN_CHECK_WARN);	/* auto on a NIC: it should have */
	assert_contains(run(x, "datapath")->detail, "ens1f0np0: XDP did not attach");
	strcpy(x->att[0].kind, "veth");			/* auto leaves it off on veth */
	expect_only(x, "datapath", RN_CHECK_PASS);
	assert_contains(run(x, "datapath")->detail, "xdp none (veth: rx counted by tc ingress)");
	x->att[0].xdp_mode = RN_XDP_MODE_OFF;
	expect_only(x, "datapath", RN_CHECK_PASS);
	x->att[0].xdp_mode = RN_XDP_MODE_NATIVE;	/* asked for, not there */
	expect_only(x, "datapath", RN_CHECK_FAIL);
	assert_contains(run(x, "datapath")->detail, "(xdp_mode asks for XDP)");
	teardown(x);
}

/* The bpffs fact the CLI gathers is about the pin dir or, while rdmanetd
 * has not made it, its nearest existing parent: the check says which. */
static void test_bpffs(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);
	char dir[64], pin[96], deep[128], file[96], want[512];
	const struct rn_check *c;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/rn_doctor_bpffs_%d_XXXXXX", getpid());
	assert_non_null(mkdtemp(dir));
	snprintf(pin, sizeof(pin), "%s/rdmanet", dir);
	x->f.pin_dir = pin;

	/* bpffs there, no pin dir yet: a pass that does not claim it holds it */
	expect_only(x, "bpffs", RN_CHECK_PASS);
	c = run(x, "bpffs");
	snprintf(want, sizeof(want), "bpffs at %s (pin dir %s not created yet: rdmanetd has not "
		 "run with it)", dir, pin);
	assert_string_equal(c->detail, want);
	snprintf(deep, sizeof(deep), "%s/a/b", pin);
	x->f.pin_dir = deep;
	snprintf(want, sizeof(want), "bpffs at %s (pin dir %s not created", dir, deep);
	assert_contains(run(x, "bpffs")->detail, want);
	x->f.pin_dir = pin;

	/* the pin dir exists */
	assert_int_equal(mkdir(pin, 0700), 0);
	expect_only(x, "bpffs", RN_CHECK_PASS);
	snprintf(want, sizeof(want), "bpffs holds pin dir %s", pin);
	assert_string_equal(run(x, "bpffs")->detail, want);

	/* no bpffs: the pin dir is on something else, or would be */
	x->f.bpffs_mounted = false;
	expect_only(x, "bpffs", RN_CHECK_FAIL);
	c = run(x, "bpffs");
	snprintf(want, sizeof(want), "pin dir %s is not on a bpf filesystem", pin);
	assert_contains(c->detail, want);
	assert_contains(c->fix, "mount -t bpf bpf /sys/fs/bpf");
	assert_int_equal(rmdir(pin), 0);
	expect_only(x, "bpffs", RN_CHECK_FAIL);
	c = run(x, "bpffs");
	snprintf(want, sizeof(want), "no bpf filesystem at %s, where pin dir %s would be created",
		 dir, pin);
	assert_contains(c->detail, want);
	assert_contains(c->fix, "mount -t bpf bpf /sys/fs/bpf");

	/* a path the walk cannot follow: said, not guessed */
	snprintf(file, sizeof(file), "%s/file", dir);
	fclose(fopen(file, "w"));
	snprintf(deep, sizeof(deep), "%s/rdmanet", file);
	x->f.pin_dir = deep;
	x->f.bpffs_mounted = true;
	expect_only(x, "bpffs", RN_CHECK_WARN);
	assert_contains(run(x, "bpffs")->detail, "Not a directory");
	unlink(file);
	rmdir(dir);
	teardown(x);
}

static void test_configured_master_without_port(void **state)
{
	struct fx *x = setup("cx5_healthy", NULL);
	const struct rn_check *c;

	(void)state;
	x->f.masters_configured = true;
	snprintf(x->masters[0], RN_IFNAMSIZ, "ens1f0np0");
	snprintf(x->masters[1], RN_IFNAMSIZ, "ens9");
	snprintf(x->att[1].ifname, RN_IFNAMSIZ, "ens9");
	c = run(x, "devices");
	assert_int_equal(c->status, RN_CHECK_FAIL);
	assert_contains(c->detail, "master ens9 backs no RDMA port");
	assert_contains(c->fix, "rdma link add rxe0 type rxe netdev ens9");
	/* the port checks look at the configured masters' ports only */
	assert_contains(run(x, "port-state")->detail, "1 port ACTIVE");
	teardown(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy),
		cmocka_unit_test(test_zero_vf_guid),
		cmocka_unit_test(test_zero_vf_guids_each_fixed),
		cmocka_unit_test(test_port_down),
		cmocka_unit_test(test_netns_mode),
		cmocka_unit_test(test_rdma_core_missing),
		cmocka_unit_test(test_modules_missing),
		cmocka_unit_test(test_infiniband_port),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_pod_gids),
		cmocka_unit_test(test_datapath),
		cmocka_unit_test(test_bpffs),
		cmocka_unit_test(test_configured_master_without_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
