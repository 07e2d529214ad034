/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pod-facing addresses: every IP of every pod interface registered in
 * the data path, with its master. Each must have a RoCE v2 GID on the
 * master's RDMA port, or RDMA from that pod fails ("ibv_modify_qp failed
 * with error No such device", "Failed to modify QP to RTR"). */
#ifndef RDMANET_RDMA_POD_ADDRS_H
#define RDMANET_RDMA_POD_ADDRS_H

#include <rdmanet/pod.h>

#include "error.h"
#include "netaddr.h"
#include "rdma/model.h"

struct rn_pod_addr {
	char ns[RN_NS_LEN];
	char pod[RN_POD_NAME_LEN];
	char ifname[RN_IFNAMSIZ];
	char master[RN_IFNAMSIZ];
	struct rn_addr addr;
};

/* From the pinned maps under pin_dir; fails (with rdmanetd's hint) if
 * they are not there. */
int rn_pod_addrs_list(const char *pin_dir, struct rn_pod_addr **out, int *n,
		      struct rn_error *e);

/* The RoCE v2 GID of a pod address on its master's RDMA port; NULL if
 * there is none. *dev_out / *port_out (may be NULL) get the master's
 * device and port, NULL if the master backs no RDMA port. */
const struct rn_rdma_gid *rn_pod_addr_gid(const struct rn_rdma_model *m,
					  const struct rn_pod_addr *pa,
					  struct rn_rdma_dev **dev_out,
					  struct rn_rdma_port **port_out);

#endif
