// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <time.h>

#include "monotonic.h"

long long rn_monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
