// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault.h"
#include "log.h"

static double since_start_ms(void)
{
	static struct timespec t0;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!t0.tv_sec)
		t0 = now;
	return (double)(now.tv_sec - t0.tv_sec) * 1e3 + (double)(now.tv_nsec - t0.tv_nsec) / 1e6;
}

void cni_fault_point(const char *name)
{
	const char *f = getenv("RDMANET_CNI_FAULT");

	rn_debug("%s at %.1f ms", name, since_start_ms());
	if (!f || strncmp(f, "stop@", 5) || strcmp(f + 5, name))
		return;
	rn_info("fault injection: stopping at %s", name);
	raise(SIGSTOP);
}
