// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The agent's RDMA pieces on fixture trees: RoCE TOS from the QoS config,
 * default_roce_tos and traffic_class written (and left alone when right)
 * on the ports the agent manages only (configured masters, else the
 * selected devices), discovery telling "found none" from "could not
 * look" (damaged trees), the GID watch's events and counters, and the
 * textfile metrics (checked by promtool when it is installed). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"
#include "rdma/gid_watch.h"
#include "rdma/rdma_config.h"
#include "rdma/roce_netdevs.h"
#include "rdma/roce_qos.h"
#include "rdma/sysfs_attr.h"
#include "selftests/fixtures/fixtures.h"

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd))
		fail_msg("%s failed", cmd);
}

/* A writable copy of a fixture: $tmp/sys, $tmp/dev, $tmp/etc. */
static char *copy_fixture(const char *fixture)
{
	static char dir[64];
	char src[4096];

	snprintf(dir, sizeof(dir), "/tmp/rn_rdma_agent_%d_XXXXXX", getpid());
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s", rn_fixture_sys(fixture));
	src[strlen(src) - 4] = '\0';
	sh("cp -a '%s'/. '%s'/", src, dir);
	return dir;
}

static void load(struct rn_rdma_model *m, const char *sys)
{
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, sys);
	assert_int_equal(rn_rdma_model_load(m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_COUNTERS,
					    &e), 0);
}

static void test_tos(void **state)
{
	struct rn_qos_config q = { .roce_dscp = 26, .cnp_dscp = 48, .ecn = RN_ECN_ECT0 };

	(void)state;
	assert_int_equal(rn_roce_tos(&q), 106);		/* 26 << 2 | ECT(0) */
	q.ecn = RN_ECN_ECT1;
	assert_int_equal(rn_roce_tos(&q), 105);
	q.ecn = RN_ECN_OFF;
	assert_int_equal(rn_roce_tos(&q), 104);
	q.roce_dscp = 63;
	q.ecn = RN_ECN_ECT0;
	assert_int_equal(rn_roce_tos(&q), 254);
}

struct outcomes {
	struct rn_qos_outcome o[16];
	int n;
};

static void collect(const struct rn_qos_outcome *o, void *arg)
{
	struct outcomes *c = arg;

	if (c->n < 16)
		c->o[c->n++] = *o;
}

static void test_qos_apply(void **state)
{
	char *root = copy_fixture("ib_port"), sys[128], val[64];
	const struct rn_qos_scope all = { 0 };	/* no masters, no selectors */
	struct outcomes out = { 0 };
	struct rn_rdma_model m;

	(void)state;
	snprintf(sys, sizeof(sys), "%s/sys", root);
	load(&m, sys);
	/* no configfs rdma_cm: one failure per Ethernet port, with the fix */
	assert_int_equal(rn_roce_qos_apply(&m, &all, 106, collect, &out), 3);
	assert_int_equal(out.n, 3);	/* mlx5_1 is InfiniBand: not touched */
	assert_int_equal(out.o[0].err, -ENOENT);
	assert_non_null(strstr(out.o[0].hint, "modprobe rdma_cm"));

	/* configfs as the kernel shows it once rdma_cm is loaded; the groups a
	 * mkdir creates come with ports/N/default_roce_tos there */
	for (int i = 0; i < 4; i++)
		sh("mkdir -p %s/kernel/config/rdma_cm/mlx5_%d/ports/1 && echo 0 > "
		   "%s/kernel/config/rdma_cm/mlx5_%d/ports/1/default_roce_tos", sys, i, sys, i);
	/* mlx5 from MLNX_OFED: the port's global traffic class */
	sh("mkdir -p %s/class/infiniband/mlx5_0/tc/1 && : > %s/class/infiniband/mlx5_0/tc/1/"
	   "traffic_class", sys, sys);
	out.n = 0;
	assert_int_equal(rn_roce_qos_apply(&m, &all, 106, collect, &out), 0);
	assert_int_equal(out.n, 4);
	assert_string_equal(out.o[0].dev, "mlx5_0");
	assert_int_equal(out.o[0].knob, RN_QOS_DEFAULT_ROCE_TOS);
	assert_int_equal(out.o[0].old_value, 0);
	assert_true(out.o[0].changed);
	assert_int_equal(out.o[1].knob, RN_QOS_TRAFFIC_CLASS);
	assert_true(out.o[1].changed);
	assert_int_equal(rn_roce_qos_read_tos(&m.roots, "mlx5_0", 1), 106);
	assert_int_equal(rn_roce_qos_read_tos(&m.roots, "mlx5_3", 1), 106);
	assert_int_equal(rn_sysfs_read(val, sizeof(val), "%s/class/infiniband/mlx5_0/tc/1/"
				       "traffic_class", sys), 0);
	assert_string_equal(val, "tclass=106");
	assert_int_equal(rn_roce_qos_read_tos(&m.roots, "mlx5_1", 1), 0);

	/* in line already: nothing written */
	sh("echo 'Global tclass=106' > %s/class/infiniband/mlx5_0/tc/1/traffic_class", sys);
	out.n = 0;
	assert_int_equal(rn_roce_qos_apply(&m, &all, 106, collect, &out), 0);
	for (int i = 0; i < out.n; i++)
		assert_false(out.o[i].changed);
	/* a new policy moves them all */
	out.n = 0;
	assert_int_equal(rn_roce_qos_apply(&m, &all, 137, collect, &out), 0);
	assert_true(out.o[0].changed);
	assert_int_equal(out.o[0].old_value, 106);
	assert_int_equal(rn_roce_qos_read_tos(&m.roots, "mlx5_2", 1), 137);
	rn_rdma_model_free(&m);
	sh("rm -rf %s", root);
}

/* The QoS of the cx5 tree's copy at sys under a config made of top (keys
 * before "rdma") and rdma (keys after its sysfs_root): the devices whose
 * default_roce_tos moved from 0 to 106 ("mlx5_0 mlx5_1"), and the same for
 * traffic_class (which mlx5_0 and mlx5_1 have, empty). mlx5_3 has no
 * rdma_cm group: it counts as touched if applying made one (a fake
 * configfs group has no ports/1 inside, so that one write fails). */
static void qos_under(const char *sys, const char *top, const char *rdma, char *tos_set,
		      char *tc_set)
{
	char cfg[1024], val[64];
	struct rn_rdma_config rc;
	struct rn_qos_scope scope;
	struct outcomes out = { 0 };
	struct rn_rdma_model m;
	struct rn_config c;
	struct rn_error e = { 0 };
	int failures;

	sh("rm -rf %s/kernel/config/rdma_cm && mkdir -p %s/kernel/config/rdma_cm", sys, sys);
	for (int i = 0; i < 3; i++)
		sh("mkdir -p %s/kernel/config/rdma_cm/mlx5_%d/ports/1 && echo 0 > "
		   "%s/kernel/config/rdma_cm/mlx5_%d/ports/1/default_roce_tos", sys, i, sys, i);
	for (int i = 0; i < 2; i++)
		sh("mkdir -p %s/class/infiniband/mlx5_%d/tc/1 && : > %s/class/infiniband/mlx5_%d/"
		   "tc/1/traffic_class", sys, i, sys, i);
	snprintf(cfg, sizeof(cfg), "{%s\"rdma\": {\"sysfs_root\": \"%s\"%s}}", top, sys, rdma);
	if (rn_config_parse(&c, cfg, &e))
		fail_msg("%s: %s", cfg, e.msg);
	rn_rdma_config_get(&c, &rc);
	rn_roce_qos_scope(&scope, &c, &rc);
	load(&m, sys);
	failures = rn_roce_qos_apply(&m, &scope, 106, collect, &out);
	tos_set[0] = tc_set[0] = '\0';
	for (int i = 0; i < 3; i++) {
		char dev[8];
		int tos;

		snprintf(dev, sizeof(dev), "mlx5_%d", i);
		tos = rn_roce_qos_read_tos(&m.roots, dev, 1);
		if (tos == 106)
			sprintf(tos_set + strlen(tos_set), "%s%s", tos_set[0] ? " " : "", dev);
		else
			assert_int_equal(tos, 0);
		if (i == 2)
			continue;
		assert_int_equal(rn_sysfs_read(val, sizeof(val), "%s/class/infiniband/%s/tc/1/"
					       "traffic_class", sys, dev), 0);
		if (!strcmp(val, "tclass=106"))
			sprintf(tc_set + strlen(tc_set), "%s%s", tc_set[0] ? " " : "", dev);
		else
			assert_string_equal(val, "");
	}
	if (rn_sysfs_exists("%s/kernel/config/rdma_cm/mlx5_3", sys)) {
		sprintf(tos_set + strlen(tos_set), "%smlx5_3", tos_set[0] ? " " : "");
		assert_int_equal(failures, 1);
	} else {
		assert_int_equal(failures, 0);
	}
	/* every outcome is of a port in scope, none of another */
	for (int i = 0; i < out.n; i++)
		assert_non_null(strstr(tos_set, out.o[i].dev));
	rn_rdma_model_free(&m);
	rn_config_free(&c);
}

/* Auto-discovery (selectors) and configured masters: the ports of what
 * the agent manages get the TOS, no other device's configfs or sysfs. */
static void test_qos_scope(void **state)
{
	static const struct {
		const char *why, *top, *rdma, *tos, *tc;
	} cases[] = {
		{ "no masters, no selectors: every RoCE port, VFs included", "", "",
		  "mlx5_0 mlx5_1 mlx5_2 mlx5_3", "mlx5_0 mlx5_1" },
		{ "the PFs' device ID: the VFs (1018) keep theirs", "",
		  ", \"selectors\": {\"deviceIDs\": [\"1017\"]}", "mlx5_0 mlx5_1",
		  "mlx5_0 mlx5_1" },
		{ "one PF by name: the other NIC left alone", "",
		  ", \"selectors\": {\"ifNames\": [\"ens1f0np0\"]}", "mlx5_0", "mlx5_0" },
		{ "selectors that match nothing: nothing touched", "",
		  ", \"selectors\": {\"vendors\": [\"8086\"]}", "", "" },
		{ "a configured master: its port only", "\"masters\": [{\"ifname\": "
		  "\"ens1f1np1\"}], ", "", "mlx5_1", "mlx5_1" },
		{ "a master that backs no RDMA port: nothing", "\"masters\": [{\"ifname\": "
		  "\"veth7\"}], ", "", "", "" },
		{ "masters win over selectors (a selected VF is no master)", "\"masters\": "
		  "[{\"ifname\": \"ens1f0np0\"}], ",
		  ", \"selectors\": {\"deviceIDs\": [\"1018\"]}", "mlx5_0", "mlx5_0" },
	};
	char *root = copy_fixture("cx5"), sys[128], tos[64], tc[64];

	(void)state;
	snprintf(sys, sizeof(sys), "%s/sys", root);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		qos_under(sys, cases[i].top, cases[i].rdma, tos, tc);
		if (strcmp(tos, cases[i].tos) || strcmp(tc, cases[i].tc))
			fail_msg("%s: default_roce_tos set on [%s], traffic_class on [%s]; wanted "
				 "[%s] and [%s]", cases[i].why, tos, tc, cases[i].tos, cases[i].tc);
	}
	sh("rm -rf %s", root);
}

/* Discovery on a tree: its return value, the names it found ("a b"), and
 * the error it gave. */
static int discover(const char *sys, const char *sel_json, char *names_out, struct rn_error *e)
{
	char names[RN_MAX_MASTERS][RN_IFNAMSIZ];
	struct rn_rdma_selectors sel;
	struct rn_rdma_roots roots;
	json_t *j = sel_json ? json_loads(sel_json, 0, NULL) : NULL;
	int n;

	memset(e, 0, sizeof(*e));
	assert_int_equal(rn_selectors_parse(j, &sel, "selectors", e), 0);
	json_decref(j);
	unsetenv(RN_SYSFS_ROOT_ENV);
	rn_rdma_roots_init(&roots, sys);
	n = rn_rdma_discover_roce_netdevs(&roots, &sel, names, RN_MAX_MASTERS, e);
	names_out[0] = '\0';
	for (int i = 0; i < n; i++)
		sprintf(names_out + strlen(names_out), "%s%s", i ? " " : "", names[i]);
	return n;
}

/* Looked and found none: 0, and no error. */
static void test_discover_none(void **state)
{
	static const char *const trees[] = { "cx5", "cx5_healthy", "ib_port", "netns_exclusive",
					     "no_modules", "no_rdma_core", "port_down", "rxe" };
	struct rn_error e;
	char names[256], missing[4200];

	(void)state;
	assert_int_equal(discover(rn_fixture_sys("cx5"), NULL, names, &e), 2);
	assert_string_equal(names, "ens1f0np0 ens1f1np1");	/* PFs, not VFs */
	assert_int_equal(discover(rn_fixture_sys("cx5"), "{\"deviceIDs\": [\"1017\"], "
				  "\"ifNames\": [\"ens1f1np1\"]}", names, &e), 1);
	assert_string_equal(names, "ens1f1np1");
	/* selectors that select only VFs, a host with no RDMA driver loaded
	 * (no class/infiniband): it looked, there is none */
	assert_int_equal(discover(rn_fixture_sys("cx5"), "{\"deviceIDs\": [\"1018\"]}", names,
				  &e), 0);
	assert_int_equal(discover(rn_fixture_sys("no_modules"), NULL, names, &e), 0);
	assert_int_equal(e.code, 0);
	/* every fixture tree reads cleanly: no false failures */
	for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++)
		if (discover(rn_fixture_sys(trees[i]), NULL, names, &e) < 0)
			fail_msg("%s: %s", trees[i], e.msg);
	/* the live /sys (no RDMA here; Soft-RoCE in the VM tests) reads cleanly */
	if (discover(NULL, NULL, names, &e) < 0)
		fail_msg("live /sys: %s", e.msg);
	/* a root that is no sysfs tree: it could not look */
	snprintf(missing, sizeof(missing), "%s/nowhere", rn_fixture_sys("cx5"));
	assert_int_equal(discover(missing, NULL, names, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "not a sysfs tree"));
}

/* A device or port that cannot be read is "could not look", never a
 * shorter list: the device it missed may be a master. Each damage is
 * what a read error looks like to a root process (EACCES is not one). */
static void test_discover_read_errors(void **state)
{
	static const struct {
		const char *damage;	/* shell, in the tree's mlx5_1 device dir ($D) */
		int err;
		const char *where;
	} cases[] = {
		{ "rm -rf $D/ports && : > $D/ports", -ENOTDIR, "mlx5_1/ports" },
		{ "rm $D/ports/1/link_layer && mkdir $D/ports/1/link_layer", -EISDIR,
		  "mlx5_1/ports/1/link_layer" },
		{ "v=$(readlink -f $D/device) && rm $v/vendor && mkdir $v/vendor", -EISDIR,
		  "mlx5_1/device/vendor" },
		{ "v=$(readlink -f $D/device) && : > $v/physfn", -EINVAL, "mlx5_1/device/physfn" },
	};
	char *root, sys[128], names[256];
	struct rn_rdma_model m;
	struct rn_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		root = copy_fixture("cx5");
		snprintf(sys, sizeof(sys), "%s/sys", root);
		sh("D=$(readlink -f %s/class/infiniband/mlx5_1) && %s", sys, cases[i].damage);
		if (discover(sys, NULL, names, &e) != cases[i].err)
			fail_msg("%s: discovery gave %d (%s), wanted %d", cases[i].damage,
				 discover(sys, NULL, names, &e), names, cases[i].err);
		if (!strstr(e.msg, cases[i].where))
			fail_msg("%s: \"%s\" does not name %s", cases[i].damage, e.msg,
				 cases[i].where);
		/* the model still loads for `rdmanetctl dev`, incomplete and saying so */
		load(&m, sys);
		assert_int_equal(m.read_err, cases[i].err);
		assert_non_null(strstr(m.notes[m.n_notes - 1], cases[i].where));
		rn_rdma_model_free(&m);
		sh("rm -rf %s", root);
	}

	/* class/infiniband itself unreadable: no model at all */
	root = copy_fixture("cx5");
	snprintf(sys, sizeof(sys), "%s/sys", root);
	sh("rm %s/class/infiniband/* && rmdir %s/class/infiniband && : > %s/class/infiniband",
	   sys, sys, sys);
	assert_int_equal(discover(sys, NULL, names, &e), -ENOTDIR);
	assert_non_null(strstr(e.msg, "class/infiniband"));
	sh("rm -rf %s", root);

	/* a device gone between the listing and its reads is absent, not an
	 * error: the other is found */
	root = copy_fixture("cx5");
	snprintf(sys, sizeof(sys), "%s/sys", root);
	sh("rm -rf $(readlink -f %s/class/infiniband/mlx5_1)", sys);
	assert_int_equal(discover(sys, NULL, names, &e), 1);
	assert_string_equal(names, "ens1f0np0");
	sh("rm -rf %s", root);
}

struct events {
	int added, removed, moved;
	unsigned int from, to;
};

static void on_event(enum rn_gid_event ev, const struct rn_gid_watch_entry *old,
		     const struct rn_gid_watch_entry *now, void *arg)
{
	struct events *c = arg;

	if (ev == RN_GID_ADDED)
		c->added++;
	if (ev == RN_GID_REMOVED)
		c->removed++;
	if (ev == RN_GID_MOVED) {
		c->moved++;
		c->from = old->index;
		c->to = now->index;
	}
}

static void test_gid_watch(void **state)
{
	struct rn_gid_watch w = { 0 };
	struct events ev = { 0 };
	struct rn_rdma_model m;
	struct rn_rdma_port *p;
	struct rn_rdma_gid b = { 0 };

	(void)state;
	load(&m, rn_fixture_sys("cx5"));
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_true(w.primed);
	assert_int_equal(ev.added + ev.removed + ev.moved, 0);	/* priming says nothing */
	assert_int_equal(w.n, 18);
	assert_int_equal(w.n_ports, 4);
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.added + ev.removed + ev.moved, 0);

	/* pod B's v2 entry moves from 7 to 12: what breaks a pinned index */
	p = &m.devs[0].ports[0];
	for (int i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == 7)
			p->gids[i].index = 12;
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.moved, 1);
	assert_int_equal(ev.from, 7);
	assert_int_equal(ev.to, 12);
	assert_int_equal(w.ports[0].moved, 1);
	/* pod A leaves: its two entries go */
	memmove(&p->gids[4], &p->gids[6], (size_t)(p->n_gids - 6) * sizeof(p->gids[0]));
	p->n_gids -= 2;
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.removed, 2);
	assert_int_equal(w.ports[0].removed, 2);
	assert_int_equal(ev.added, 0);

	/* pod B's entry goes in one update and comes back at another index in
	 * the next (the tick read the table half before, half after): a move
	 * from where it was, as if one update had seen both */
	for (int i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == 12) {
			b = p->gids[i];
			p->gids[i] = p->gids[--p->n_gids];
			break;
		}
	assert_int_equal(b.index, 12);
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.removed, 3);
	assert_int_equal(w.n_gone, 3);
	b.index = 9;
	p->gids[p->n_gids++] = b;
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.moved, 2);
	assert_int_equal(ev.from, 12);
	assert_int_equal(ev.to, 9);
	assert_int_equal(w.ports[0].moved, 2);
	assert_int_equal(ev.added, 0);
	assert_int_equal(w.n_gone, 2);
	/* back where it was: added, not moved */
	p->n_gids--;
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	p->n_gids++;
	assert_int_equal(rn_gid_watch_update(&w, &m, on_event, &ev), 0);
	assert_int_equal(ev.moved, 2);
	assert_int_equal(ev.added, 1);
	assert_int_equal(w.n_gone, 2);
	rn_gid_watch_free(&w);
	rn_rdma_model_free(&m);
}

static char *metrics(const char *fixture)
{
	char cfg[5000], *buf = NULL;
	struct rn_config c;
	struct rn_error e = { 0 };
	size_t len = 0;
	FILE *f;

	snprintf(cfg, sizeof(cfg), "{\"rdma\": {\"sysfs_root\": \"%s\"}, \"bpf\": {\"pin_dir\": "
		 "\"/nonexistent/rdmanet\"}}", rn_fixture_sys(fixture));
	unsetenv(RN_SYSFS_ROOT_ENV);
	assert_int_equal(rn_config_parse(&c, cfg, &e), 0);
	f = open_memstream(&buf, &len);
	rn_metrics_rdma(f, &c);
	fclose(f);
	rn_config_free(&c);
	return buf;
}

static void test_metrics(void **state)
{
	char *text = metrics("cx5"), path[64];
	FILE *f;

	(void)state;
	assert_non_null(strstr(text, "rdmanet_rdma_devices 4\n"));
	assert_non_null(strstr(text, "rdmanet_rdma_netns_shared 1\n"));
	assert_non_null(strstr(text, "rdmanet_rdma_hw_stats_total{device=\"mlx5_0\",port=\"1\","
				     "counter=\"np_cnp_sent\"} 12\n"));
	assert_non_null(strstr(text, "rdmanet_rdma_port_active{device=\"mlx5_1\",port=\"1\","
				     "netdev=\"ens1f1np1\"} 1\n"));
	assert_non_null(strstr(text, "rdmanet_rdma_gid_info{device=\"mlx5_0\",port=\"1\","
				     "index=\"7\",gid=\"0000:0000:0000:0000:0000:ffff:ac10:0b16\","
				     "type=\"RoCE v2\",netdev=\"net1\","
				     "address=\"172.16.11.22\"} 1\n"));
	assert_null(strstr(text, "lifespan"));
	/* without pinned maps there are no pods to report, and no error */
	assert_null(strstr(text, "rdmanet_pod_roce_gid_index{"));
	snprintf(path, sizeof(path), "/tmp/rn_rdma_metrics_%d.prom", getpid());
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	free(text);
	if (system("command -v promtool >/dev/null 2>&1") == 0)
		sh("promtool check metrics < %s", path);
	unlink(path);

	text = metrics("port_down");
	assert_non_null(strstr(text, "rdmanet_rdma_port_active{device=\"mlx5_1\",port=\"1\","
				     "netdev=\"ens1f1np1\"} 0\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tos),
		cmocka_unit_test(test_qos_apply),
		cmocka_unit_test(test_qos_scope),
		cmocka_unit_test(test_discover_none),
		cmocka_unit_test(test_discover_read_errors),
		cmocka_unit_test(test_gid_watch),
		cmocka_unit_test(test_metrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
