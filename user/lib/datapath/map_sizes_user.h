/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Map sizes as userspace sees them (maps/map_sizes.h without BPF macros). */
#ifndef RDMANET_MAP_SIZES_USER_H
#define RDMANET_MAP_SIZES_USER_H

#include "../../maps/map_sizes.h"

/* RN_MAX_PODS_LIMIT, the bound of config "bpf.max_pods", is in config.h */

#endif
