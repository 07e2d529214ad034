/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Masters when the config lists none: the netdevs behind RDMA ports whose
 * link layer is Ethernet (RoCE), as the RDMA device model sees them (see
 * rn_rdma_discover_roce_netdevs). Called every tick, so a failure is
 * logged when it starts or changes, not each time. */
#ifndef RDMANET_AGENT_DISCOVER_H
#define RDMANET_AGENT_DISCOVER_H

#include "config.h"

/* With the config's rdma section (its sysfs root, $RDMANET_SYSFS_ROOT
 * overriding it, and the device plugin selectors: only selected devices'
 * netdevs). Fills names (up to max) and returns how many, or a negative
 * errno.
 *   n > 0    it looked at every RDMA device: these are the RoCE netdevs
 *   0        it looked and found none: no RDMA device (no RDMA driver
 *            loaded), no Ethernet port, or none the selectors select
 *   -errno   it could not look: the sysfs root is unreadable or no sysfs
 *            tree, or a device or port could not be read (one it could
 *            not read may be a master). Says nothing about what exists;
 *            callers must not take it as "no masters" and release any.
 */
int rn_discover_roce_netdevs_config(const struct rn_config *c, char names[][RN_IFNAMSIZ],
				    int max);

#endif
