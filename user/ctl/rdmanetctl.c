// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl: iproute2 habits — object then verb, -j for JSON, a table by
 * default, one line on stderr and a non-zero exit on error. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "log.h"
#include "version.h"

static const struct ctl_cmd commands[] = {
	{ "stats", cmd_stats, "stats [--pod NS/NAME] [--master IF] [-b|--bytes] [-j]" },
	{ "pod", cmd_pod, "pod add|del|show ..." },
	{ "export", cmd_export, "export --textfile DIR" },
	{ "dev", cmd_dev, "dev [show] [DEV] [-s] [-j] | dev netns [shared|exclusive]" },
	{ "gid", cmd_gid, "gid [DEV] [-j]" },
	{ "env", cmd_env, "env [--netdev IF] [-j]" },
	{ "doctor", cmd_doctor, "doctor [-j]" },
	{ "pool", cmd_pool, "pool add|del|show|list|gc|sync|check ..." },
	{ "ip", cmd_ip, "ip show|release|allocate ..." },
	{ "resources", cmd_resources, "resources [-j]" },
	{ "vf", cmd_vf, "vf [show] [--state-dir DIR] [-j]" },
	{ "health", cmd_health, "health [--health-file FILE] [--max-age S] [--ready] [-j]", true },
};

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

int ctl_common_opt(struct ctl *ctl, const char *arg)
{
	if (!strcmp(arg, "-j") || !strcmp(arg, "--json")) {
		ctl->json = true;
		return 1;
	}
	if (!strcmp(arg, "-p") || !strcmp(arg, "--pretty")) {
		ctl->pretty = true;
		return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: rdmanetctl [-j] [-p] [-v] [-c CONFIG] [--pin-dir DIR] OBJECT ...\n"
		   "       rdmanetctl -V|--version\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  rdmanetctl %s\n", commands[i].usage);
	fprintf(f, "\n  -j, --json      JSON output\n"
		   "  -p, --pretty    indented JSON\n"
		   "  -c, --config    node config (default %s)\n"
		   "  --pin-dir DIR   bpffs pin directory (default: config, or %s)\n"
		   "  -v, --verbose   debug log on stderr\n"
		   "  -V, --version   the version and the commit it was built from\n",
		RN_DEFAULT_CONFIG, RN_DEFAULT_PIN_DIR);
}

static int load_config(struct ctl *ctl, const char *pin_dir)
{
	struct rn_error e = { 0 };
	const char *path = ctl->config_path ? ctl->config_path : getenv("RDMANET_CONFIG");

	if (path) {
		if (rn_config_load(&ctl->cfg, path, &e))
			return ctl_fail("%s", e.msg);
	} else if (rn_config_load(&ctl->cfg, RN_DEFAULT_CONFIG, &e)) {
		if (e.code != -ENOENT)
			return ctl_fail("%s", e.msg);
		rn_config_defaults(&ctl->cfg);
	}
	if (!pin_dir)
		pin_dir = getenv("RDMANET_PIN_DIR");
	if (pin_dir)
		snprintf(ctl->cfg.bpf.pin_dir, sizeof(ctl->cfg.bpf.pin_dir), "%s", pin_dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct ctl ctl = { 0 };
	const char *pin_dir = NULL;
	int i = 1, rc;

	rn_log_init("rdmanetctl", RN_LOG_ERROR);
	rn_log_hook_libbpf();
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (ctl_common_opt(&ctl, argv[i]))
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-V") || !strcmp(argv[i], "--version")) {
			rn_version_print(stdout, "rdmanetctl");
			return 0;
		}
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc) {
			ctl.config_path = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "--pin-dir") && i + 1 < argc) {
			pin_dir = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			rn_log_set_level(RN_LOG_DEBUG);
			continue;
		}
		return ctl_fail("unknown option \"%s\" (or a missing value); try \"rdmanetctl help\"",
				argv[i]);
	}
	if (i == argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[i], "help")) {
		usage(stdout);
		return 0;
	}
	for (size_t c = 0; c < sizeof(commands) / sizeof(commands[0]); c++) {
		if (strcmp(argv[i], commands[c].name))
			continue;
		if (!commands[c].no_config && load_config(&ctl, pin_dir))
			return 1;
		rc = commands[c].run(&ctl, argc - i, argv + i);
		rn_config_free(&ctl.cfg);
		return rc;
	}
	return ctl_fail("unknown object \"%s\"; try \"rdmanetctl help\"", argv[i]);
}
