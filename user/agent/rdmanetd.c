// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetd: the node agent. Attaches the data path to the RoCE masters,
 * keeps it in line with the config, exports metrics. SIGTERM leaves every
 * program attached and every map pinned; --uninstall takes them away. */
#include <errno.h>
#include <malloc.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "attach.h"
#include "config.h"
#include "export.h"
#include "ipam/ipam_config.h"
#include "log.h"
#include "maps.h"
#include "masters.h"
#include "mkdir_p.h"
#include "pin.h"
#include "rdma_tick.h"
#include "sriov_agent.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: rdmanetd [--config FILE] [--pin-dir DIR] [--once] [-v|-q]\n"
		"       rdmanetd --uninstall [--config FILE] [--pin-dir DIR]\n"
		"\n"
		"  -c, --config FILE   node config (default %s; a missing default file\n"
		"                      means all defaults)\n"
		"      --pin-dir DIR   bpffs directory for maps and links (default %s)\n"
		"      --once          attach, export once, exit (programs stay attached)\n"
		"      --uninstall     detach everything rdmanetd attached and unpin\n"
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
	} else {
		rn_warn("%s", e.msg);
	}
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

static int run(const struct rn_config *c, int once)
{
	struct rn_error e = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct rn_maps m;
	int lock, n;

	if (rn_pin_dir_prepare(c->bpf.pin_dir, &e)) {
		rn_err("%s", e.msg);
		return 1;
	}
	lock = rn_pin_lock_agent(c->bpf.pin_dir, &e);
	if (lock < 0) {
		rn_err("%s", e.msg);
		return 1;
	}
	/* a restart finds every map pinned: creating them would load a BPF
	 * object (and parse the kernel's BTF) for nothing */
	if (rn_maps_open(&m, c->bpf.pin_dir, NULL) &&
	    (rn_maps_create(c->bpf.pin_dir, c->bpf.max_pods, &e) ||
	     rn_maps_open(&m, c->bpf.pin_dir, &e))) {
		rn_err("%s", e.msg);
		rn_pin_unlock(lock);
		return 1;
	}
	n = rn_masters_reconcile(c, &m);
	if (n == 0)
		rn_warn("no master is attached (configured: %d; with none configured, RoCE netdevs "
			"are discovered from /sys/class/infiniband)", c->n_masters);
	else
		rn_info("%d master(s) attached, pins under %s", n, c->bpf.pin_dir);
	rn_sriov_agent_start(c);
	rn_sriov_agent_tick(c);
	rn_rdma_agent_tick(c);
	ipam_sync(c);
	export_once(c);
	/* loading BPF objects parses the kernel's BTF (megabytes); give the
	 * freed heap back so the agent idles small */
	malloc_trim(0);

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	while (!once && !stop) {
		struct timespec ts = { .tv_sec = c->textfile.interval_s > 0 ?
						 c->textfile.interval_s : 15 };

		while (nanosleep(&ts, &ts) && errno == EINTR && !stop)
			;
		if (stop)
			break;
		rn_masters_reconcile(c, &m);
		rn_sriov_agent_tick(c);
		rn_rdma_agent_tick(c);
		if (c->textfile.interval_s > 0)
			export_once(c);
		malloc_trim(0);
	}
	if (!once)
		rn_info("stopping; programs stay attached and maps pinned");
	rn_maps_close(&m);
	rn_pin_unlock(lock);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "pin-dir", required_argument, NULL, 'p' },
		{ "once", no_argument, NULL, 'o' },
		{ "uninstall", no_argument, NULL, 'u' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *pin_dir = NULL;
	int once = 0, do_uninstall = 0, level = RN_LOG_INFO, opt, rc;
	struct rn_config c;
	struct rn_error e = { 0 };

	while ((opt = getopt_long(argc, argv, "c:vqh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'p': pin_dir = optarg; break;
		case 'o': once = 1; break;
		case 'u': do_uninstall = 1; break;
		case 'v': level = level < RN_LOG_DEBUG ? level + 1 : level; break;
		case 'q': level = RN_LOG_ERROR; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "rdmanetd: unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	rn_log_init(argv[0], (enum rn_log_level)level);
	rn_log_hook_libbpf();

	if (config) {
		if (rn_config_load(&c, config, &e)) {
			rn_err("%s", e.msg);
			return 1;
		}
	} else if (rn_config_load(&c, RN_DEFAULT_CONFIG, &e)) {
		if (e.code != -ENOENT) {
			rn_err("%s", e.msg);
			return 1;
		}
		rn_config_defaults(&c);
	}
	if (pin_dir)
		snprintf(c.bpf.pin_dir, sizeof(c.bpf.pin_dir), "%s", pin_dir);

	rc = do_uninstall ? uninstall(&c) : run(&c, once);
	rn_config_free(&c);
	return rc;
}
