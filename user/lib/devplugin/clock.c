// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The clock of the device plugin thread's own schedule: seconds on
 * CLOCK_MONOTONIC (its gRPC deadlines are rn_grpc_deadline_ms's). */
#include <time.h>

#include "devplugin/grpc_internal.h"

double dp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
