// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The agent's SR-IOV leak sweep (rn_sriov_sweep) on a copy of the cx5_sriov
 * fixture, in a network and mount namespace of the test's own (veth links
 * stand in for the VF netdevs the fixture names, bind mounts of a netns
 * file for the runtime's /run/netns): a VF is given back only
 * when its netdev is back in this netns (or the VF is gone). A netns path
 * the sweep cannot see (a tmpfs over the directory, as in an agent
 * container without /run/netns; the directory missing; the path naming
 * another netns) keeps the hold and touches nothing; a pod deleted while
 * its netns was still dying (a released hold) keeps it until the kernel
 * has returned the netdev, then the VF is restored. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "netdev.h"
#include "rdma/sysfs_attr.h"
#include "sriov/sriov.h"
#include "selftests/fixtures/fixtures.h"

struct tree {
	char dir[256];			/* the fixture copy: sys/, and state/, netns/ beside */
	char state[300];
	char netns_dir[300];		/* stands in for /run/netns */
	struct rn_rdma_roots roots;
};

static struct tree t;

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	char sys[300];

	(void)state;
	if (geteuid() || unshare(CLONE_NEWNET | CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	snprintf(t.dir, sizeof(t.dir), "/tmp/rn-sweep-XXXXXX");
	if (rn_fixture_copy("cx5_sriov", t.dir))
		return -1;
	snprintf(t.state, sizeof(t.state), "%s/state", t.dir);
	snprintf(t.netns_dir, sizeof(t.netns_dir), "%s/netns", t.dir);
	snprintf(sys, sizeof(sys), "%s/sys", t.dir);
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&t.roots, sys);
	return mkdir(t.netns_dir, 0755);
}

static int teardown(void **state)
{
	(void)state;
	umount2(t.netns_dir, MNT_DETACH);
	return rn_fixture_remove(t.dir);
}

/* A pod netns at netns_dir/name: this process's own, bind-mounted as the
 * runtime does ("ip netns add"). */
static void pod_netns(const char *name, char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/%s", t.netns_dir, name);
	fd = open(path, O_CREAT | O_RDONLY, 0444);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mount("/proc/self/ns/net", path, NULL, MS_BIND, NULL), 0);
}

/* What ADD writes: VF vf (pci) of ens1f0np0 in netns, its identity
 * recorded; the original admin settings unknown (a fixture has none), so a
 * restore changes only the netdev. */
static void hold(const char *pci, int vf, const char *netns, bool released)
{
	struct rn_sriov_hold h = { .vf = vf, .since = 1764000000, .complete = true,
				   .released = released, .orig_mtu = 1500,
				   .orig_mac = { 0x02, 0, 0, 0, 0, 0x05 } };
	struct rn_error e = { 0 };
	struct stat st;

	snprintf(h.pci, sizeof(h.pci), "%s", pci);
	snprintf(h.pf_ifname, sizeof(h.pf_ifname), "ens1f0np0");
	snprintf(h.network, sizeof(h.network), "rail1");
	snprintf(h.container_id, sizeof(h.container_id), "c0ffee%d", vf);
	snprintf(h.ifname, sizeof(h.ifname), "net1");
	snprintf(h.netns, sizeof(h.netns), "%s", netns);
	if (!stat(netns, &st)) {
		h.netns_dev = st.st_dev;
		h.netns_ino = st.st_ino;
	}
	snprintf(h.pod_namespace, sizeof(h.pod_namespace), "default");
	snprintf(h.pod_name, sizeof(h.pod_name), "pod%d", vf);
	snprintf(h.orig_netdev, sizeof(h.orig_netdev), "ens1f0v%d", vf);
	snprintf(h.orig_rdma_dev, sizeof(h.orig_rdma_dev), "mlx5_%d", vf + 2);
	if (rn_sriov_hold_write(t.state, &h, &e))
		fail_msg("%s", e.msg);
}

static bool held(const char *pci)
{
	struct rn_sriov_hold h;

	return rn_sriov_hold_read(t.state, pci, &h, NULL) == 0;
}

/* The hold file's bytes: a sweep that keeps a hold leaves it as it was. */
static char *hold_text(const char *pci)
{
	static char buf[8192];
	char path[600];
	ssize_t n;
	int fd;

	assert_int_equal(rn_sriov_hold_path(t.state, pci, path, sizeof(path)), 0);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	return buf;
}

static int sweep(struct rn_sriov_report *r)
{
	struct rn_error e = { 0 };

	return rn_sriov_sweep(t.state, &t.roots, r, &e);
}

static bool said(const struct rn_sriov_report *r, const char *needle)
{
	for (int i = 0; i < r->n_actions; i++)
		if (strstr(r->actions[i], needle))
			return true;
	return false;
}

/* The kernel returns VF vf's netdev: a link of that name here, and the
 * fixture's sysfs showing it under the VF's PCI function. */
static void netdev_back(const char *pci, const char *name)
{
	char dir[5000];

	snprintf(dir, sizeof(dir), "%s/bus/pci/devices/%s/net/%s", t.roots.sys, pci, name);
	assert_int_equal(sh("mkdir -p '%s' && ip link add %s mtu 9000 type veth peer name %s-p && "
			    "ip link set %s address 02:aa:bb:cc:dd:ee up", dir, name, name, name), 0);
}

static void netdev_gone(const char *pci, const char *name)
{
	sh("ip link del %s 2>/dev/null; rm -rf '%s/bus/pci/devices/%s/net/%s'", name, t.roots.sys,
	   pci, name);
}

static void test_live_pod_left_alone(void **state)
{
	struct rn_sriov_report r;
	char ns[400];

	(void)state;
	pod_netns("cni-live", ns, sizeof(ns));
	hold("0000:3b:00.7", 5, ns, false);
	assert_int_equal(sweep(&r), 0);
	assert_int_equal(r.n_actions, 0);
	assert_true(held("0000:3b:00.7"));
	umount2(ns, MNT_DETACH);
	unlink(ns);
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", NULL), 0);
}

/* the agent's container without the runtime's netns directory
 * (a tmpfs over it is what such a container sees) */
static void test_unseen_netns_kept(void **state)
{
	struct rn_sriov_report r;
	char ns[400], *before;

	(void)state;
	pod_netns("cni-live", ns, sizeof(ns));
	hold("0000:3b:00.7", 5, ns, false);
	before = strdup(hold_text("0000:3b:00.7"));
	assert_int_equal(mount("tmpfs", t.netns_dir, "tmpfs", 0, NULL), 0);
	assert_int_equal(sweep(&r), 0);
	assert_true(held("0000:3b:00.7"));
	assert_string_equal(hold_text("0000:3b:00.7"), before);
	assert_int_equal(r.n_errors, 0);
	assert_int_equal(r.n_kept, 1);
	assert_int_equal(r.n_actions, 1);
	assert_true(said(&r, "kept: VF 0000:3b:00.7 of default/pod5: its netns "));
	assert_true(said(&r, "is not visible here (removed and still being torn down, or not "
			 "mounted here), and its netdev is not back in this netns"));

	assert_int_equal(umount2(t.netns_dir, MNT_DETACH), 0);
	/* the directory not there at all */
	{
		struct rn_sriov_hold h;
		char why[600];

		assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &h, NULL), 0);
		snprintf(h.netns, sizeof(h.netns), "/run/rn-no-such-dir/cni-live");
		assert_int_equal(rn_sriov_hold_where(&t.roots, &h, why, sizeof(why)),
				 RN_SRIOV_HOLD_UNSEEN);
		assert_non_null(strstr(why, "the netns directory /run/rn-no-such-dir is not visible "
				       "to this process"));
		/* a path that names another netns now (a reused /proc/PID) */
		snprintf(h.netns, sizeof(h.netns), "/proc/self/ns/net");
		h.netns_ino++;
		assert_int_equal(rn_sriov_hold_where(&t.roots, &h, why, sizeof(why)),
				 RN_SRIOV_HOLD_UNSEEN);
		assert_non_null(strstr(why, "/proc/self/ns/net names another netns now"));
		h.netns_ino = 0;	/* an older hold: any netns there is its own */
		assert_int_equal(rn_sriov_hold_where(&t.roots, &h, why, sizeof(why)),
				 RN_SRIOV_HOLD_IN_POD);
	}
	free(before);
	umount2(ns, MNT_DETACH);
	unlink(ns);
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", NULL), 0);
}

/* DEL ran while the pod's netns was still dying */
static void test_released_waits_for_netdev(void **state)
{
	struct rn_sriov_report r;
	struct rn_netdev nd;
	char ns[400];

	(void)state;
	snprintf(ns, sizeof(ns), "%s/cni-dying", t.netns_dir);
	hold("0000:3b:00.7", 5, ns, true);
	assert_int_equal(sweep(&r), 0);
	assert_true(held("0000:3b:00.7"));
	assert_int_equal(r.n_kept, 1);
	assert_true(said(&r, "(DEL has run: the pod's netns is still being torn down)"));

	/* the netns dies: the kernel returns the netdev under the pod's name */
	netdev_back("0000:3b:00.7", "net1");
	assert_int_equal(sweep(&r), 0);
	assert_int_equal(r.n_errors, 0);
	assert_false(held("0000:3b:00.7"));
	assert_true(said(&r, "VF 0000:3b:00.7 (ens1f0np0 vf 5) of default/pod5 restored as "
			 "ens1f0v5: its netns "));
	assert_int_equal(rn_netdev_get("ens1f0v5", 0, &nd, NULL), 0);
	assert_int_equal(nd.mtu, 1500);
	assert_memory_equal(nd.mac, ((uint8_t[]){ 0x02, 0, 0, 0, 0, 0x05 }), 6);
	assert_false(nd.up);	/* left down */
	netdev_gone("0000:3b:00.7", "ens1f0v5");
	netdev_gone("0000:3b:00.7", "net1");
}

/* a hold whose netns is gone and whose netdev is back, released or not
 * (the agent down while the pod died, a node reboot) */
static void test_returned_restored(void **state)
{
	struct rn_sriov_report r;
	char ns[400];

	(void)state;
	snprintf(ns, sizeof(ns), "%s/cni-gone", t.netns_dir);
	hold("0000:3b:00.7", 5, ns, false);
	netdev_back("0000:3b:00.7", "ens1f0v5");
	assert_int_equal(sweep(&r), 0);
	assert_int_equal(r.n_errors, 0);
	assert_false(held("0000:3b:00.7"));
	assert_true(said(&r, "restored as ens1f0v5"));
	netdev_gone("0000:3b:00.7", "ens1f0v5");
}

/* a VF the DRA driver holds for a claim (no netns: no pod has it yet) is
 * the claim's until NodeUnprepareResources, its netdev in the host or not;
 * the record round-trips its claim */
static void test_dra_claim_kept(void **state)
{
	struct rn_sriov_report r;
	struct rn_sriov_hold h;
	struct rn_error e = { 0 };

	(void)state;
	hold("0000:3b:00.7", 5, "", false);
	assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &h, &e), 0);
	snprintf(h.claim_uid, sizeof(h.claim_uid), "0b6c5a8e-1f2d-4c3b-9a8e-7f6d5c4b3a21");
	assert_int_equal(rn_sriov_hold_write(t.state, &h, &e), 0);
	netdev_back("0000:3b:00.7", "ens1f0v5");
	assert_int_equal(sweep(&r), 0);
	assert_int_equal(r.n_errors, 0);
	assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &h, &e), 0);
	assert_string_equal(h.claim_uid, "0b6c5a8e-1f2d-4c3b-9a8e-7f6d5c4b3a21");
	assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", &e), 0);
	netdev_gone("0000:3b:00.7", "ens1f0v5");
}

/* a claim's VF back from its pod, whose netns is gone: held for the claim
 * again exactly as the DRA driver holds it (rn_sriov_hold_for_claim: the
 * claim's names and network, not the last pod's); a pod's hold of an older
 * agent, which does not name the claim, keeps the pod's names */
static void test_claim_hold_back(void **state)
{
	static const char *uid = "0b6c5a8e-1f2d-4c3b-9a8e-7f6d5c4b3a21";
	struct rn_sriov_report r;
	struct rn_sriov_hold h, want;
	struct rn_error e = { 0 };
	char ns[400];

	(void)state;
	snprintf(ns, sizeof(ns), "%s/cni-gone", t.netns_dir);
	for (int older = 0; older < 2; older++) {
		hold("0000:3b:00.7", 5, ns, false);
		assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &h, &e), 0);
		snprintf(h.claim_uid, sizeof(h.claim_uid), "%s", uid);
		if (!older) {
			snprintf(h.claim_namespace, sizeof(h.claim_namespace), "team-a");
			snprintf(h.claim_name, sizeof(h.claim_name), "nic-claim");
			snprintf(h.claim_network, sizeof(h.claim_network), "dra:rdma.rdmanet.io");
		}
		assert_int_equal(rn_sriov_hold_write(t.state, &h, &e), 0);
		rn_sriov_hold_for_claim(&h, &want);
		netdev_back("0000:3b:00.7", "ens1f0v5");
		assert_int_equal(sweep(&r), 0);
		assert_int_equal(r.n_errors, 0);
		assert_int_equal(rn_sriov_hold_read(t.state, "0000:3b:00.7", &h, &e), 0);
		assert_string_equal(h.claim_uid, uid);
		assert_string_equal(h.container_id, "");
		assert_string_equal(h.netns, "");
		assert_string_equal(h.pod_namespace, older ? "default" : "team-a");
		assert_string_equal(h.pod_name, older ? "pod5" : "nic-claim");
		assert_string_equal(h.network, older ? "dra" : "dra:rdma.rdmanet.io");
		assert_string_equal(h.claim_namespace, want.claim_namespace);
		assert_string_equal(h.claim_name, want.claim_name);
		assert_string_equal(h.claim_network, want.claim_network);
		assert_string_equal(h.orig_netdev, want.orig_netdev);
		assert_int_equal(h.vf, 5);
		assert_int_equal(rn_sriov_hold_remove(t.state, "0000:3b:00.7", &e), 0);
		netdev_gone("0000:3b:00.7", "ens1f0v5");
	}
}

static void test_vf_gone(void **state)
{
	struct rn_sriov_report r;
	char ns[400];

	(void)state;
	snprintf(ns, sizeof(ns), "%s/cni-gone", t.netns_dir);
	hold("0000:3b:02.7", 21, ns, false);	/* no such VF (sriov_numvfs lowered) */
	assert_int_equal(sweep(&r), 0);
	assert_false(held("0000:3b:02.7"));
	assert_true(said(&r, "VF 0000:3b:02.7 (ens1f0np0 vf 21) of default/pod21 no longer exists"));
}

/* a CNI at work on the VF (its lock held) finishes its own job */
static void test_locked_left_alone(void **state)
{
	struct rn_sriov_report r;
	char ns[400];
	int fd;

	(void)state;
	snprintf(ns, sizeof(ns), "%s/cni-gone", t.netns_dir);
	hold("0000:3b:00.7", 5, ns, false);
	netdev_back("0000:3b:00.7", "ens1f0v5");
	assert_int_equal(rn_sriov_hold_lock(t.state, "0000:3b:00.7", true, &fd, NULL), 0);
	if (fork() == 0)
		_exit(sweep(&r) || !held("0000:3b:00.7") || r.n_actions);
	{
		int status;

		wait(&status);
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	close(fd);
	assert_int_equal(sweep(&r), 0);
	assert_false(held("0000:3b:00.7"));
	netdev_gone("0000:3b:00.7", "ens1f0v5");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_live_pod_left_alone),
		cmocka_unit_test(test_unseen_netns_kept),
		cmocka_unit_test(test_released_waits_for_netdev),
		cmocka_unit_test(test_returned_restored),
		cmocka_unit_test(test_dra_claim_kept),
		cmocka_unit_test(test_claim_hold_back),
		cmocka_unit_test(test_vf_gone),
		cmocka_unit_test(test_locked_left_alone),
	};

	if (geteuid()) {
		printf("1..0 # SKIP needs root (network and mount namespaces)\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
