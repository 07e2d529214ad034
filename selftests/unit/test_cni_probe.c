// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The plugin's ARP/NDP prober on a real link whose state changes under it.
 *
 * A packet socket bound to a link that goes down keeps ENETDOWN pending
 * until the next send or receive reports it (the kernel unhooks the socket
 * on down and hooks it again on up). A link that went down and came back up
 * during the checks must not fail an ADD: the prober sends its requests
 * again and goes on within its window. A link that stays down still fails.
 *
 * The test runs in a network namespace of its own (unshare), with a veth
 * whose peer sits in a second private namespace held by a child process
 * (gone with it): p0 here, g0 there, answering for the addresses the test
 * puts on it. Needs root; skipped without it. */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "log.h"
#include "user/cni/probe_arp.c"
#include "user/cni/probe_ndp.c"
#include "user/cni/probe_run.c"
#include "monotonic.h"

static pid_t peer;		/* holds the peer namespace */
static bool have_netns;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/* in the peer namespace */
#define PEER "nsenter -t %d -n "

static int topo_up(void **state)
{
	int ready[2];
	char c;

	(void)state;
	if (geteuid() || unshare(CLONE_NEWNET) || pipe(ready))
		return 0;
	peer = fork();
	if (peer < 0)
		return -1;
	if (!peer) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		c = unshare(CLONE_NEWNET) ? 'x' : 'y';
		if (write(ready[1], &c, 1) != 1 || c != 'y')
			_exit(1);
		for (;;)
			pause();
	}
	if (read(ready[0], &c, 1) != 1 || c != 'y')
		return -1;
	close(ready[0]);
	close(ready[1]);
	/* the plugin turns DAD off in the pod; the peer's link-local address
	 * must be usable at once too */
	if (sh("sysctl -qw net.ipv6.conf.default.accept_dad=0 && "
	       PEER "sysctl -qw net.ipv6.conf.default.accept_dad=0", peer) ||
	    sh("ip link add p0 type veth peer name g0 netns %d", peer) ||
	    sh(PEER "ip link set g0 address 02:00:00:00:99:fe up", peer) ||
	    sh("ip link set p0 up"))
		return -1;
	have_netns = true;
	return 0;
}

static int topo_down(void **state)
{
	(void)state;
	if (peer > 0) {
		kill(peer, SIGKILL);
		waitpid(peer, NULL, 0);
	}
	return 0;
}

static void mac_of(const char *ifname, uint8_t mac[6])
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	assert_int_equal(ioctl(fd, SIOCGIFHWADDR, &ifr), 0);
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	close(fd);
}

struct rig {
	struct cni_prober p;
	struct cni_probe t[2];
	unsigned int n;
	struct cni_probe_opts o;
	struct rn_error e;
};

/* A prober on p0 (opened while it is up, as ADD does) for the gateway
 * addresses given (NULL: none), the way the gateway check asks. */
static void rig_open(struct rig *r, const char *v4, const char *v6, unsigned int timeout_ms,
		     unsigned int probes)
{
	uint8_t mac[6];

	if (!have_netns)
		skip();
	memset(r, 0, sizeof(*r));
	assert_int_equal(sh("ip link set p0 up"), 0);
	sh(PEER "ip addr flush dev g0 scope global", peer);
	mac_of("p0", mac);
	if (v4) {
		assert_int_equal(rn_addr_parse(v4, &r->t[r->n].target), 0);
		assert_int_equal(rn_addr_parse("10.99.0.10", &r->t[r->n].sender), 0);
		r->n++;
	}
	if (v6)
		assert_int_equal(rn_addr_parse(v6, &r->t[r->n++].target), 0);
	r->o = (struct cni_probe_opts){ .enabled = true, .timeout_ms = timeout_ms,
					.probes = probes };
	assert_int_equal(cni_prober_open(&r->p, (int)if_nametoindex("p0"), "p0", mac, v4 != NULL,
					 v6 != NULL, &r->e), 0);
}

static int rig_run(struct rig *r)
{
	int rc = cni_probe_run(&r->p, r->t, r->n, &r->o, CNI_PROBE_ALL_ANSWERED, &r->e);

	if (rc < 0)
		print_message("# probe run: %s\n", r->e.msg);
	cni_prober_close(&r->p);
	return rc;
}

/* Even a nodad IPv6 address is tentative (answers no solicitation) until
 * the kernel's addrconf work runs, later on a loaded machine. */
static int peer_addrs_ready(void)
{
	for (int i = 0; i < 500; i++) {
		char cmd[128], line[256];
		bool tentative = false;
		FILE *f;

		snprintf(cmd, sizeof(cmd), PEER "ip -6 addr show dev g0 tentative", peer);
		f = popen(cmd, "r");
		if (!f)
			return -1;
		while (fgets(line, sizeof(line), f))
			tentative |= strstr(line, "inet6") != NULL;
		if (pclose(f))
			return -1;
		if (!tentative)
			return 0;
		usleep(10000);
	}
	return -1;
}

static int gateways_on_peer(void)
{
	if (sh(PEER "ip addr replace 10.99.0.254/24 dev g0 && "
	       PEER "ip addr replace fd99::254/64 dev g0 nodad", peer, peer))
		return -1;
	return peer_addrs_ready();
}

static void test_gateways_answer(void **state)
{
	static const uint8_t g0[6] = { 0x02, 0, 0, 0, 0x99, 0xfe };
	struct rig r;

	(void)state;
	rig_open(&r, "10.99.0.254", "fd99::254", 1000, 3);
	assert_int_equal(gateways_on_peer(), 0);
	assert_int_equal(rig_run(&r), 2);
	/* the answers name the peer's MAC (the conflict check reports it) */
	assert_memory_equal(r.t[0].who, g0, 6);
	assert_memory_equal(r.t[1].who, g0, 6);
}

/* The link went down and up between the prober's open and its first
 * request: the first send reports the pending ENETDOWN. */
static void test_flap_before_first_request(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, "10.99.0.254", NULL, 1000, 3);
	assert_int_equal(gateways_on_peer(), 0);
	assert_int_equal(sh("ip link set p0 down && ip link set p0 up"), 0);
	assert_int_equal(rig_run(&r), 1);
}

/* The link goes down for a while in the middle of the window, and the
 * gateways only appear while it is down: only requests sent after it came
 * back up can be answered. Two requests scheduled: the first frames on a
 * link that just came up can be lost (its IPv6 link-local address becomes
 * usable a moment before it can receive), which the prober covers by
 * starting its run again when the link is back, as it does at the start. */
static void test_flap_during_window(void **state)
{
	struct rig r;
	int64_t t0;
	pid_t flapper;
	int status;

	(void)state;
	rig_open(&r, "10.99.0.254", "fd99::254", 4000, 2);
	flapper = fork();
	assert_true(flapper >= 0);
	if (!flapper) {
		struct timespec before = { 0, 150 * 1000000 }, down = { 0, 100 * 1000000 };

		nanosleep(&before, NULL);
		if (sh("ip link set p0 down"))
			_exit(1);
		if (gateways_on_peer())
			_exit(2);
		nanosleep(&down, NULL);
		_exit(sh("ip link set p0 up") ? 3 : 0);
	}
	t0 = rn_monotonic_ms();
	assert_int_equal(rig_run(&r), 2);
	assert_int_equal(waitpid(flapper, &status, 0), flapper);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* answered after the flap (150 ms, then 100 ms down), long before the
	 * window ends: the run ends with the answers */
	assert_in_range(rn_monotonic_ms() - t0, 250, 3900);
}

/* A link that stays down is still an error, naming the link and why. */
static void test_link_stays_down(void **state)
{
	struct rig r;

	(void)state;
	rig_open(&r, "10.99.0.254", NULL, 300, 2);
	assert_int_equal(gateways_on_peer(), 0);
	assert_int_equal(sh("ip link set p0 down"), 0);
	assert_true(rig_run(&r) < 0);
	assert_non_null(strstr(r.e.msg, "p0"));
	assert_non_null(strstr(r.e.msg, strerror(ENETDOWN)));
	assert_int_equal(sh("ip link set p0 up"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gateways_answer),
		cmocka_unit_test(test_flap_before_first_request),
		cmocka_unit_test(test_flap_during_window),
		cmocka_unit_test(test_link_stays_down),
	};

	rn_log_init("test_cni_probe", RN_LOG_DEBUG);
	return cmocka_run_group_tests(tests, topo_up, topo_down);
}
