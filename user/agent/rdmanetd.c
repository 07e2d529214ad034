// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetd: the node agent. Attaches the data path to the RoCE masters,
 * keeps it in line with the config, exports metrics. SIGTERM leaves every
 * program attached and every map pinned; --uninstall takes them away. */
#include <errno.h>
#include <malloc.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "datapath/datapath.h"
#include "config.h"
#include "config_publish.h"
#include "config_watch.h"
#include "health.h"
#include "devplugin/devplugin.h"
#include "dra/dra.h"
#include "ipam/ipam.h"
#include "log.h"
#include "masters.h"
#include "mem_trim.h"
#include "mkdir_p.h"
#include "node/node.h"
#include "ipam_blocks.h"
#include "ipam_precheck.h"
#include "rdma_tick.h"
#include "sriov_agent.h"
#include "version.h"
#include "monotonic.h"

static volatile sig_atomic_t stop;
/* what the health file says; the masters' counts follow every reconcile */
static struct rn_health health;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdmanetd [--config FILE] [--publish-config FILE] [--health-file FILE]\n"
		"                [--pin-dir DIR] [--once]\n"
		"                [-v|-q]\n"
		"       rdmanetd --uninstall [--config FILE] [--pin-dir DIR]\n"
		"       rdmanetd --check-config [--config FILE] [--cluster]\n"
		"       rdmanetd --version\n"
		"\n"
		"  -c, --config FILE   node config (default %s; a missing default file\n"
		"                      means all defaults)\n"
		"      --publish-config FILE  write each config applied to FILE (atomically):\n"
		"                      the host's copy the CNI plugin reads\n"
		"      --health-file FILE  rewrite FILE every few seconds with the agent's\n"
		"                      health (rdmanetctl health reads it for the probes)\n"
		"      --pin-dir DIR   bpffs directory for maps and links (default %s)\n"
		"      --once          attach, export once, exit (programs stay attached)\n"
		"      --uninstall     detach everything rdmanetd attached and unpin\n"
		"      --check-config  parse the config as a reload would, say ok or what is\n"
		"                      wrong in one line, exit 0 or 1; touches nothing\n"
		"      --cluster       this agent is one of many (a DaemonSet): a config must\n"
		"                      say \"deployment\": \"cluster\" to be used\n"
		"  -v, --verbose       more log (repeat for debug); -q: errors only\n",
		RN_DEFAULT_CONFIG, RN_DEFAULT_PIN_DIR);
}

static void export_once(const struct rn_config *c)
{
	struct rn_error e = { 0 };

	if (!c->textfile.dir[0])
		return;
	if (rn_mkdir_p(c->textfile.dir, 0755)) {
		rn_warn("textfile dir %s: %s", c->textfile.dir, strerror(errno));
		return;
	}
	if (rn_export_textfile(c, c->textfile.dir, &e))
		rn_warn("export: %s", e.msg);
}

/* The config's pools into the IPAM store (the store is the source of
 * truth; the config owns the pools it declares). */
static void ipam_sync(const struct rn_config *c)
{
	struct rn_error e = { 0 };
	int n = rn_ipam_agent_sync(c, &e);

	if (n < 0)
		rn_warn("ipam: %s", e.msg);
	else if (n > 0)
		rn_info("ipam: %d config pool(s) written to the store", n);
}

static int uninstall(const struct rn_config *c)
{
	struct rn_error e = { 0 };
	struct rn_maps m;
	char path[PATH_MAX];
	int lock;

	if (!rn_pin_dir_exists(c->bpf.pin_dir)) {
		rn_info("%s does not exist: nothing to uninstall", c->bpf.pin_dir);
		return 0;
	}
	lock = rn_pin_lock_agent(c->bpf.pin_dir, &e);
	if (lock < 0) {
		rn_err("%s; stop it before --uninstall", e.msg);
		return 1;
	}
	if (!rn_maps_open(&m, c->bpf.pin_dir, &e)) {
		rn_masters_teardown(c, &m);
		rn_maps_close(&m);
	} else if (rn_maps_layout_check(c->bpf.pin_dir, &e)) {
		/* an agent of another layout attached what is there */
		rn_info("maps of another layout version under %s: taking rdmanet's programs "
			"off every interface", c->bpf.pin_dir);
		rn_masters_detach_unknown(c);
	} else {
		rn_warn("%s", e.msg);
	}
	rn_pod_prog_uninstall(c->bpf.pin_dir);
	if (rn_maps_unpin(c->bpf.pin_dir, &e))
		rn_err("%s", e.msg);
	rn_pin_path(path, sizeof(path), c->bpf.pin_dir, RN_PIN_LINKS);
	if (rmdir(path) && errno != ENOENT)
		rn_warn("rmdir %s: %s (pins left by someone else?)", path, strerror(errno));
	rn_pin_path(path, sizeof(path), c->bpf.pin_dir, RN_PIN_REGISTRY);
	rmdir(path);
	rn_pin_unlock(lock);
	if (rmdir(c->bpf.pin_dir) && errno != ENOENT) {
		rn_err("rmdir %s: %s", c->bpf.pin_dir, strerror(errno));
		return 1;
	}
	rn_info("uninstalled from %s", c->bpf.pin_dir);
	return 0;
}

/* --cluster: the config must say so too, since the CNI plugin and
 * rdmanetctl read it without the flag and refuse, under "cluster", pools
 * that two nodes would allocate from on their own (ipam/cluster_check.h). */
static int check_deployment(const struct rn_config *c, bool cluster, const char *path)
{
	if (!cluster)
		return 0;
	if (!c->cluster) {
		rn_err("config %s: rdmanetd --cluster runs on many nodes but the config does not "
		       "say \"deployment\": \"cluster\" (add it: every reader then refuses pools "
		       "two nodes would allocate from on their own)", path);
		return -1;
	}
	return 0;
}

/* --cluster, running (not --check-config, which checks a file): pools'
 * "nodes", block owners and DRA slices name the Kubernetes node */
static int check_node_name(const struct rn_config *c, bool cluster, const char *path)
{
	if (cluster && c->node_source == RN_NODE_HOSTNAME) {
		rn_err("config %s: rdmanetd --cluster needs the Kubernetes node name, not the "
		       "hostname (%s): set %s from the pod's spec.nodeName (the DaemonSet's "
		       "downward API) or \"node\" in the config", path, c->node, RN_NODE_NAME_ENV);
		return -1;
	}
	return 0;
}

/* What the agent was started with that a reload cannot change. */
struct fixed {
	char pin_dir[PATH_MAX];	/* the lock, the pins and the open maps live there */
	unsigned int max_pods;	/* sized into the maps when they were created */
	bool pin_dir_cli;	/* --pin-dir given: the file's pin_dir is not used */
	bool cluster;		/* --cluster */
};

/* A changed config file: a bad one is reported in one line and changes
 * nothing; a good one replaces *c and is applied at once, as the tick
 * would (masters and their policy/QoS, hardware QoS, netns mode, pools,
 * textfile). The keys in struct fixed need a restart: said, and kept. */
static void reload(struct rn_config *c, const struct fixed *fx, const char *path,
		   const char *text, const char *publish, const struct rn_maps *m,
		   struct rn_dp_server **dp, struct rn_dra_server **dra)
{
	struct rn_error e = { 0 };
	struct rn_config n;
	bool dp_changed, dra_changed;

	if (rn_config_parse(&n, text, &e)) {
		rn_err("config %s: %s; keeping the last good config", path, e.msg);
		return;
	}
	if (check_deployment(&n, fx->cluster, path)) {
		rn_config_free(&n);
		return;
	}
	if (!fx->pin_dir_cli && strcmp(n.bpf.pin_dir, fx->pin_dir))
		rn_warn("config %s: bpf.pin_dir %s takes effect at the next restart; still %s",
			path, n.bpf.pin_dir, fx->pin_dir);
	if (n.bpf.max_pods != fx->max_pods)
		rn_warn("config %s: bpf.max_pods %u takes effect when the maps are made again "
			"(rdmanetd --uninstall, then start); still %u", path, n.bpf.max_pods,
			fx->max_pods);
	snprintf(n.bpf.pin_dir, sizeof(n.bpf.pin_dir), "%s", fx->pin_dir);
	n.bpf.max_pods = fx->max_pods;
	/* the sriov section names the VF resources: a change there is a
	 * device plugin change too; so is an edit of the configFile the
	 * section names, its JSON unchanged (rn_dp_server_stale) */
	dp_changed = !(c->device_plugin ? n.device_plugin && json_equal(c->device_plugin,
									  n.device_plugin)
					: !n.device_plugin) ||
		     !(c->sriov ? n.sriov && json_equal(c->sriov, n.sriov) : !n.sriov) ||
		     (*dp && rn_dp_server_stale(*dp, &n));
	dra_changed = !rn_dra_config_same(c, &n);
	rn_config_free(c);
	*c = n;
	rn_info("config %s: reloaded (%d master(s)%s, qos dscp %d/%d ecn %s, textfile every %ds)",
		path, c->n_masters, c->n_masters ? "" : ": discovered", c->qos.roce_dscp,
		c->qos.cnp_dscp, rn_ecn_names[c->qos.ecn], c->textfile.interval_s);
	health.masters_attached = rn_masters_reconcile_counted(c, m, &health.masters_wanted);
	rn_rdma_agent_config_changed();
	rn_rdma_agent_tick(c);
	ipam_sync(c);
	rn_ipam_blocks_tick(c);
	export_once(c);
	/* kubelet sees the resources go and come back: ListAndWatch streams
	 * end, the plugin registers again with the new set */
	if (dp_changed) {
		rn_dp_stop(*dp);
		*dp = NULL;
		if (rn_dp_wanted(c) && !(*dp = rn_dp_start(c, &e)))
			rn_err("%s", e.msg);
		else
			rn_info("config %s: device plugin %s", path, *dp ? "restarted" : "stopped");
	}
	/* the DRA driver too (what is prepared stays, in its state file) */
	if (dra_changed) {
		rn_dra_stop(*dra);
		*dra = NULL;
		if (rn_dra_wanted(c) && !(*dra = rn_dra_start(c, &e)))
			rn_err("%s", e.msg);
		else
			rn_info("config %s: DRA driver %s", path, *dra ? "restarted" : "stopped");
	}
	if (publish)
		rn_config_publish(publish, text, strlen(text), c->node);
}

static void health_beat(const char *path, struct rn_health *h, const struct rn_config *c,
			struct rn_dp_server *dp, struct rn_dra_server *dra)
{
	if (!path)
		return;
	h->dp_wanted = rn_dp_wanted(c);
	h->dp = dp;
	h->dra_wanted = rn_dra_wanted(c);
	h->dra = dra;
	rn_health_write(path, h);
}

/* The pin dir ready, the agent's lock on it (returned, -1 on failure) and
 * the maps open in m, created where none are pinned. */
static int open_pin_dir(const struct rn_config *c, struct rn_maps *m)
{
	struct rn_error e = { 0 };
	int lock;

	if (rn_pin_dir_prepare(c->bpf.pin_dir, &e)) {
		rn_err("%s", e.msg);
		return -1;
	}
	lock = rn_pin_lock_agent(c->bpf.pin_dir, &e);
	if (lock < 0) {
		rn_err("%s", e.msg);
		return -1;
	}
	/* before anything is created or attached: the old layout's programs
	 * keep running, untouched, until the operator acts on the message */
	if (rn_maps_layout_check(c->bpf.pin_dir, &e)) {
		rn_err("%s", e.msg);
		rn_pin_unlock(lock);
		return -1;
	}
	/* a restart finds every map pinned: creating them would load a BPF
	 * object (and parse the kernel's BTF) for nothing */
	if (rn_maps_open(m, c->bpf.pin_dir, NULL) &&
	    (rn_maps_create(c->bpf.pin_dir, c->bpf.max_pods, &e) ||
	     rn_maps_open(m, c->bpf.pin_dir, &e))) {
		rn_err("%s", e.msg);
		rn_pin_unlock(lock);
		return -1;
	}
	return lock;
}

static void install_pod_prog(const struct rn_config *c, const struct rn_maps *m)
{
	struct rn_error e = { 0 };

	if (rn_pod_prog_install(c->bpf.pin_dir, m->max_pods, &e) < 0)
		rn_warn("%s: new pods get no per-pod program (the master's programs police "
			"alone)", e.msg);
}

/* The masters' programs, and the per-pod program before them on the first
 * start (no pod the CNI plugin adds meanwhile goes without), after them on
 * a restart or an upgrade (loading it must not delay their upgrade; pods
 * attached by another build move to this one's). */
static void attach_programs(struct rn_config *c, const struct rn_maps *m)
{
	bool pod_prog_later = rn_pod_prog_is_pinned(c->bpf.pin_dir);
	int n;

	if (!pod_prog_later)
		install_pod_prog(c, m);
	n = rn_masters_reconcile_counted(c, m, &health.masters_wanted);
	health.masters_attached = n;
	if (n == 0)
		rn_warn("no master is attached (configured: %d; with none configured, RoCE netdevs "
			"are discovered from /sys/class/infiniband)", c->n_masters);
	else
		rn_info("%d master(s) attached, pins under %s", n, c->bpf.pin_dir);
	if (pod_prog_later)
		install_pod_prog(c, m);
}

/* The first pass of everything the tick repeats, and the config published. */
static void start_services(struct rn_config *c, const struct rn_config_watch *w,
			   const char *publish)
{
	rn_sriov_agent_start(c);
	rn_sriov_agent_tick(c);
	rn_rdma_agent_tick(c);
	ipam_sync(c);
	rn_ipam_blocks_tick(c);
	rn_ipam_precheck_init(c);
	export_once(c);
	if (publish && w->seen)
		rn_config_publish(publish, w->seen, w->seen_len, c->node);
	/* start-up is over: give back the freed heap, and the pages of the
	 * binary's and libraries' read-only segments that only start-up used
	 * (those in use come back on their next access) */
	rn_mem_trim();
}

struct loop {
	struct rn_config *c;
	struct rn_config_watch *w;
	const struct fixed *fx;
	const char *publish, *health_file;
	const struct rn_maps *m;
	struct rn_dp_server *dp;
	struct rn_dra_server *dra;
};

static void reload_if_changed(struct loop *l)
{
	char *text = rn_config_watch_changed(l->w);

	if (text)
		reload(l->c, l->fx, l->w->path, text, l->publish, l->m, &l->dp, &l->dra);
	free(text);
}

/* Until the tick, unless the config changes first (then reloaded); the
 * health file is rewritten at every wake-up, at least every beat. */
static void wait_for_tick(struct loop *l, long long tick)
{
	while (!stop && rn_monotonic_ms() < tick) {
		long long left = tick - rn_monotonic_ms(), precheck;

		health_beat(l->health_file, &health, l->c, l->dp, l->dra);
		/* pre-checks age by the second, not by the tick */
		precheck = rn_ipam_precheck_tick(l->c);
		if (precheck < left)
			left = precheck > 0 ? precheck : 1;
		if (!rn_config_watch_wait(l->w, (int)(left < RN_HEALTH_BEAT_MS ? left :
							RN_HEALTH_BEAT_MS)))
			continue;
		reload_if_changed(l);
	}
}

static void tick(struct loop *l)
{
	struct rn_config *c = l->c;

	/* a change inotify could not see (the file a symlink elsewhere) */
	reload_if_changed(l);
	health.masters_attached = rn_masters_reconcile_counted(c, l->m, &health.masters_wanted);
	rn_sriov_agent_tick(c);
	rn_rdma_agent_tick(c);
	rn_ipam_blocks_tick(c);
	if (c->textfile.interval_s > 0)
		export_once(c);
	/* the freed heap; not the library pages the plugins' calls touched:
	 * those are their working set, and dropping them each tick (tried)
	 * only moved them from this process's RSS to the page cache, still
	 * charged to its cgroup, to be faulted in again by the next call */
	malloc_trim(0);
}

static void follow(struct loop *l)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct rn_error e = { 0 };

	rn_info("config: following %s%s", l->w->path, l->w->fd >= 0 ?
		" (inotify on its directory)" : "");
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* the kubelet device plugin runs in its own thread: the data path
	 * never waits for kubelet */
	if (rn_dp_wanted(l->c) && !(l->dp = rn_dp_start(l->c, &e)))
		rn_err("%s", e.msg);
	/* the DRA kubelet plugin too, beside it */
	if (rn_dra_wanted(l->c) && !(l->dra = rn_dra_start(l->c, &e)))
		rn_err("%s", e.msg);
	while (!stop) {
		wait_for_tick(l, rn_monotonic_ms() + 1000LL * (l->c->textfile.interval_s > 0 ?
						       l->c->textfile.interval_s : 15));
		if (stop)
			break;
		tick(l);
	}
	rn_dra_stop(l->dra);
	rn_dp_stop(l->dp);
	rn_info("stopping; programs stay attached and maps pinned");
}

static int run(struct rn_config *c, struct rn_config_watch *w, const char *publish,
	       const char *health_file, bool pin_dir_cli, bool cluster, int once)
{
	struct fixed fx = { .pin_dir_cli = pin_dir_cli, .cluster = cluster };
	struct rn_maps m;
	struct loop l = { .c = c, .w = w, .fx = &fx, .publish = publish,
			  .health_file = health_file, .m = &m };
	int lock;

	snprintf(fx.pin_dir, sizeof(fx.pin_dir), "%s", c->bpf.pin_dir);
	fx.max_pods = c->bpf.max_pods;
	lock = open_pin_dir(c, &m);
	if (lock < 0)
		return 1;
	attach_programs(c, &m);
	start_services(c, w, publish);
	if (!once)
		follow(&l);
	rn_maps_close(&m);
	rn_pin_unlock(lock);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "publish-config", required_argument, NULL, 'P' },
		{ "health-file", required_argument, NULL, 'H' },
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "once", no_argument, NULL, 'o' },
		{ "uninstall", no_argument, NULL, 'u' },
		{ "check-config", no_argument, NULL, 'C' },
		{ "cluster", no_argument, NULL, 'K' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *pin_dir = NULL, *publish = NULL, *health_file = NULL;
	struct rn_config_watch w;
	int once = 0, do_uninstall = 0, check_only = 0, level = RN_LOG_INFO, opt, rc;
	bool cluster = false;
	struct rn_config c;
	struct rn_error e = { 0 };

	while ((opt = getopt_long(argc, argv, "c:vqhV", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'P': publish = optarg; break;
		case 'H': health_file = optarg; break;
		case 'p': pin_dir = optarg; break;
		case 'o': once = 1; break;
		case 'u': do_uninstall = 1; break;
		case 'C': check_only = 1; break;
		case 'K': cluster = true; break;
		case 'v': level = level < RN_LOG_DEBUG ? level + 1 : level; break;
		case 'q': level = RN_LOG_ERROR; break;
		case 'h': usage(stdout); return 0;
		case 'V': rn_version_print(stdout, "rdmanetd"); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rdmanetd: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	/* a fixed threshold: every allocation of 128 KiB or more is its own
	 * mapping, given back at free(). glibc's default raises the threshold
	 * to the largest block freed, after which the per-tick pod lists (each
	 * sized for max_pods) came from the heap, zeroed in full by calloc and
	 * kept until the tick's malloc_trim: a peak of 5.4 MiB over the idle
	 * RSS with 1,024 pods, 2.1 MiB with this. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	rn_log_init(argv[0], (enum rn_log_level)level);
	rn_log_hook_libbpf();

	/* the bytes the watch starts from are the bytes parsed: an edit made
	 * in between is then a change, never missed */
	rn_config_watch_open(&w, config ? config : RN_DEFAULT_CONFIG);
	if (w.seen) {
		if (rn_config_parse(&c, w.seen, &e)) {
			rn_err("%s: %s", w.path, e.msg);
			rn_config_watch_close(&w);
			return 1;
		}
	} else if (config || access(w.path, F_OK) == 0 || errno != ENOENT) {
		/* only a missing default file means "all defaults" */
		rn_err("%s: cannot read it", w.path);
		rn_config_watch_close(&w);
		return 1;
	} else {
		rn_config_defaults(&c);
	}
	if (check_deployment(&c, cluster, w.path) ||
	    (!check_only && !do_uninstall && check_node_name(&c, cluster, w.path))) {
		rn_config_free(&c);
		rn_config_watch_close(&w);
		return 1;
	}
	/* start serves the other resources without one that cannot be
	 * served; the check says so before a start would */
	if (check_only && rn_dp_check_servable(&c, &e)) {
		rn_err("%s: %s", w.path, e.msg);
		rn_config_free(&c);
		rn_config_watch_close(&w);
		return 1;
	}
	if (check_only) {
		printf("%s: ok%s\n", w.path, w.seen ? "" : " (no file: all defaults)");
		rn_config_free(&c);
		rn_config_watch_close(&w);
		return 0;
	}
	if (pin_dir)
		snprintf(c.bpf.pin_dir, sizeof(c.bpf.pin_dir), "%s", pin_dir);

	rc = do_uninstall ? uninstall(&c) : run(&c, &w, publish, health_file, pin_dir != NULL, cluster, once);
	rn_config_free(&c);
	rn_config_watch_close(&w);
	return rc;
}
