/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Masters when the config lists none: the netdevs behind RDMA ports whose
 * link layer is Ethernet (RoCE), as the RDMA device model sees them. */
#ifndef RDMANET_AGENT_DISCOVER_H
#define RDMANET_AGENT_DISCOVER_H

#include "config.h"

/* Fills names (up to max) and returns how many, or a negative errno.
 * sysfs_root is the default root ($RDMANET_SYSFS_ROOT overrides it). */
int rn_discover_roce_netdevs(const char *sysfs_root, char names[][RN_IFNAMSIZ], int max);
/* The same with the config's rdma section: its sysfs root and the device
 * plugin selectors (only selected devices' netdevs). */
int rn_discover_roce_netdevs_config(const struct rn_config *c, char names[][RN_IFNAMSIZ],
				    int max);

#endif
