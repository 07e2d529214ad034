/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Milliseconds on CLOCK_MONOTONIC: deadlines, waits and ages that a
 * change of the wall clock must not move. */
#ifndef RDMANET_MONOTONIC_H
#define RDMANET_MONOTONIC_H

long long rn_monotonic_ms(void);

#endif
