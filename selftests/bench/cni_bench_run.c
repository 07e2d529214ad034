// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Times a CNI plugin exec'd the way a runtime execs it (CNI_* environment,
 * the config on a stdin pipe, the result read from a stdout pipe), with no
 * shell in between, and prints the statistics as one JSON object.
 *
 *   cni_bench_run --plugin PATH --conf FILE [--label NAME]
 *                 [--node-config FILE]
 *                 [--plugin PATH --conf FILE --label NAME [--node-config FILE] ...]
 *                 --netns PREFIX --mode MODE [--count N] [--parallel P]
 *                 [--cni-path DIR] [--id-prefix S]
 *
 * --node-config FILE after a plugin: the RDMANET_CONFIG that plugin gets
 * (default: the runner's own), e.g. an older build on a store of its own.
 *
 * MODE cycle: N rounds; in each, every plugin given does ADD then DEL (with
 * the ADD's result as prevResult, as a runtime sends it) of one attachment
 * in the netns PREFIX0. Taking turns inside each round, the plugins see the
 * same load on a shared machine. The ADD+DEL time of each cycle is
 * summarised per plugin, under its label. MODE attach / detach: ADD (or DEL)
 * of net1 in PREFIX0 .. PREFIX<N-1> with the first plugin, by P processes at
 * once; the wall time of the whole run and every failure are reported.
 *
 * MODE pod: as cycle, but each --conf holds a JSON array of network configs
 * (one per rail, as a pod's NetworkAttachmentDefinitions): in each round
 * every plugin does the ADDs of net1..netK one after another in the netns
 * PREFIX0, as Multus does, then their DELs in reverse order; "add" is the
 * whole pod's ADD time, "del" its DEL time.
 *
 *   cni_bench_run --mode link-del --ifname NAME
 *
 * deletes link NAME of the current netns over rtnetlink and prints how long
 * the kernel took: the part of every DEL no plugin can avoid.
 *
 * Every call starts once what the calls before it left running has exited
 * (the runner is their subreaper): rdmanet's DEL answers while a child of
 * it waits for the kernel to finish deleting the link, and that wait must
 * not be billed to the next call, whichever plugin's it is. In attach and
 * detach modes the wall time ends when the last of them has exited.
 *
 * Run it inside the node's netns (the plugin inherits it). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <jansson.h>
#include <netlink/route/link.h>

#define MAX_PLUGINS 8

struct opts {
	const char *plugin, *netns, *mode, *cni_path, *id_prefix, *ifname, *node_config;
	int count, parallel;
	int n_plugins;
	const char *plugins[MAX_PLUGINS], *conf_files[MAX_PLUGINS], *labels[MAX_PLUGINS];
	const char *node_configs[MAX_PLUGINS];	/* NULL: $RDMANET_CONFIG */
};

struct call {
	double ms;
	int status;			/* exit status, or 128 + signal */
	char *out;			/* stdout (malloc'd) */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void set_env(const struct opts *o, const char *cmd, int i)
{
	const char *node = o->node_config ? o->node_config : getenv("RDMANET_CONFIG");
	const char *log = getenv("RDMANET_CNI_LOG");
	char v[512], node_config[512], log_level[16];

	/* the node config is the runtime's to name (the plugin takes host paths
	 * from nowhere else): pass ours through */
	snprintf(node_config, sizeof(node_config), "%s", node ? node : "");
	/* and RDMANET_CNI_LOG: at debug, the plugin logs when it reaches each
	 * step of ADD and DEL (on the runner's stderr), where the time goes */
	snprintf(log_level, sizeof(log_level), "%s", log ? log : "");
	clearenv();
	if (log_level[0])
		setenv("RDMANET_CNI_LOG", log_level, 1);
	if (node_config[0])
		setenv("RDMANET_CONFIG", node_config, 1);
	setenv("CNI_COMMAND", cmd, 1);
	snprintf(v, sizeof(v), "%s%d", o->id_prefix, i);
	setenv("CNI_CONTAINERID", v, 1);
	snprintf(v, sizeof(v), "%s%d", o->netns,
		 !strcmp(o->mode, "cycle") || !strcmp(o->mode, "pod") ? 0 : i);
	setenv("CNI_NETNS", v, 1);
	setenv("CNI_IFNAME", o->ifname ? o->ifname : "net1", 1);
	setenv("CNI_PATH", o->cni_path, 1);
	snprintf(v, sizeof(v), "IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=%s%d",
		 o->id_prefix, i);
	setenv("CNI_ARGS", v, 1);
}

/* Reaps what earlier calls left running (orphans adopted by this runner). */
static void wait_leftovers(void)
{
	for (;;) {
		pid_t p = waitpid(-1, NULL, 0);

		if (p < 0 && errno != EINTR)
			return;		/* ECHILD: none left */
	}
}

/* Forks the plugin with `in` on its stdin; collects its stdout. */
static int run(const struct opts *o, const char *cmd, int i, const char *in, struct call *c)
{
	int to[2], from[2];
	size_t cap = 4096, n = 0, len = strlen(in), off = 0;
	double t0;
	int st;
	pid_t pid;

	wait_leftovers();
	t0 = now_ms();
	c->out = malloc(cap);
	if (!c->out || pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		set_env(o, cmd, i);
		execl(o->plugin, o->plugin, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	/* a config is small: write it all, then read until EOF */
	while (off < len) {
		ssize_t w = write(to[1], in + off, len - off);

		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(to[1]);
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb = realloc(c->out, cap * 2);

			if (!nb)
				break;
			c->out = nb;
			cap *= 2;
		}
		r = read(from[0], c->out + n, cap - n - 1);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	c->out[n] = '\0';
	close(from[0]);
	waitpid(pid, &st, 0);
	c->ms = now_ms() - t0;
	c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return 0;
}

static char *with_prev(const char *conf, const char *result)
{
	json_t *c = json_loads(conf, 0, NULL), *r = json_loads(result, 0, NULL);
	char *s = NULL;

	if (c && r) {
		json_object_set(c, "prevResult", r);
		s = json_dumps(c, JSON_COMPACT);
	}
	json_decref(c);
	json_decref(r);
	return s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* nearest-rank percentile of sorted v */
static double pct(const double *v, int n, double p)
{
	int k = (int)((p / 100.0) * n + 0.999999) - 1;

	return n ? v[k < 0 ? 0 : (k >= n ? n - 1 : k)] : 0;
}

static json_t *summary(double *v, int n)
{
	double sum = 0;

	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	for (int i = 0; i < n; i++)
		sum += v[i];
	return json_pack("{s:i, s:f, s:f, s:f, s:f, s:f}", "n", n, "median_ms", pct(v, n, 50),
			 "p99_ms", pct(v, n, 99), "mean_ms", n ? sum / n : 0, "min_ms",
			 n ? v[0] : 0, "max_ms", n ? v[n - 1] : 0);
}

struct series {
	double *add, *del, *both;
	int n, failed;
	json_t *first_error;
};

static int one_cycle(const struct opts *o, const char *conf, int i, struct series *s)
{
	struct call a = { 0 }, d = { 0 };
	char *dconf;

	if (run(o, "ADD", i, conf, &a))
		return -1;
	dconf = a.status ? strdup(conf) : with_prev(conf, a.out);
	if (!dconf || run(o, "DEL", i, dconf, &d))
		return -1;
	if (a.status || d.status) {
		s->failed++;
		if (!s->first_error)
			s->first_error = json_string(a.status ? a.out : d.out);
	} else {
		s->add[s->n] = a.ms;
		s->del[s->n] = d.ms;
		s->both[s->n++] = a.ms + d.ms;
	}
	free(a.out);
	free(d.out);
	free(dconf);
	return 0;
}

#define POD_MAX_RAILS 16

/* One pod: ADD net1..netK, then DEL them in reverse, each with its result. */
static int one_pod(struct opts *o, const char *confs, int i, struct series *s)
{
	json_t *list = json_loads(confs, 0, NULL);
	struct call a[POD_MAX_RAILS] = { { 0 } }, d = { 0 };
	char ifname[16];
	double add = 0, del = 0;
	size_t k = 0, n = json_array_size(list);
	bool failed = false;
	int rc = -1;

	if (!n || n > POD_MAX_RAILS)
		goto out;
	for (k = 0; k < n; k++) {
		char *conf = json_dumps(json_array_get(list, k), JSON_COMPACT);

		snprintf(ifname, sizeof(ifname), "net%zu", k + 1);
		o->ifname = ifname;
		if (!conf || run(o, "ADD", i, conf, &a[k])) {
			free(conf);
			goto out;
		}
		free(conf);
		add += a[k].ms;
		if (a[k].status) {
			failed = true;
			if (!s->first_error)
				s->first_error = json_string(a[k].out);
			k++;
			break;
		}
	}
	while (k-- > 0) {
		char *conf = json_dumps(json_array_get(list, k), JSON_COMPACT);
		char *dconf = conf && !a[k].status ? with_prev(conf, a[k].out) : conf;

		snprintf(ifname, sizeof(ifname), "net%zu", k + 1);
		o->ifname = ifname;
		if (!dconf || run(o, "DEL", i, dconf, &d)) {
			if (dconf != conf)
				free(dconf);
			free(conf);
			goto out;
		}
		if (dconf != conf)
			free(dconf);
		free(conf);
		del += d.ms;
		if (d.status && !failed) {
			failed = true;
			if (!s->first_error)
				s->first_error = json_string(d.out);
		}
		free(d.out);
		d.out = NULL;
	}
	if (failed) {
		s->failed++;
	} else {
		s->add[s->n] = add;
		s->del[s->n] = del;
		s->both[s->n++] = add + del;
	}
	rc = 0;
out:
	for (size_t j = 0; j < n && j < POD_MAX_RAILS; j++)
		free(a[j].out);
	o->ifname = NULL;
	json_decref(list);
	return rc;
}

static int cycle(struct opts *o, char *const *confs)
{
	bool pod = !strcmp(o->mode, "pod");
	struct series s[MAX_PLUGINS] = { 0 };
	json_t *res = json_object();

	for (int p = 0; p < o->n_plugins; p++) {
		s[p].add = calloc((size_t)o->count, sizeof(double));
		s[p].del = calloc((size_t)o->count, sizeof(double));
		s[p].both = calloc((size_t)o->count, sizeof(double));
		if (!s[p].add || !s[p].del || !s[p].both)
			return 1;
	}
	for (int i = 0; i < o->count; i++) {
		for (int p = 0; p < o->n_plugins; p++) {
			/* each plugin its own container ids: no two share a record */
			o->plugin = o->plugins[p];
			o->node_config = o->node_configs[p];
			o->id_prefix = o->labels[p];
			if (pod ? one_pod(o, confs[p], i, &s[p]) :
				  one_cycle(o, confs[p], i, &s[p]))
				return 1;
		}
	}
	for (int p = 0; p < o->n_plugins; p++) {
		json_t *one = json_object();

		json_object_set_new(one, "add_del", summary(s[p].both, s[p].n));
		json_object_set_new(one, "add", summary(s[p].add, s[p].n));
		json_object_set_new(one, "del", summary(s[p].del, s[p].n));
		json_object_set_new(one, "failed", json_integer(s[p].failed));
		if (s[p].first_error)
			json_object_set_new(one, "first_error", s[p].first_error);
		json_object_set_new(res, o->labels[p], one);
		free(s[p].add);
		free(s[p].del);
		free(s[p].both);
	}
	json_dumpf(res, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(res);
	return 0;
}

/* attach/detach: P workers take indexes w, w+P, ...; per-call times go to
 * a shared array */
static int many(const struct opts *o, const char *conf)
{
	const char *cmd = !strcmp(o->mode, "attach") ? "ADD" : "DEL";
	size_t sz = (size_t)o->count * sizeof(double);
	double *ms = mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int *st = mmap(NULL, (size_t)o->count * sizeof(int), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	json_t *res = json_object();
	double t0 = now_ms(), wall, *ok;
	int failed = 0, n = 0;

	if (ms == MAP_FAILED || st == MAP_FAILED)
		return 1;
	for (int w = 0; w < o->parallel; w++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid)
			continue;
		for (int i = w; i < o->count; i += o->parallel) {
			struct call c = { 0 };

			if (run(o, cmd, i, conf, &c)) {
				st[i] = 255;
				continue;
			}
			ms[i] = c.ms;
			st[i] = c.status;
			if (c.status)
				fprintf(stderr, "%s %d: exit %d: %s\n", cmd, i, c.status, c.out);
			free(c.out);
		}
		_exit(0);
	}
	while (wait(NULL) > 0)
		;
	wall = now_ms() - t0;
	ok = calloc((size_t)o->count, sizeof(double));
	for (int i = 0; i < o->count; i++) {
		if (st[i])
			failed++;
		else
			ok[n++] = ms[i];
	}
	json_object_set_new(res, "count", json_integer(o->count));
	json_object_set_new(res, "parallel", json_integer(o->parallel));
	json_object_set_new(res, "wall_s", json_real(wall / 1e3));
	json_object_set_new(res, "per_s", json_real(o->count / (wall / 1e3)));
	json_object_set_new(res, "failed", json_integer(failed));
	json_object_set_new(res, "call", summary(ok, n));
	json_dumpf(res, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(res);
	free(ok);
	return 0;
}

static int link_del(const char *ifname)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *l = rtnl_link_alloc();
	double t0;
	int err;

	if (!sk || !l || nl_connect(sk, NETLINK_ROUTE))
		return 1;
	rtnl_link_set_name(l, ifname);
	t0 = now_ms();
	err = rtnl_link_delete(sk, l);
	printf("{\"ms\": %.3f}\n", now_ms() - t0);
	rtnl_link_put(l);
	nl_socket_free(sk);
	if (err < 0)
		fprintf(stderr, "delete %s: %s\n", ifname, nl_geterror(err));
	return err < 0;
}

static char *load_conf(const char *file)
{
	json_error_t jerr;
	json_t *conf = json_load_file(file, 0, &jerr);
	char *text;

	if (!conf) {
		fprintf(stderr, "%s: %s\n", file, jerr.text);
		return NULL;
	}
	text = json_dumps(conf, JSON_COMPACT);
	json_decref(conf);
	return text;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "plugin", 1, 0, 'p' }, { "conf", 1, 0, 'c' }, { "label", 1, 0, 'l' },
		{ "netns", 1, 0, 'n' }, { "mode", 1, 0, 'm' }, { "count", 1, 0, 'N' },
		{ "parallel", 1, 0, 'P' }, { "cni-path", 1, 0, 'C' }, { "id-prefix", 1, 0, 'i' },
		{ "ifname", 1, 0, 'I' }, { "node-config", 1, 0, 'R' }, { 0 }
	};
	struct opts o = { .count = 100, .parallel = 1, .cni_path = "/usr/lib/cni",
			  .id_prefix = "bench" };
	char *confs[MAX_PLUGINS] = { 0 };
	const char *ifname = "kd0";
	int c, n_conf = 0, rc = 1;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (o.n_plugins == MAX_PLUGINS)
				return 2;
			o.labels[o.n_plugins] = "p";
			o.plugins[o.n_plugins++] = optarg;
			break;
		case 'c':
			if (n_conf == MAX_PLUGINS)
				return 2;
			o.conf_files[n_conf++] = optarg;
			break;
		case 'l':
			if (o.n_plugins)
				o.labels[o.n_plugins - 1] = optarg;
			break;
		case 'R':
			if (o.n_plugins)
				o.node_configs[o.n_plugins - 1] = optarg;
			break;
		case 'n': o.netns = optarg; break;
		case 'm': o.mode = optarg; break;
		case 'N': o.count = atoi(optarg); break;
		case 'P': o.parallel = atoi(optarg); break;
		case 'C': o.cni_path = optarg; break;
		case 'i': o.id_prefix = optarg; break;
		case 'I': ifname = optarg; break;
		default: return 2;
		}
	}
	if (o.mode && !strcmp(o.mode, "link-del"))
		return link_del(ifname);
	if (!o.n_plugins || n_conf != o.n_plugins || !o.netns || !o.mode || o.count < 1 ||
	    o.parallel < 1) {
		fprintf(stderr, "usage: cni_bench_run --plugin PATH --conf FILE [--label NAME] ... "
			"--netns PREFIX --mode cycle|pod|attach|detach [--count N] [--parallel P]\n");
		return 2;
	}
	for (int p = 0; p < o.n_plugins; p++)
		if (!(confs[p] = load_conf(o.conf_files[p])))
			goto out;
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	o.plugin = o.plugins[0];
	o.node_config = o.node_configs[0];
	rc = !strcmp(o.mode, "cycle") || !strcmp(o.mode, "pod") ? cycle(&o, confs) :
								   many(&o, confs[0]);
out:
	for (int p = 0; p < o.n_plugins; p++)
		free(confs[p]);
	return rc;
}
