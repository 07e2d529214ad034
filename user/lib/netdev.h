/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Facts about one netdev in the current network namespace, over rtnetlink. */
#ifndef RDMANET_NETDEV_H
#define RDMANET_NETDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "error.h"

struct rn_netdev {
	char ifname[RN_IFNAMSIZ];
	int ifindex;
	unsigned int mtu;
	uint8_t mac[6];
	bool up;
	char kind[32];		/* "veth", "macvlan", ... ("" for a physical device) */
};

/* By name (ifindex 0) or by index (ifname NULL). */
int rn_netdev_get(const char *ifname, int ifindex, struct rn_netdev *out, struct rn_error *e);

#endif
