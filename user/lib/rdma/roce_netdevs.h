/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The netdevs that back an RDMA port with link layer Ethernet: what the
 * agent attaches to when the config lists no masters. VFs are left out
 * (their netdevs go into pods), and so are devices the selectors reject. */
#ifndef RDMANET_RDMA_ROCE_NETDEVS_H
#define RDMANET_RDMA_ROCE_NETDEVS_H

#include <rdmanet/master.h>

#include "rdma/model.h"
#include "rdma/selectors.h"

/* Fills names (up to max, each once, in device order); returns how many.
 * sel may be NULL (every device). */
int rn_rdma_roce_netdevs(const struct rn_rdma_model *m, const struct rn_rdma_selectors *sel,
			 char names[][RN_IFNAMSIZ], int max);

#endif
