// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Times a CNI plugin exec'd the way a runtime execs it (CNI_* environment,
 * the config on a stdin pipe, the result read from a stdout pipe), with no
 * shell in between, and prints the statistics as one JSON object.
 *
 *   cni_bench_run --plugin PATH --conf FILE --netns PREFIX --mode MODE
 *                 [--count N] [--parallel P] [--cni-path DIR] [--id-prefix S]
 *
 * MODE cycle: N times ADD then DEL (with the ADD's result as prevResult, as
 * a runtime sends it) of one attachment in the netns PREFIX0; the ADD+DEL
 * time of each cycle is what is summarised. MODE attach / detach: ADD (or
 * DEL) of net1 in PREFIX0 .. PREFIX<N-1>, by P processes at once; the wall
 * time of the whole run and every failure are reported.
 *
 * Run it inside the node's netns (the plugin inherits it). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <jansson.h>

struct opts {
	const char *plugin, *conf_file, *netns, *mode, *cni_path, *id_prefix;
	int count, parallel;
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
	char v[512];

	clearenv();
	setenv("CNI_COMMAND", cmd, 1);
	snprintf(v, sizeof(v), "%s%d", o->id_prefix, i);
	setenv("CNI_CONTAINERID", v, 1);
	snprintf(v, sizeof(v), "%s%d", o->netns, !strcmp(o->mode, "cycle") ? 0 : i);
	setenv("CNI_NETNS", v, 1);
	setenv("CNI_IFNAME", "net1", 1);
	setenv("CNI_PATH", o->cni_path, 1);
	snprintf(v, sizeof(v), "IgnoreUnknown=1;K8S_POD_NAMESPACE=bench;K8S_POD_NAME=%s%d",
		 o->id_prefix, i);
	setenv("CNI_ARGS", v, 1);
}

/* Forks the plugin with `in` on its stdin; collects its stdout. */
static int run(const struct opts *o, const char *cmd, int i, const char *in, struct call *c)
{
	int to[2], from[2];
	size_t cap = 4096, n = 0, len = strlen(in), off = 0;
	double t0 = now_ms();
	int st;
	pid_t pid;

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

static void first_error(json_t *o, const struct call *c)
{
	if (!json_object_get(o, "first_error"))
		json_object_set_new(o, "first_error", json_string(c->out));
}

static int cycle(const struct opts *o, const char *conf)
{
	double *add = calloc((size_t)o->count, sizeof(double));
	double *del = calloc((size_t)o->count, sizeof(double));
	double *both = calloc((size_t)o->count, sizeof(double));
	json_t *res = json_object();
	int failed = 0, n = 0;

	for (int i = 0; i < o->count; i++) {
		struct call a = { 0 }, d = { 0 };
		char *dconf;

		if (run(o, "ADD", i, conf, &a))
			return 1;
		dconf = a.status ? strdup(conf) : with_prev(conf, a.out);
		if (!dconf || run(o, "DEL", i, dconf, &d))
			return 1;
		if (a.status || d.status) {
			failed++;
			first_error(res, a.status ? &a : &d);
		} else {
			add[n] = a.ms;
			del[n] = d.ms;
			both[n++] = a.ms + d.ms;
		}
		free(a.out);
		free(d.out);
		free(dconf);
	}
	json_object_set_new(res, "add_del", summary(both, n));
	json_object_set_new(res, "add", summary(add, n));
	json_object_set_new(res, "del", summary(del, n));
	json_object_set_new(res, "failed", json_integer(failed));
	json_dumpf(res, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(res);
	free(add);
	free(del);
	free(both);
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

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "plugin", 1, 0, 'p' }, { "conf", 1, 0, 'c' }, { "netns", 1, 0, 'n' },
		{ "mode", 1, 0, 'm' }, { "count", 1, 0, 'N' }, { "parallel", 1, 0, 'P' },
		{ "cni-path", 1, 0, 'C' }, { "id-prefix", 1, 0, 'i' }, { 0 }
	};
	struct opts o = { .count = 100, .parallel = 1, .cni_path = "/usr/lib/cni",
			  .id_prefix = "bench" };
	json_error_t jerr;
	json_t *conf;
	char *text;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'p': o.plugin = optarg; break;
		case 'c': o.conf_file = optarg; break;
		case 'n': o.netns = optarg; break;
		case 'm': o.mode = optarg; break;
		case 'N': o.count = atoi(optarg); break;
		case 'P': o.parallel = atoi(optarg); break;
		case 'C': o.cni_path = optarg; break;
		case 'i': o.id_prefix = optarg; break;
		default: return 2;
		}
	}
	if (!o.plugin || !o.conf_file || !o.netns || !o.mode || o.count < 1 || o.parallel < 1) {
		fprintf(stderr, "usage: cni_bench_run --plugin PATH --conf FILE --netns PREFIX "
			"--mode cycle|attach|detach [--count N] [--parallel P]\n");
		return 2;
	}
	conf = json_load_file(o.conf_file, 0, &jerr);
	if (!conf) {
		fprintf(stderr, "%s: %s\n", o.conf_file, jerr.text);
		return 1;
	}
	text = json_dumps(conf, JSON_COMPACT);
	json_decref(conf);
	signal(SIGPIPE, SIG_IGN);
	c = !strcmp(o.mode, "cycle") ? cycle(&o, text) : many(&o, text);
	free(text);
	return c;
}
