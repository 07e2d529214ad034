// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* gRPC deadlines (a completion queue's wait, a call's timeout) on gRPC's
 * monotonic clock. */
#include <grpc/support/time.h>

#include "grpcrt/grpcrt.h"

gpr_timespec rn_grpc_deadline_ms(long ms)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}
