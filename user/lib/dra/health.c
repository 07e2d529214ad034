// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What the agent's health file and textfile say about the DRA driver. Its
 * threads publish their state with atomics (the publisher's error text
 * under its own lock, slice_thread.c); the agent's main thread reads it
 * without stopping them. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dra/internal.h"
#include "dra/slices.h"
#include "monotonic.h"

static atomic_ullong counts[DRA_N_COUNTS];

void dra_count(enum dra_count which)
{
	atomic_fetch_add(&counts[which], 1);
}

unsigned long long dra_counted(enum dra_count which)
{
	return atomic_load(&counts[which]);
}

void dra_live_beat(struct dra_live *l)
{
	atomic_store(&l->beat_ms, rn_monotonic_ms());
}

void dra_health_fill(const struct dra_live *l, const char *driver,
		     struct rn_dra_slicer *slicer, struct rn_dra_health *h)
{
	long long beat = atomic_load(&l->beat_ms);

	memset(h, 0, sizeof(*h));
	snprintf(h->driver, sizeof(h->driver), "%s", driver);
	h->registered = atomic_load(&l->registered);
	h->prepared = atomic_load(&l->prepared);
	h->beat_age_ms = beat ? rn_monotonic_ms() - beat : -1;
	h->prepares_ok = dra_counted(DRA_PREPARE_OK);
	h->prepares_failed = dra_counted(DRA_PREPARE_FAILED);
	h->unprepares_ok = dra_counted(DRA_UNPREPARE_OK);
	h->unprepares_failed = dra_counted(DRA_UNPREPARE_FAILED);
	rn_dra_slicer_health(slicer, &h->slices);
}
