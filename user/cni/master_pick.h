/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Which master the child link hangs off: the config's "master", or else
 * the first of the pools' "masters" (in the order the config lists pools,
 * then the pool's order) that exists on this node. */
#ifndef RDMANET_CNI_MASTER_PICK_H
#define RDMANET_CNI_MASTER_PICK_H

#include <rdmanet/master.h>

#include "cni_error.h"
#include "config.h"
#include "netconf.h"
#include "netdev.h"
#include "ipam/ipam.h"

/* Fills dev with the master's facts (host netns). Code 101 if it is not
 * there or not up, 7 if no master can be worked out. ipam NULL: from the
 * node config alone; returns 1 (err untouched) if a pool's masters are
 * only in the store. */
int cni_master_pick(const struct cni_netconf *c, const struct rn_config *cfg,
		    struct rn_ipam *ipam, struct rn_netdev *dev, struct cni_err *err);

#endif
