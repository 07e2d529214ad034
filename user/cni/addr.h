/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Addresses of the pod interface. IPv6 ones are added without kernel DAD
 * (IFA_F_NODAD): the plugin ran its own duplicate check before, and a
 * tentative address could not be used for the next second or two. */
#ifndef RDMANET_CNI_ADDR_H
#define RDMANET_CNI_ADDR_H

#include <stdbool.h>
#include <netlink/netlink.h>

#include "error.h"
#include "netaddr.h"

int cni_addr_add(struct nl_sock *pod, int ifindex, const struct rn_prefix *p,
		 struct rn_error *e);
/* True if ifindex carries exactly this address and prefix length. */
int cni_addr_present(struct nl_sock *pod, int ifindex, const struct rn_prefix *p, bool *found,
		     struct rn_error *e);

/* Up to max addresses of ifindex (IPv6 link-local ones left out). Returns
 * how many, or < 0. */
int cni_addr_list(struct nl_sock *pod, int ifindex, struct rn_addr *out, int max,
		  struct rn_error *e);

#endif
