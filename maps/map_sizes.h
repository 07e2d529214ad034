/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Default map sizes. rdmanetd may resize the pod maps (config "max_pods")
 * when it creates them; everyone else reads the size of the pinned map. */
#ifndef RDMANET_MAP_SIZES_H
#define RDMANET_MAP_SIZES_H

#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#define RN_DEFAULT_MAX_PODS 2048
#define RN_DEFAULT_MAX_POD_IPS (RN_DEFAULT_MAX_PODS * 2)

#endif
