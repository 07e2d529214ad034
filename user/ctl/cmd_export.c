// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl export --textfile DIR: one-shot Prometheus textfile. */
#include <string.h>

#include "ctl.h"
#include "node/node.h"

static int export_textfile(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	const char *dir = ctl_arg(a, "--textfile");

	if (rn_export_textfile(&ctl->cfg, dir, &e))
		return ctl_fail("%s", e.msg);
	return 0;
}

static const struct ctl_opt export_opts[] = {
	{ "--textfile", NULL, "DIR", "write DIR/rdmanet.prom", true },
	{ NULL },
};

const struct ctl_object ctl_obj_export = {
	.name = "export",
	.help = "the metrics as a Prometheus textfile, once",
	.verbs = (const struct ctl_verb[]){
		{ .opts = export_opts, .run = export_textfile,
		  .help = "write the metrics the agent exports, once, for node_exporter's "
			  "textfile collector" },
		{ .run = NULL },
	},
};
