/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The master this program instance is attached to. rdmanetd loads one
 * instance per master with the slot baked in as a constant, so reaching the
 * master's config and counters is an array index. */
#ifndef RDMANET_BPF_MASTER_STATE_H
#define RDMANET_BPF_MASTER_STATE_H

#include "parse.h"
#include "../maps/masters.h"
#include "../maps/mst_ctr.h"

const volatile __u32 rn_master_slot = 0;

#endif
