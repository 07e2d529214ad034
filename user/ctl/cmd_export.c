// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl export --textfile DIR: one-shot Prometheus textfile. */
#include <string.h>

#include "ctl.h"
#include "datapath/datapath.h"

int cmd_export(struct ctl *ctl, int argc, char **argv)
{
	struct rn_error e = { 0 };
	const char *dir = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--textfile") && i + 1 < argc)
			dir = argv[++i];
		else
			return ctl_fail("export: unexpected argument \"%s\"", argv[i]);
	}
	if (!dir)
		return ctl_fail("export: --textfile DIR is required");
	if (rn_export_textfile(&ctl->cfg, dir, &e))
		return ctl_fail("%s", e.msg);
	return 0;
}
