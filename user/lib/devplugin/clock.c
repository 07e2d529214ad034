// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The clocks the device plugin's thread uses: seconds on CLOCK_MONOTONIC for
 * its own schedule, and gRPC deadlines on gRPC's monotonic clock. */
#include <time.h>
#include <grpc/support/time.h>

#include "devplugin/grpc_internal.h"

double dp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

gpr_timespec dp_deadline_ms(long ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}
