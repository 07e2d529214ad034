/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What every rdmanetctl command gets: global options, the loaded config
 * and its parsed arguments (cmdline.h). Commands print results on stdout;
 * on a runtime error they return ctl_fail() (one line on stderr, exit 1),
 * on a usage error ctl_usage() (exit 2). Each cmd_*.c defines its object:
 * its verbs, their options and help (the parser's and the help's table). */
#ifndef RDMANET_CTL_H
#define RDMANET_CTL_H

#include <stdbool.h>
#include <jansson.h>

#include "cmdline.h"
#include "config.h"

struct ctl {
	bool json;		/* -j/--json */
	bool pretty;		/* -p/--pretty: indented JSON */
	struct rn_config cfg;	/* defaults if no config file */
};

int ctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Why a file named on the command line cannot be read as JSON, in plain
 * words ("PATH: No such file or directory", "PATH: is a directory"), into
 * e; 0 if it can be opened (then the parser's message is the one to give:
 * jansson says "line -1 column -1" or "'[' expected" for these cases, and
 * repeats the path). */
int ctl_file_problem(const char *path, struct rn_error *e);
/* Prints a JSON value (consumed) on stdout, honouring --pretty. */
void ctl_print_json(const struct ctl *ctl, json_t *v);

extern const struct ctl_object ctl_obj_stats, ctl_obj_pod, ctl_obj_export, ctl_obj_dev,
	ctl_obj_gid, ctl_obj_env, ctl_obj_doctor, ctl_obj_pool, ctl_obj_ip, ctl_obj_resources,
	ctl_obj_vf, ctl_obj_health;

#endif
