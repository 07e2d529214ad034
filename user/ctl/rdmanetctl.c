// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl: iproute2 habits — object then verb, -j for JSON, a table by
 * default, one line on stderr and a non-zero exit on error (2 for a usage
 * error, 1 for a failure), help at every level. The command line is read
 * by cmdline.c against the objects listed here. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "log.h"
#include "version.h"

const struct ctl_object *const ctl_objects[] = {
	&ctl_obj_stats, &ctl_obj_pod, &ctl_obj_export, &ctl_obj_dev, &ctl_obj_gid,
	&ctl_obj_env, &ctl_obj_doctor, &ctl_obj_pool, &ctl_obj_ip, &ctl_obj_resources,
	&ctl_obj_vf, &ctl_obj_health,
};
const int ctl_n_objects = sizeof(ctl_objects) / sizeof(ctl_objects[0]);

int ctl_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("rdmanetctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void ctl_print_json(const struct ctl *ctl, json_t *v)
{
	/* one buffer and one write: json_dumpf writes token by token */
	char *text = json_dumps(v, ctl->pretty ? JSON_INDENT(2) : JSON_COMPACT);

	if (text) {
		fputs(text, stdout);
		fputc('\n', stdout);
		free(text);
	}
	/* printing is the last thing a command does: freeing a tree of
	 * 100,000 nodes (stats of 1,024 pods) costs more than building it,
	 * and the process is about to exit */
	(void)v;
}

int ctl_file_problem(const char *path, struct rn_error *e)
{
	struct stat st;
	FILE *f;

	if (stat(path, &st))
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return rn_fail(e, -EISDIR, "%s: is a directory, not a JSON file", path);
	f = fopen(path, "r");
	if (!f)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	fclose(f);
	return 0;
}

static int load_config(struct ctl *ctl, const struct ctl_globals *g)
{
	struct rn_error e = { 0 };
	const char *path = g->config_path ? g->config_path : getenv("RDMANET_CONFIG");
	const char *pin_dir = g->pin_dir ? g->pin_dir : getenv("RDMANET_PIN_DIR");

	if (path) {
		if (rn_config_load(&ctl->cfg, path, &e)) {
			ctl_file_problem(path, &e);
			return ctl_fail("%s", e.msg);
		}
	} else if (rn_config_load(&ctl->cfg, RN_DEFAULT_CONFIG, &e)) {
		if (e.code != -ENOENT)
			return ctl_fail("%s", e.msg);
		rn_config_defaults(&ctl->cfg);
	}
	if (pin_dir)
		snprintf(ctl->cfg.bpf.pin_dir, sizeof(ctl->cfg.bpf.pin_dir), "%s", pin_dir);
	return 0;
}

/* Hidden verbs for the build and the shell: the man page and completion
 * candidates, printed from the same tables. */
static int hidden(int argc, char **argv)
{
	if (!strcmp(argv[1], "__man")) {
		ctl_man_page(stdout, rn_version);
		return 0;
	}
	if (!strcmp(argv[1], "__complete") && argc >= 3) {
		ctl_complete(stdout, argc - 3, argv + 3, atoi(argv[2]) - 1);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct ctl_globals g = { 0 };
	struct ctl ctl = { 0 };
	struct ctl_args a;
	int rc;

	rn_log_init("rdmanetctl", RN_LOG_ERROR);
	rn_log_hook_libbpf();
	if (argc > 1 && (rc = hidden(argc, argv)) >= 0)
		return rc;
	if (argc < 2) {
		ctl_help_all(stderr);
		return CTL_EXIT_USAGE;
	}
	rc = ctl_parse(argc, argv, &g, &a);
	if (rc)
		return rc;
	if (g.version && !g.help) {
		rn_version_print(stdout, "rdmanetctl");
		return 0;
	}
	if (g.help) {
		if (a.verb && (a.verb_named || !a.verb->name))
			ctl_help_verb(stdout, a.obj, a.verb);
		else if (a.obj)
			ctl_help_object(stdout, a.obj);
		else
			ctl_help_all(stdout);
		return 0;
	}
	if (g.verbose)
		rn_log_set_level(RN_LOG_DEBUG);
	ctl.json = g.json;
	ctl.pretty = g.pretty;
	if (a.verb->check && (rc = a.verb->check(&a)))
		return rc;
	if (!a.obj->no_config && load_config(&ctl, &g))
		return 1;
	rc = a.verb->run(&ctl, &a);
	rn_config_free(&ctl.cfg);
	return rc;
}
