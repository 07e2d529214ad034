/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One attachment as ADD builds it: the pod interface, its addresses from
 * the pools, and the routes planned for it. The result, CHECK and the
 * state record are all views of this. */
#ifndef RDMANET_CNI_ATTACHMENT_H
#define RDMANET_CNI_ATTACHMENT_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "netaddr.h"
#include "ipam/ipam.h"

#define CNI_ATT_MAX_ROUTES 80

/* A route as installed: table 0 is the main table. */
struct cni_att_route {
	struct rn_prefix dst;
	bool has_gw;
	struct rn_addr gw;
	uint32_t table;
	bool link_scope;		/* the subnet route (no gateway) */
	struct rn_addr src;		/* preferred source (the attachment's address) */
};

struct cni_attachment {
	char ifname[RN_IFNAMSIZ];
	const char *sandbox;		/* CNI_NETNS */
	int ifindex;			/* in the pod netns */
	uint8_t mac[6];
	unsigned int mtu;
	char master[RN_IFNAMSIZ];
	unsigned int n_addrs;
	struct rn_ipam_address addrs[2];	/* IPv4 first */
	uint32_t table;			/* 0: no policy routing */
	unsigned int n_routes;
	struct cni_att_route routes[CNI_ATT_MAX_ROUTES];
};

#endif
