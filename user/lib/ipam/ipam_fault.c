// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/ipam_fault.h"

void rn_ipam_fault_point(const char *name)
{
	const char *f = getenv("RDMANET_IPAM_FAULT");

	if (f && !strncmp(f, "stop@", 5) && !strcmp(f + 5, name))
		raise(SIGSTOP);
}
