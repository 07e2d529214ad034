/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* rn_addr/rn_prefix <-> libnl's struct nl_addr. */
#ifndef RDMANET_CNI_NL_ADDR_CONV_H
#define RDMANET_CNI_NL_ADDR_CONV_H

#include <stdbool.h>
#include <netlink/addr.h>

#include "netaddr.h"

/* NULL on allocation failure; free with nl_addr_put. */
struct nl_addr *cni_nl_addr(const struct rn_addr *a, unsigned int prefixlen);
struct nl_addr *cni_nl_prefix(const struct rn_prefix *p);
/* false if a is NULL or not an IPv4/IPv6 address. */
bool cni_from_nl_addr(struct nl_addr *a, struct rn_prefix *out);

#endif
