// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl doctor: placeholder until its issue lands (see issues). */
#include "ctl.h"

int cmd_doctor(struct ctl *ctl, int argc, char **argv)
{
	(void)ctl;
	(void)argc;
	(void)argv;
	return ctl_fail("doctor: not built yet");
}
