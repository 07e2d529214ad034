// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl pool: placeholder until its issue lands (see issues). */
#include "ctl.h"

int cmd_pool(struct ctl *ctl, int argc, char **argv)
{
	(void)ctl;
	(void)argc;
	(void)argv;
	return ctl_fail("pool: not built yet");
}
