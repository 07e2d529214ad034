// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What both stores share beyond the pick: overlap checks against the
 * stored pools, check reports, the clock. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ipam/store.h"

int rn_pool_check_against(const struct rn_pool *p, const struct rn_ipam_pool_info *pools,
			  int n, struct rn_error *e)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(pools[i].pool.name, p->name))
			continue;
		if (rn_pool_check_overlap(p, &pools[i].pool, e))
			return e ? e->code : -EINVAL;
	}
	return 0;
}

void rn_check_note(char *report, size_t size, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!report || !size)
		return;
	used = strnlen(report, size);
	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(report + used, size - used, fmt, ap);
	va_end(ap);
	used = strnlen(report, size);
	if (used + 1 < size) {
		report[used] = '\n';
		report[used + 1] = '\0';
	}
}

long long rn_ipam_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
