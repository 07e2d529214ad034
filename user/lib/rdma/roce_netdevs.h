/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The netdevs that back an RDMA port with link layer Ethernet: what the
 * agent attaches to when the config lists no masters. VFs are left out
 * (their netdevs go into pods), and so are devices the selectors reject. */
#ifndef RDMANET_RDMA_ROCE_NETDEVS_H
#define RDMANET_RDMA_ROCE_NETDEVS_H

#include <rdmanet/master.h>

#include "error.h"
#include "rdma/model.h"
#include "rdma/roots.h"
#include "rdma/selectors.h"

/* Fills names (up to max, each once, in device order); returns how many.
 * sel may be NULL (every device). */
int rn_rdma_roce_netdevs(const struct rn_rdma_model *m, const struct rn_rdma_selectors *sel,
			 char names[][RN_IFNAMSIZ], int max);

/* Discovery: the model loaded from roots (sysfs, and RDMA netlink on the
 * live /sys) and the netdevs above. Tells "found none" from "could not
 * look":
 *   >= 0      it looked at every device: that many netdevs (the first max)
 *             are in names; 0 when there is no RDMA device (no
 *             class/infiniband: no RDMA driver loaded), no Ethernet port,
 *             or none the selectors select
 *   -errno    it could not look, e points at what: the sysfs root is no
 *             sysfs tree (-ENOENT) or unreadable, a device or port could
 *             not be read (m->read_err), or memory ran out. names is then
 *             not to be used, and nothing is known to be gone. */
int rn_rdma_discover_roce_netdevs(const struct rn_rdma_roots *roots,
				  const struct rn_rdma_selectors *sel, char names[][RN_IFNAMSIZ],
				  int max, struct rn_error *e);

#endif
