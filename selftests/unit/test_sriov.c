// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* user/lib/sriov on the ConnectX-5 exclusive-mode fixture (cx5_sriov: a PF
 * with 12 of 16 VFs, two zero GUIDs, one VF in a pod, one VF whose RDMA
 * device is in another netns, an unmanaged second PF): discovery, the
 * config section, provisioning (idempotence, totalvfs, held VFs, other
 * PFs untouched, zero GUIDs fixed through recorded PF operations), holds
 * and the per-VF lock, the device plugin's view and the JSON view. Trees
 * that provisioning writes to are copies in a temporary directory. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "config.h"
#include "doctor/doctor.h"
#include "rdma/sysfs_attr.h"
#include "sriov/sriov.h"
#include "selftests/fixtures/fixtures.h"

/* ---- helpers ---------------------------------------------------------- */

struct tree {
	char dir[256];			/* the copy's root (holds sys/, dev/, etc/) */
	char state[300];		/* a state dir beside it */
	struct rn_rdma_roots roots;
};

static void tree_copy(struct tree *t)
{
	char sys[300];

	snprintf(t->dir, sizeof(t->dir), "/tmp/rn-sriov-XXXXXX");
	assert_int_equal(rn_fixture_copy("cx5_sriov", t->dir), 0);
	snprintf(t->state, sizeof(t->state), "%s/state", t->dir);
	snprintf(sys, sizeof(sys), "%s/sys", t->dir);
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&t->roots, sys);
}

static void tree_free(struct tree *t)
{
	assert_int_equal(rn_fixture_remove(t->dir), 0);
}

static void read_attr(const struct tree *t, const char *rel, char *buf, size_t size)
{
	assert_int_equal(rn_sysfs_read(buf, size, "%s/%s", t->roots.sys, rel), 0);
}

static void fixture_roots(struct rn_rdma_roots *r)
{
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(r, rn_fixture_sys("cx5_sriov"));
}

static void parse_cfg(const char *json, struct rn_sriov_config *c, const char *state)
{
	struct rn_error e = { 0 };
	json_t *j = json_loads(json, 0, NULL);

	assert_non_null(j);
	if (rn_sriov_config_parse(j, c, &e))
		fail_msg("%s: %s", json, e.msg);
	json_decref(j);
	c->wait_ms = 300;
	if (state)
		snprintf(c->state_dir, sizeof(c->state_dir), "%s", state);
}

static void hold_vf(const char *state, const char *pci, const char *pod)
{
	struct rn_sriov_hold h = { .vf = 5, .since = 1764000000, .complete = true };
	struct rn_error e = { 0 };

	snprintf(h.pci, sizeof(h.pci), "%s", pci);
	snprintf(h.pf_ifname, sizeof(h.pf_ifname), "ens1f0np0");
	snprintf(h.network, sizeof(h.network), "rail1");
	snprintf(h.container_id, sizeof(h.container_id), "c0ffee");
	snprintf(h.ifname, sizeof(h.ifname), "net1");
	snprintf(h.netns, sizeof(h.netns), "/var/run/netns/pod");
	snprintf(h.pod_namespace, sizeof(h.pod_namespace), "default");
	snprintf(h.pod_name, sizeof(h.pod_name), "%s", pod);
	snprintf(h.orig_netdev, sizeof(h.orig_netdev), "ens1f0v5");
	snprintf(h.orig_rdma_dev, sizeof(h.orig_rdma_dev), "mlx5_7");
	h.orig_mtu = 1500;
	h.orig_admin.valid = true;
	h.orig_admin.vlan_proto = 0x8100;
	h.orig_admin.spoofchk = 1;
	h.orig_admin.trust = 0;
	h.orig_admin.link_state = RN_VF_LINK_AUTO;
	if (rn_sriov_hold_write(state, &h, &e))
		fail_msg("%s", e.msg);
}

/* Recorded PF operations. Rebinding "the driver" writes the GUID mlx5
 * derives from the admin MAC, as the real driver does on probe. */
struct fake {
	const struct tree *t;
	int applies, rebinds, guid_sets, mtus;
	uint8_t mac[16][6];
	bool has_mac[16];
	char last_pf[RN_IFNAMSIZ];
	bool fail_rebind;
	uint64_t guid[16];		/* node GUIDs set through the PF (InfiniBand) */
	bool has_guid[16];
	bool guid_not_taken;		/* the VF comes back with another GUID */
};

static int vf_index_of_pci(const char *pci)
{
	unsigned int dev, fn;

	assert_int_equal(sscanf(pci, "0000:3b:%x.%u", &dev, &fn), 2);
	return (int)(dev * 8 + fn) - 2;
}

static int fake_apply(void *ctx, const char *pf, int vf, const struct rn_vf_settings *s,
		      struct rn_error *e)
{
	struct fake *f = ctx;

	(void)e;
	f->applies++;
	snprintf(f->last_pf, sizeof(f->last_pf), "%s", pf);
	if (s->has_mac && vf >= 0 && vf < 16) {
		memcpy(f->mac[vf], s->mac, 6);
		f->has_mac[vf] = true;
	}
	return 0;
}

static int fake_guids(void *ctx, const char *pf, int vf, uint64_t node, uint64_t port,
		      struct rn_error *e)
{
	struct fake *f = ctx;

	(void)pf; (void)port; (void)e;
	f->guid_sets++;
	if (vf >= 0 && vf < 16) {
		f->guid[vf] = node;
		f->has_guid[vf] = true;
	}
	return 0;
}

static int fake_rebind(void *ctx, const struct rn_rdma_roots *roots, const char *pci,
		       const char *driver, struct rn_error *e)
{
	struct fake *f = ctx;
	int vf = vf_index_of_pci(pci);
	char guid[32];
	const uint8_t *m = f->mac[vf];

	assert_string_equal(driver, "mlx5_core");
	f->rebinds++;
	if (f->fail_rebind)
		return rn_fail(e, -EIO, "VF %s: bind to %s: Input/output error", pci, driver);
	if (f->has_guid[vf]) {	/* InfiniBand: the driver probes with the GUID set */
		uint64_t g = f->guid[vf] ^ (f->guid_not_taken ? 1 : 0);

		snprintf(guid, sizeof(guid), "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
			 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
			 (unsigned int)g & 0xffff);
		return rn_sysfs_write(guid, "%s/bus/pci/devices/%s/infiniband/mlx5_%d/node_guid",
				      roots->sys, pci, vf + 2);
	}
	if (!f->has_mac[vf])
		return 0;	/* no admin MAC: the GUID stays zero */
	snprintf(guid, sizeof(guid), "%02x%02x:%02xff:fe%02x:%02x%02x", m[0], m[1], m[2], m[3],
		 m[4], m[5]);
	return rn_sysfs_write(guid, "%s/bus/pci/devices/%s/infiniband/mlx5_%d/node_guid",
			      roots->sys, pci, vf + 2);
}

static int fake_mtu(void *ctx, const char *ifname, unsigned int mtu, struct rn_error *e)
{
	struct fake *f = ctx;
	char v[16];

	(void)e;
	f->mtus++;
	snprintf(v, sizeof(v), "%u", mtu);
	return rn_sysfs_write(v, "%s/class/net/%s/mtu", f->t->roots.sys, ifname);
}

static int fake_admin_get(void *ctx, const char *pf, int vf, struct rn_vf_admin *out,
			  struct rn_error *e)
{
	(void)ctx; (void)pf; (void)vf; (void)out;
	return rn_fail(e, -ENOENT, "no netlink in a fixture");
}

static struct rn_sriov_ops fake_ops(struct fake *f)
{
	struct rn_sriov_ops o = { .vf_admin_get = fake_admin_get, .vf_apply = fake_apply,
				  .vf_set_guids = fake_guids, .vf_rebind = fake_rebind,
				  .netdev_set_mtu = fake_mtu, .ctx = f };
	return o;
}

static bool report_has(const struct rn_sriov_report *r, const char *needle)
{
	for (int i = 0; i < r->n_actions; i++)
		if (strstr(r->actions[i], needle))
			return true;
	return false;
}

static void print_report(const struct rn_sriov_report *r)
{
	for (int i = 0; i < r->n_actions; i++)
		printf("# %s\n", r->actions[i]);
}

/* ---- discovery -------------------------------------------------------- */

static void test_discover(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_sriov_host h;
	struct rn_error e = { 0 };
	const struct rn_sriov_pf *pf, *vpf = NULL;
	const struct rn_sriov_vf *vf;

	(void)state;
	fixture_roots(&roots);
	if (rn_sriov_discover(&h, &roots, true, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(h.n_pfs, 2);
	assert_false(h.admin_read);		/* a fixture is not this host */
	assert_non_null(strstr(h.note, "not this host"));
	pf = rn_sriov_find_pf(&h, "ens1f0np0");
	assert_non_null(pf);
	assert_ptr_equal(pf, rn_sriov_find_pf(&h, "0000:3b:00.0"));
	assert_string_equal(pf->vendor, "15b3");
	assert_string_equal(pf->device, "1017");
	assert_string_equal(pf->driver, "mlx5_core");
	assert_string_equal(pf->rdma_dev, "mlx5_0");
	assert_int_equal(pf->numvfs, 12);
	assert_int_equal(pf->totalvfs, 16);
	assert_int_equal(pf->n_vfs, 12);
	assert_true(pf->up);
	assert_int_equal(pf->mac[5], 0xa2);
	assert_string_equal(pf->vfs[0].pci, "0000:3b:00.2");
	assert_string_equal(pf->vfs[6].pci, "0000:3b:01.0");
	assert_string_equal(pf->vfs[11].pci, "0000:3b:01.5");
	for (int i = 0; i < 12; i++)
		assert_int_equal(pf->vfs[i].index, i);

	vf = rn_sriov_find_vf(&h, "0000:3b:00.6", &vpf);	/* VF 4 */
	assert_non_null(vf);
	assert_ptr_equal(vpf, pf);
	assert_string_equal(vf->netdev, "ens1f0v4");
	assert_string_equal(vf->rdma_dev, "mlx5_6");
	assert_string_equal(vf->node_guid, "0211:22ff:fe33:4404");
	assert_string_equal(vf->link_layer, "Ethernet");
	assert_string_equal(vf->driver, "mlx5_core");
	assert_int_equal(vf->mtu, 1500);

	assert_true(rn_rdma_guid_is_zero(pf->vfs[3].node_guid));
	assert_true(rn_rdma_guid_is_zero(pf->vfs[7].node_guid));
	/* VF 5 is in a pod: neither its netdev nor its RDMA device is here */
	assert_string_equal(pf->vfs[5].netdev, "");
	assert_string_equal(pf->vfs[5].rdma_dev, "");
	assert_string_equal(pf->vfs[5].driver, "mlx5_core");
	/* VF 9: netdev here, RDMA device in another netns */
	assert_string_equal(pf->vfs[9].netdev, "ens1f0v9");
	assert_string_equal(pf->vfs[9].rdma_dev, "");

	pf = rn_sriov_find_pf(&h, "ens1f1np1");
	assert_non_null(pf);
	assert_int_equal(pf->numvfs, 0);
	assert_int_equal(pf->totalvfs, 8);
	assert_int_equal(pf->n_vfs, 0);
	assert_null(rn_sriov_find_vf(&h, "0000:3b:00.0", NULL));	/* a PF is no VF */
	assert_null(rn_sriov_find_pf(&h, "ens9"));
	rn_sriov_host_free(&h);
}

static void test_discover_other_fixtures(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_sriov_host h;
	struct rn_error e = { 0 };

	(void)state;
	unsetenv(RN_SYSFS_ROOT_ENV);
	/* the older two-VF tree, and a tree without any PCI device */
	rn_rdma_roots_init(&roots, rn_fixture_sys("cx5"));
	assert_int_equal(rn_sriov_discover(&h, &roots, false, &e), 0);
	assert_int_equal(h.n_pfs, 2);
	assert_int_equal(h.pfs[0].n_vfs, 2);
	assert_true(rn_rdma_guid_is_zero(h.pfs[0].vfs[1].node_guid));
	rn_sriov_host_free(&h);
	rn_rdma_roots_init(&roots, rn_fixture_sys("rxe"));
	assert_int_equal(rn_sriov_discover(&h, &roots, false, &e), 0);
	assert_int_equal(h.n_pfs, 0);
	rn_sriov_host_free(&h);
}

static void test_pci_valid(void **state)
{
	(void)state;
	assert_true(rn_sriov_pci_valid("0000:3b:00.2"));
	assert_true(rn_sriov_pci_valid("0000:3b:1f.7"));
	assert_false(rn_sriov_pci_valid("0000:3b:00.8"));
	assert_false(rn_sriov_pci_valid("0000:3B:00.2"));
	assert_false(rn_sriov_pci_valid("3b:00.2"));
	assert_false(rn_sriov_pci_valid("0000:3b:00.2/../../x"));
	assert_false(rn_sriov_pci_valid(""));
	assert_false(rn_sriov_pci_valid("../../../etc"));
}

/* ---- config ------------------------------------------------------------ */

static void expect_config_error(const char *json, const char *needle)
{
	struct rn_config c;
	struct rn_error e = { 0 };

	assert_int_not_equal(rn_config_parse(&c, json, &e), 0);
	if (!strstr(e.msg, needle))
		fail_msg("\"%s\" not in \"%s\"", needle, e.msg);
}

static void test_config(void **state)
{
	struct rn_config c;
	struct rn_sriov_config sc;
	struct rn_error e = { 0 };

	(void)state;
	if (rn_config_parse(&c, "{\"sriov\": [{\"pf\": \"ens1f0np0\", \"numVfs\": 12, "
			    "\"isRdma\": true, \"mtu\": 9000, \"resourceName\": \"mellanoxroce\"},"
			    "{\"selectors\": {\"vendors\": [\"8086\"], \"deviceIDs\": [\"10c9\"], "
			    "\"rootDevices\": [\"0000:00:03.0\"], \"pfNames\": [\"eth1\"]}, "
			    "\"numVfs\": 2, \"resourceName\": \"igbvf\", \"resourcePrefix\": "
			    "\"intel.com\"}]}", &e))
		fail_msg("%s", e.msg);
	assert_int_equal(rn_sriov_config_get(&c, &sc, &e), 0);
	assert_int_equal(sc.n, 2);
	assert_string_equal(sc.pfs[0].pf, "ens1f0np0");
	assert_int_equal(sc.pfs[0].num_vfs, 12);
	assert_true(sc.pfs[0].is_rdma);
	assert_int_equal(sc.pfs[0].mtu, 9000);
	assert_string_equal(sc.pfs[0].resource_name, "mellanoxroce");
	assert_string_equal(sc.pfs[0].resource_prefix, "rdma");	/* the shared plugin's */
	assert_string_equal(sc.pfs[1].resource_prefix, "intel.com");
	assert_int_equal(sc.pfs[1].n_vendors, 1);
	assert_string_equal(sc.pfs[1].root_devices[0], "0000:00:03.0");
	assert_string_equal(sc.pfs[1].pf_names[0], "eth1");
	assert_false(sc.pfs[1].is_rdma);
	/* holds are where the node's CNI plugin keeps its state */
	assert_string_equal(sc.state_dir, c.cni.state_dir);
	rn_sriov_config_free(&sc);
	rn_config_free(&c);

	expect_config_error("{\"sriov\": {}}", "config.sriov: expected an array");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"numVfs\": 1, \"numvfs\": 2}]}",
			    "numvfs");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\"}]}", "sriov[0].numVfs: required");
	expect_config_error("{\"sriov\": [{\"numVfs\": 1}]}", "\"pf\" or \"selectors\" is required");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"selectors\": {\"vendors\": [\"15b3\"]},"
			    " \"numVfs\": 1}]}", "not both");
	expect_config_error("{\"sriov\": [{\"selectors\": {}, \"numVfs\": 1}]}",
			    "empty: it would select every PF");
	expect_config_error("{\"sriov\": [{\"selectors\": {\"rootDevices\": [\"3b:00.0\"]}, "
			    "\"numVfs\": 1}]}", "is not a PCI address");
	expect_config_error("{\"sriov\": [{\"selectors\": {\"driver\": [\"x\"]}, \"numVfs\": 1}]}",
			    "driver");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"numVfs\": 1}, {\"pf\": \"a\", "
			    "\"numVfs\": 2}]}", "listed twice");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"numVfs\": -1}]}", "numVfs");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"numVfs\": 1, \"mtu\": 10}]}", "mtu");
	expect_config_error("{\"sriov\": [{\"pf\": \"a\", \"numVfs\": 1, \"resourceName\": "
			    "\"a b\"}]}", "resourceName");
}

static void test_selectors(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_sriov_host h;
	struct rn_sriov_config c;
	struct rn_error e = { 0 };

	(void)state;
	fixture_roots(&roots);
	assert_int_equal(rn_sriov_discover(&h, &roots, false, &e), 0);
	parse_cfg("[{\"selectors\": {\"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"]}, "
		  "\"numVfs\": 12}]", &c, NULL);
	assert_true(rn_sriov_pf_matches(&c.pfs[0], &h.pfs[0]));
	assert_true(rn_sriov_pf_matches(&c.pfs[0], &h.pfs[1]));
	rn_sriov_config_free(&c);
	parse_cfg("[{\"selectors\": {\"vendors\": [\"15b3\"], \"rootDevices\": [\"0000:3b:00.1\"]},"
		  " \"numVfs\": 2}]", &c, NULL);
	assert_false(rn_sriov_pf_matches(&c.pfs[0], &h.pfs[0]));
	assert_true(rn_sriov_pf_matches(&c.pfs[0], &h.pfs[1]));
	rn_sriov_config_free(&c);
	parse_cfg("[{\"selectors\": {\"pfNames\": [\"ens1f0np0\"], \"deviceIDs\": [\"1018\"]}, "
		  "\"numVfs\": 2}]", &c, NULL);
	assert_false(rn_sriov_pf_matches(&c.pfs[0], &h.pfs[0]));	/* AND of lists */
	rn_sriov_config_free(&c);
	parse_cfg("[{\"pf\": \"0000:3b:00.0\", \"numVfs\": 12}]", &c, NULL);
	assert_ptr_equal(rn_sriov_config_for_pf(&c, &h.pfs[0]), &c.pfs[0]);
	assert_null(rn_sriov_config_for_pf(&c, &h.pfs[1]));
	rn_sriov_config_free(&c);
	rn_sriov_host_free(&h);
}

/* ---- provisioning ----------------------------------------------------- */

static void test_provision_fixes_guids_then_idempotent(void **state)
{
	struct tree t;
	struct fake f = { .t = &t };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_sriov_host h;
	struct rn_error e = { 0 };
	struct stat before, after;
	char path[4200], buf[64];
	const struct rn_sriov_pf *pf;

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");	/* VF 5, in a pod */
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, "
		  "\"resourceName\": \"mellanoxroce\"}]", &c, t.state);
	snprintf(path, sizeof(path), "%s/bus/pci/devices/0000:3b:00.0/sriov_numvfs", t.roots.sys);
	assert_int_equal(stat(path, &before), 0);
	sleep(1);	/* a rewrite would show in the mtime */

	if (rn_sriov_provision(&c, &t.roots, &ops, &r, &e))
		fail_msg("%s", e.msg);
	print_report(&r);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(before.st_mtime, after.st_mtime);	/* numvfs not rewritten */
	assert_false(report_has(&r, "sriov_numvfs"));
	assert_int_equal(r.guids_fixed, 2);
	assert_int_equal(r.guids_zero, 0);
	assert_int_equal(r.n_errors, 0);
	assert_int_equal(f.applies, 2);
	assert_int_equal(f.rebinds, 2);
	assert_string_equal(f.last_pf, "ens1f0np0");
	/* VF 3's admin MAC: 02 + PF MAC bytes 2..5 + vf+1 */
	assert_memory_equal(f.mac[3], ((uint8_t[]){ 0x02, 0x9a, 0x78, 0x6f, 0xa2, 0x04 }), 6);
	assert_true(report_has(&r, "vf 3 (0000:3b:00.5): admin MAC 02:9a:78:6f:a2:04, mlx5_core "
			       "rebound, node GUID 029a:78ff:fe6f:a204"));
	assert_true(report_has(&r, "vf 9 (0000:3b:01.3): no RDMA device"));
	read_attr(&t, "class/infiniband/mlx5_9/node_guid", buf, sizeof(buf));
	assert_string_equal(buf, "029a:78ff:fe6f:a208");
	/* the unmanaged PF is untouched */
	read_attr(&t, "bus/pci/devices/0000:3b:00.1/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "0");

	/* again: nothing left to do */
	memset(&f, 0, sizeof(f));
	f.t = &t;
	if (rn_sriov_provision(&c, &t.roots, &ops, &r, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(r.guids_fixed, 0);
	assert_int_equal(f.applies + f.rebinds + f.mtus + f.guid_sets, 0);
	for (int i = 0; i < r.n_actions; i++)	/* only the VF 9 finding */
		assert_non_null(strstr(r.actions[i], "vf 9"));

	/* and now every VF is healthy but the held one and VF 9 */
	assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
	pf = rn_sriov_find_pf(&h, "ens1f0np0");
	for (int i = 0; i < pf->n_vfs; i++)
		assert_false(rn_rdma_guid_is_zero(pf->vfs[i].node_guid));
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_provision_refuses_over_total(void **state)
{
	struct tree t;
	struct fake f = { .t = &t };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };
	char buf[16];

	(void)state;
	tree_copy(&t);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 17, \"isRdma\": true}]", &c, t.state);
	assert_int_equal(rn_sriov_provision(&c, &t.roots, &ops, &r, &e), -EINVAL);
	assert_string_equal(e.msg, "ens1f0np0: numVfs 17 is more than sriov_totalvfs 16: not "
			    "changed");
	read_attr(&t, "bus/pci/devices/0000:3b:00.0/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "12");
	assert_int_equal(f.applies + f.rebinds + f.mtus + f.guid_sets, 0);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_provision_sets_numvfs(void **state)
{
	struct tree t;
	struct fake f = { .t = &t };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };
	char buf[16];

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");
	/* the PF says 4 VFs (the tree still has the 12 the kernel will make) */
	assert_int_equal(rn_sysfs_write("4", "%s/bus/pci/devices/0000:3b:00.0/sriov_numvfs",
					t.roots.sys), 0);
	/* a held VF blocks the change: the kernel would destroy it */
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"mtu\": 9000}]", &c, t.state);
	assert_int_equal(rn_sriov_provision(&c, &t.roots, &ops, &r, &e), -EBUSY);
	assert_non_null(strstr(e.msg, "VF 0000:3b:00.7 is held by a pod: not changed"));
	read_attr(&t, "bus/pci/devices/0000:3b:00.0/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "4");
	assert_int_equal(f.mtus, 0);

	/* released: 4 -> 0 -> 12, then the MTU of every VF netdev here */
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", &e), 0);
	if (rn_sriov_provision(&c, &t.roots, &ops, &r, &e) != -ETIMEDOUT)
		fail_msg("expected a timeout waiting for VF 5's netdev: %s", e.msg);
	print_report(&r);
	assert_true(report_has(&r, "ens1f0np0: sriov_numvfs 4 -> 12"));
	assert_non_null(strstr(e.msg, "VF 0000:3b:00.7 has no netdev"));
	read_attr(&t, "bus/pci/devices/0000:3b:00.0/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "12");

	/* VF 5 "comes up" (a netdev appears): the MTUs are set */
	assert_int_equal(rn_sysfs_write("9000", "%s/class/net/ens1f0v4/mtu", t.roots.sys), 0);
	{
		char cmd[8400];

		snprintf(cmd, sizeof(cmd), "d='%s/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.7/net/"
			 "ens1f0v5'; mkdir -p \"$d\" && echo 1500 > \"$d/mtu\" && "
			 "ln -s ../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.7/net/ens1f0v5 "
			 "'%s/class/net/ens1f0v5'", t.roots.sys, t.roots.sys);
		assert_int_equal(system(cmd), 0);
	}
	memset(&f, 0, sizeof(f));
	f.t = &t;
	if (rn_sriov_provision(&c, &t.roots, &ops, &r, &e))
		fail_msg("%s", e.msg);
	print_report(&r);
	assert_false(report_has(&r, "sriov_numvfs"));		/* already 12 */
	assert_int_equal(f.mtus, 11);				/* 12 less ens1f0v4 */
	assert_true(report_has(&r, "vf 0 (ens1f0v0): mtu 1500 -> 9000"));
	assert_int_equal(f.rebinds, 0);				/* isRdma false */
	read_attr(&t, "bus/pci/devices/0000:3b:00.1/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "0");
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_provision_selects_nothing(void **state)
{
	struct tree t;
	struct fake f = { .t = &t };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };

	(void)state;
	tree_copy(&t);
	parse_cfg("[{\"pf\": \"ens9f0\", \"numVfs\": 4}]", &c, t.state);
	assert_int_equal(rn_sriov_provision(&c, &t.roots, &ops, &r, &e), -ENODEV);
	assert_string_equal(e.msg, "sriov[0]: pf ens9f0 selects no SR-IOV PF on this node");
	assert_int_equal(f.applies + f.rebinds + f.mtus, 0);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_provision_rebind_failure_reported(void **state)
{
	struct tree t;
	struct fake f = { .t = &t, .fail_rebind = true };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true}]", &c, t.state);
	assert_int_equal(rn_sriov_provision(&c, &t.roots, &ops, &r, &e), -EIO);
	assert_int_equal(r.guids_zero, 2);		/* both attempted */
	assert_int_equal(r.n_errors, 2);
	assert_true(report_has(&r, "error: VF 0000:3b:00.5: bind to mlx5_core"));
	rn_sriov_config_free(&c);
	tree_free(&t);
}

/* An InfiniBand VF: node/port GUIDs through the PF, no rebind. */
/* an InfiniBand VF's GUID comes from the PF's port GUID
 * (its IPoIB address's last 8 bytes, else its RDMA device's node GUID), not
 * from the IPoIB address's first bytes (QPN flags and fe:80, alike on
 * every node), and it is read back after the driver rebind */
static void ib_vf3(struct tree *t, const char *pf_address, const char *pf_node_guid, bool taken,
		   char *report_line, size_t size)
{
	struct fake f = { .t = t, .guid_not_taken = !taken };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };

	assert_int_equal(rn_sysfs_write("InfiniBand", "%s/class/infiniband/mlx5_5/ports/1/link_layer",
					t->roots.sys), 0);
	assert_int_equal(rn_sysfs_write("0000:0000:0000:0000", "%s/class/infiniband/mlx5_5/node_guid",
					t->roots.sys), 0);
	assert_int_equal(rn_sysfs_write(pf_address, "%s/class/net/ens1f0np0/address", t->roots.sys), 0);
	assert_int_equal(rn_sysfs_write(pf_node_guid, "%s/class/infiniband/mlx5_0/node_guid",
					t->roots.sys), 0);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true}]", &c, t->state);
	rn_sriov_provision(&c, &t->roots, &ops, &r, &e);
	print_report(&r);
	assert_int_equal(f.guid_sets, 1);		/* VF 3, InfiniBand */
	report_line[0] = '\0';
	for (int i = 0; i < r.n_actions; i++)
		if (strstr(r.actions[i], "vf 3 (0000:3b:00.5)"))
			snprintf(report_line, size, "%s", r.actions[i]);
	rn_sriov_config_free(&c);
}

static void test_provision_ib_guids(void **state)
{
	/* two nodes' IPoIB addresses: the same first 6 bytes, their own ports */
	const char *node_a = "00:00:10:87:fe:80:00:00:00:00:00:00:98:03:9b:03:00:a1:b2:c3";
	const char *node_b = "00:00:10:87:fe:80:00:00:00:00:00:00:98:03:9b:03:00:a1:b2:d4";
	struct tree t;
	char a[320], b[320];

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");
	ib_vf3(&t, node_a, "ec0d:9a03:0078:6fa2", true, a, sizeof(a));
	ib_vf3(&t, node_b, "ec0d:9a03:0078:6fa2", true, b, sizeof(b));
	/* the port GUID 9803:9b03:00a1:b2c3, local bit flipped, byte 3 = vf+1 */
	assert_string_equal(a, "ens1f0np0 vf 3 (0000:3b:00.5): node_guid/port_guid "
			    "9a03:9b04:00a1:b2c3 through the PF, mlx5_core rebound");
	assert_string_equal(b, "ens1f0np0 vf 3 (0000:3b:00.5): node_guid/port_guid "
			    "9a03:9b04:00a1:b2d4 through the PF, mlx5_core rebound");
	/* no IPoIB address: the PF RDMA device's node GUID identifies the port */
	ib_vf3(&t, "ec:0d:9a:78:6f:a2", "ec0d:9a03:0078:6fa2", true, a, sizeof(a));
	ib_vf3(&t, "ec:0d:9a:78:6f:a2", "ec0d:9a03:0078:6fb6", true, b, sizeof(b));
	assert_non_null(strstr(a, "node_guid/port_guid ee0d:9a04:0078:6fa2"));
	assert_non_null(strstr(b, "node_guid/port_guid ee0d:9a04:0078:6fb6"));
	/* read back: a VF that comes back with another GUID is an error */
	ib_vf3(&t, node_a, "ec0d:9a03:0078:6fa2", false, a, sizeof(a));
	assert_string_equal(a, "error: ens1f0np0 vf 3 (0000:3b:00.5): node GUID 9a03:9b04:00a1:b2c3 "
			    "set through the PF, the VF reports 9a03:9b04:00a1:b2c2 after a driver "
			    "rebind");
	tree_free(&t);
}

static void test_will_fix_guid(void **state)
{
	struct rn_rdma_roots roots;
	struct rn_sriov_host h;
	struct rn_sriov_config c;
	struct rn_error e = { 0 };
	char why[256];

	(void)state;
	fixture_roots(&roots);
	assert_int_equal(rn_sriov_discover(&h, &roots, false, &e), 0);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true}]", &c, NULL);
	assert_true(rn_sriov_will_fix_guid(&c, &h, "0000:3b:00.5", why, sizeof(why)));
	assert_non_null(strstr(why, "rdmanetd fixes it"));
	rn_sriov_config_free(&c);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12}]", &c, NULL);
	assert_false(rn_sriov_will_fix_guid(&c, &h, "0000:3b:00.5", why, sizeof(why)));
	assert_non_null(strstr(why, "\"isRdma\": false"));
	rn_sriov_config_free(&c);
	parse_cfg("[]", &c, NULL);
	assert_false(rn_sriov_will_fix_guid(&c, &h, "0000:3b:00.5", why, sizeof(why)));
	assert_non_null(strstr(why, "no \"sriov\" config entry manages PF ens1f0np0"));
	rn_sriov_config_free(&c);
	rn_sriov_host_free(&h);
}

/* ---- holds ------------------------------------------------------------ */

static void test_holds_and_lock(void **state)
{
	char dir[] = "/tmp/rn-sriov-hold-XXXXXX";
	struct rn_sriov_hold h, *list;
	struct rn_error e = { 0 };
	int fd1, fd2, n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(rn_sriov_hold_read(dir, "0000:3b:00.7", &h, &e), -ENOENT);
	hold_vf(dir, "0000:3b:00.7", "p1");
	assert_int_equal(rn_sriov_hold_read(dir, "0000:3b:00.7", &h, &e), 0);
	assert_string_equal(h.pod_name, "p1");
	assert_string_equal(h.orig_netdev, "ens1f0v5");
	assert_string_equal(h.orig_rdma_dev, "mlx5_7");
	assert_int_equal(h.orig_admin.spoofchk, 1);
	assert_int_equal(h.orig_admin.trust, 0);
	assert_int_equal(h.orig_admin.vlan_proto, 0x8100);
	assert_int_equal(h.since, 1764000000);
	assert_true(h.complete);
	hold_vf(dir, "0000:3b:01.0", "p2");
	assert_int_equal(rn_sriov_hold_list(dir, &list, &n, &e), 0);
	assert_int_equal(n, 2);
	free(list);

	/* the per-VF lock: a second taker waits (or, non-blocking, is told) */
	assert_int_equal(rn_sriov_hold_lock(dir, "0000:3b:00.7", true, &fd1, &e), 0);
	assert_int_equal(rn_sriov_hold_lock(dir, "0000:3b:00.7", true, &fd2, &e), -EWOULDBLOCK);
	assert_string_equal(e.msg, "VF 0000:3b:00.7 is being attached or detached by another "
			    "process");
	assert_int_equal(rn_sriov_hold_lock(dir, "0000:3b:01.0", true, &fd2, &e), 0);
	close(fd2);
	close(fd1);
	assert_int_equal(rn_sriov_hold_lock(dir, "0000:3b:00.7", true, &fd2, &e), 0);
	close(fd2);
	assert_int_equal(rn_sriov_hold_lock(dir, "../x", true, &fd2, &e), -EINVAL);

	assert_int_equal(rn_sriov_hold_remove(dir, "0000:3b:00.7", &e), 0);
	assert_int_equal(rn_sriov_hold_remove(dir, "0000:3b:00.7", &e), 0);	/* idempotent */
	assert_int_equal(rn_sriov_hold_read(dir, "0000:3b:00.7", &h, &e), -ENOENT);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		assert_int_equal(system(cmd), 0);
	}
}

/* ---- continuous reconciliation ------------------------------------------ */

/* provisioning runs again when its inputs change (a VF
 * the sweep freed gets its zero GUID fixed; a config reload applies), and
 * never races a CNI that holds a VF's lock (its hold maybe not written) */
static void test_reconcile(void **state)
{
	struct tree t;
	struct fake f = { .t = &t };
	struct rn_sriov_ops ops = fake_ops(&f);
	struct rn_sriov_reconciler st = { 0 };
	struct rn_sriov_config c;
	struct rn_sriov_report r;
	struct rn_error e = { 0 };
	char buf[64];
	bool ran;
	int fd;

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.5", "rebooted-pod");	/* VF 3, zero GUID, held */
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true}]", &c, t.state);
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_true(ran);
	assert_int_equal(r.guids_fixed, 1);		/* VF 7's; VF 3 is held */
	assert_false(report_has(&r, "vf 3 (0000:3b:00.5)"));
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_false(ran);				/* nothing changed */

	/* the sweep frees VF 3: its GUID is fixed at the next pass */
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.5", NULL), 0);
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_true(ran);
	assert_int_equal(r.guids_fixed, 1);
	assert_true(report_has(&r, "vf 3 (0000:3b:00.5): admin MAC"));
	read_attr(&t, "class/infiniband/mlx5_5/node_guid", buf, sizeof(buf));
	assert_string_not_equal(buf, "0000:0000:0000:0000");

	/* a config reload (an MTU) while a CNI holds VF 4's lock: VF 4 is left
	 * alone and tried again at every pass until the lock is gone */
	rn_sriov_config_free(&c);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, \"mtu\": 4200}]",
		  &c, t.state);
	assert_int_equal(rn_sriov_hold_lock(t.state, "0000:3b:00.6", true, &fd, &e), 0);
	f.mtus = 0;
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_true(ran);
	assert_int_equal(r.n_busy, 1);
	assert_true(report_has(&r, "vf 4 (0000:3b:00.6): a CNI is attaching or detaching it"));
	read_attr(&t, "class/net/ens1f0v4/mtu", buf, sizeof(buf));
	assert_string_not_equal(buf, "4200");
	read_attr(&t, "class/net/ens1f0v0/mtu", buf, sizeof(buf));
	assert_string_equal(buf, "4200");
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_true(ran);				/* the locked VF is retried */
	assert_int_equal(r.n_busy, 1);
	close(fd);
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_true(ran);
	assert_int_equal(r.n_busy, 0);
	read_attr(&t, "class/net/ens1f0v4/mtu", buf, sizeof(buf));
	assert_string_equal(buf, "4200");
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), 0);
	assert_false(ran);

	/* sriov_numvfs is not changed under a CNI at work either */
	rn_sriov_config_free(&c);
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 8, \"isRdma\": true}]", &c, t.state);
	assert_int_equal(rn_sriov_hold_lock(t.state, "0000:3b:00.2", true, &fd, &e), 0);
	assert_int_equal(rn_sriov_reconcile(&st, &c, &t.roots, &ops, &r, &ran, &e), -EBUSY);
	assert_true(report_has(&r, "VF 0000:3b:00.2 is being attached by a CNI: not changed"));
	read_attr(&t, "bus/pci/devices/0000:3b:00.0/sriov_numvfs", buf, sizeof(buf));
	assert_string_equal(buf, "12");
	close(fd);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

/* ---- device plugin view ------------------------------------------------ */

static void test_devices(void **state)
{
	struct tree t;
	struct rn_sriov_host h;
	struct rn_sriov_config c;
	struct rn_sriov_device *d;
	struct rn_error e = { 0 };
	int n, healthy = 0;

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, "
		  "\"resourceName\": \"mellanoxroce\"}]", &c, t.state);
	assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
	assert_int_equal(rn_sriov_devices(&c, &h, t.state, &d, &n, &e), 0);
	assert_int_equal(n, 12);
	for (int i = 0; i < n; i++) {
		assert_string_equal(d[i].resource_name, "mellanoxroce");
		assert_string_equal(d[i].resource_prefix, "rdma");
		healthy += d[i].healthy;
	}
	/* in use is not a health state: kubelet subtracts the pods' requests
	 * itself, so the held VF (its devices in the pod) stays Healthy */
	assert_int_equal(healthy, 9);
	assert_string_equal(d[0].pci, "0000:3b:00.2");
	assert_string_equal(d[0].uverbs, "/dev/infiniband/uverbs2");
	assert_string_equal(d[0].rdma_dev, "mlx5_2");
	assert_false(d[0].in_use);
	assert_false(d[3].healthy);
	assert_string_equal(d[3].why, "zero node GUID");
	assert_true(d[5].healthy);
	assert_true(d[5].in_use);
	assert_string_equal(d[5].held_by, "default/rdma-pod");
	assert_false(d[9].healthy);
	assert_string_equal(d[9].why, "no RDMA device in this netns");
	free(d);
	rn_sriov_host_free(&h);

	/* its pod deleted, the netdev not back from the dying netns: cannot
	 * serve until the agent has restored it */
	{
		struct rn_sriov_hold hold;

		assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &hold, &e), 0);
		hold.released = true;
		assert_int_equal(rn_sriov_hold_write(t.state, &hold, &e), 0);
		assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
		assert_int_equal(rn_sriov_devices(&c, &h, t.state, &d, &n, &e), 0);
		assert_false(d[5].healthy);
		assert_false(d[5].in_use);
		assert_string_equal(d[5].why, "being returned from default/rdma-pod's netns");
		free(d);
		rn_sriov_host_free(&h);
		hold.released = false;
		assert_int_equal(rn_sriov_hold_write(t.state, &hold, &e), 0);
	}

	/* the PF goes down: nothing is healthy */
	assert_int_equal(rn_sysfs_write("down", "%s/class/net/ens1f0np0/operstate", t.roots.sys), 0);
	assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
	assert_int_equal(rn_sriov_devices(&c, &h, t.state, &d, &n, &e), 0);
	for (int i = 0; i < n; i++)
		assert_false(d[i].healthy);
	assert_string_equal(d[0].why, "PF ens1f0np0 down");
	assert_string_equal(d[5].why, "PF ens1f0np0 down");	/* in use or not */
	assert_true(d[5].in_use);
	free(d);
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&c);

	/* no resourceName: no devices */
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12}]", &c, t.state);
	assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
	assert_int_equal(rn_sriov_devices(&c, &h, t.state, &d, &n, &e), 0);
	assert_int_equal(n, 0);
	free(d);
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_env_name(void **state)
{
	char buf[96];

	(void)state;
	rn_sriov_env_name("rdma/mellanoxroce", buf, sizeof(buf));
	assert_string_equal(buf, "PCIDEVICE_RDMA_MELLANOXROCE");
	rn_sriov_env_name("nvidia.com/mlnx_sriov-rdma", buf, sizeof(buf));
	assert_string_equal(buf, "PCIDEVICE_NVIDIA_COM_MLNX_SRIOV-RDMA");	/* '-' kept */
	rn_sriov_env_name("x", buf, 12);
	assert_string_equal(buf, "PCIDEVICE_X");
}

/* ---- views ------------------------------------------------------------ */

static void test_json_and_table(void **state)
{
	struct tree t;
	struct rn_sriov_host h;
	struct rn_sriov_config c;
	struct rn_error e = { 0 };
	json_t *j, *vf;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	tree_copy(&t);
	hold_vf(t.state, "0000:3b:00.7", "rdma-pod");
	parse_cfg("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, "
		  "\"resourceName\": \"mellanoxroce\"}]", &c, t.state);
	assert_int_equal(rn_sriov_discover(&h, &t.roots, false, &e), 0);
	j = rn_sriov_host_to_json(&h, &c, t.state);
	assert_int_equal(json_array_size(json_object_get(j, "pfs")), 2);
	assert_true(json_is_true(json_object_get(json_array_get(json_object_get(j, "pfs"), 0),
						 "managed")));
	assert_true(json_is_false(json_object_get(json_array_get(json_object_get(j, "pfs"), 1),
						  "managed")));
	vf = json_array_get(json_object_get(json_array_get(json_object_get(j, "pfs"), 0), "vfs"), 5);
	assert_string_equal(json_string_value(json_object_get(json_object_get(vf, "held_by"), "pod")),
			    "rdma-pod");
	assert_string_equal(json_string_value(json_object_get(json_object_get(vf, "held_by"),
							      "since")), "2025-11-24T16:00:00Z");
	/* VF 5 is in a pod: no netdev or RDMA device here, null as in dev -j */
	assert_true(json_is_null(json_object_get(vf, "netdev")));
	assert_true(json_is_null(json_object_get(vf, "rdma_dev")));
	vf = json_array_get(json_object_get(json_array_get(json_object_get(j, "pfs"), 0), "vfs"), 3);
	assert_true(json_is_true(json_object_get(vf, "guid_zero")));
	assert_true(json_is_null(json_object_get(vf, "held_by")));
	json_decref(j);

	f = open_memstream(&out, &len);
	rn_sriov_host_print(f, &h, &c, t.state);
	fclose(f);
	assert_non_null(strstr(out, "pf 0000:3b:00.0 ens1f0np0 15b3:1017 up rdma mlx5_0 vfs 12/16 "
			       "managed resource mellanoxroce"));
	assert_non_null(strstr(out, "default/rdma-pod net1 since 2025-11-24T16:00:00Z"));
	assert_non_null(strstr(out, "0000:3b:00.5 ens1f0v3        mlx5_5     0000:0000:0000:0000 -"
			       "  ZERO GUID"));
	assert_non_null(strstr(out, "pf 0000:3b:00.1 ens1f1np1 15b3:1017 up rdma mlx5_1 vfs 0/8 "
			       "unmanaged"));
	free(out);
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&c);
	tree_free(&t);
}

static void test_admin_format(void **state)
{
	struct rn_vf_admin a = { .valid = true, .mac = { 2, 0, 0, 0, 0, 1 }, .vlan = 10, .qos = 3,
				 .vlan_proto = 0x88a8, .spoofchk = 1, .trust = 0,
				 .link_state = RN_VF_LINK_AUTO, .max_tx_rate = 100 };
	struct rn_vf_settings s;
	char buf[256];

	(void)state;
	rn_sriov_admin_format(&a, 0, buf, sizeof(buf));
	assert_string_equal(buf, "vf 0 link/ether 02:00:00:00:00:01 vlan 10 proto 802.1ad qos 3 "
			    "max_tx_rate 100Mbps min_tx_rate 0Mbps spoof checking on "
			    "link-state auto trust off");
	rn_sriov_settings_from_admin(&a, &s);
	assert_true(s.has_mac && s.has_vlan && s.has_spoofchk && s.has_trust &&
		    s.has_link_state && s.has_rate);
	assert_int_equal(s.vlan, 10);
	assert_int_equal(s.vlan_proto, 0x88a8);
	a.spoofchk = -1;
	rn_sriov_settings_from_admin(&a, &s);
	assert_false(s.has_spoofchk);
}

/* doctor's VF GUID check says whether rdmanetd will fix the zero GUIDs */
static void run_guid_check(const char *sriov_json, bool with_sriov, struct rn_check *c)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_sriov_host h;
	struct rn_sriov_config sc;
	struct rn_doctor_facts f = { 0 };
	struct rn_error e = { 0 };

	fixture_roots(&roots);
	assert_int_equal(rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS, &e), 0);
	assert_int_equal(rn_sriov_discover(&h, &roots, false, &e), 0);
	parse_cfg(sriov_json, &sc, NULL);
	f.model = &m;
	if (with_sriov) {
		f.sriov = &sc;
		f.sriov_host = &h;
	}
	memset(c, 0, sizeof(*c));
	rn_check_vf_guids(&f, c);
	rn_sriov_config_free(&sc);
	rn_sriov_host_free(&h);
	rn_rdma_model_free(&m);
}

static void test_doctor_says_who_fixes(void **state)
{
	struct rn_check c;

	(void)state;
	run_guid_check("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true}]", true, &c);
	assert_int_equal(c.status, RN_CHECK_WARN);
	assert_non_null(strstr(c.detail, "mlx5_5: rdmanetd fixes it at start-up"));
	assert_non_null(strstr(c.detail, "mlx5_9: rdmanetd fixes it at start-up"));
	run_guid_check("[{\"pf\": \"ens1f0np0\", \"numVfs\": 12}]", true, &c);
	assert_int_equal(c.status, RN_CHECK_FAIL);
	assert_non_null(strstr(c.detail, "mlx5_5: rdmanetd will not fix it: the \"sriov\" entry "
			       "of PF ens1f0np0 has \"isRdma\": false"));
	run_guid_check("[]", false, &c);
	assert_int_equal(c.status, RN_CHECK_FAIL);
	assert_non_null(strstr(c.detail, "rdmanetd will not fix it: the config has no \"sriov\" "
			       "section"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discover),
		cmocka_unit_test(test_discover_other_fixtures),
		cmocka_unit_test(test_pci_valid),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_selectors),
		cmocka_unit_test(test_provision_fixes_guids_then_idempotent),
		cmocka_unit_test(test_provision_refuses_over_total),
		cmocka_unit_test(test_provision_sets_numvfs),
		cmocka_unit_test(test_provision_selects_nothing),
		cmocka_unit_test(test_provision_rebind_failure_reported),
		cmocka_unit_test(test_provision_ib_guids),
		cmocka_unit_test(test_reconcile),
		cmocka_unit_test(test_will_fix_guid),
		cmocka_unit_test(test_holds_and_lock),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_env_name),
		cmocka_unit_test(test_json_and_table),
		cmocka_unit_test(test_admin_format),
		cmocka_unit_test(test_doctor_says_who_fixes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
