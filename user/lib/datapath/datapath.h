/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The userspace side of the data path, as the agent, the CLI and the CNI
 * plugin see it: attaching the programs to a master (attach.h), the pinned
 * maps (maps.h, map_sizes_user.h, pin.h), pod registration (registry.h),
 * the per-pod program (pod_prog.h),
 * counters and their JSON (stats.h), the data path's metric families
 * (metrics_datapath.h; the whole textfile is node/node.h's). Include this
 * header, not the ones it names. */
#ifndef RDMANET_DATAPATH_H
#define RDMANET_DATAPATH_H

#include "attach.h"
#include "map_sizes_user.h"
#include "maps.h"
#include "metrics_datapath.h"
#include "pin.h"
#include "pod_prog.h"
#include "registry.h"
#include "stats.h"

#endif
