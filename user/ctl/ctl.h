/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every rdmanetctl command gets: global options and the loaded config.
 * Commands print results on stdout; on error they return ctl_fail(), which
 * prints one line on stderr, and main exits non-zero. */
#ifndef RDMANET_CTL_H
#define RDMANET_CTL_H

#include <stdbool.h>
#include <jansson.h>

#include "config.h"

struct ctl {
	bool json;		/* -j/--json */
	bool pretty;		/* -p/--pretty: indented JSON */
	const char *config_path;
	struct rn_config cfg;	/* defaults if no config file */
};

struct ctl_cmd {
	const char *name;
	int (*run)(struct ctl *ctl, int argc, char **argv);	/* argv[0] is the name */
	const char *usage;
	bool no_config;		/* runs without reading the node config */
};

int ctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a JSON value (consumed) on stdout, honouring --pretty. */
void ctl_print_json(const struct ctl *ctl, json_t *v);
/* Common options inside a command: -j/--json, -p/--pretty. Returns 1 if
 * argv[i] was one of them. */
int ctl_common_opt(struct ctl *ctl, const char *arg);

int cmd_stats(struct ctl *ctl, int argc, char **argv);
int cmd_pod(struct ctl *ctl, int argc, char **argv);
int cmd_export(struct ctl *ctl, int argc, char **argv);
int cmd_dev(struct ctl *ctl, int argc, char **argv);
int cmd_gid(struct ctl *ctl, int argc, char **argv);
int cmd_env(struct ctl *ctl, int argc, char **argv);
int cmd_doctor(struct ctl *ctl, int argc, char **argv);
int cmd_pool(struct ctl *ctl, int argc, char **argv);
int cmd_ip(struct ctl *ctl, int argc, char **argv);
int cmd_resources(struct ctl *ctl, int argc, char **argv);
int cmd_vf(struct ctl *ctl, int argc, char **argv);
int cmd_health(struct ctl *ctl, int argc, char **argv);

#endif
