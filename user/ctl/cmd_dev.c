// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl dev: placeholder until its issue lands (see issues). */
#include "ctl.h"

int cmd_dev(struct ctl *ctl, int argc, char **argv)
{
	(void)ctl;
	(void)argc;
	(void)argv;
	return ctl_fail("dev: not built yet");
}
