/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What each RDMA-capable NIC driver needs around it: the kernel module that
 * registers its RDMA device and the rdma-core (libibverbs) provider that
 * drives it from userspace. The uverbs driver id is what the kernel
 * reports over RDMA netlink and what rdma-core matches providers by. */
#ifndef RDMANET_RDMA_DRIVERS_H
#define RDMANET_RDMA_DRIVERS_H

struct rn_rdma_driver_info {
	const char *netdev_driver;	/* PCI/netdev driver, or "rxe"/"siw" */
	const char *ib_module;		/* module that adds the RDMA device */
	const char *provider;		/* /etc/libibverbs.d/<provider>.driver */
	int driver_id;			/* enum rdma_driver_id */
};

/* By netdev (PCI) driver name; NULL if not an RDMA-capable driver we know. */
const struct rn_rdma_driver_info *rn_rdma_driver_by_name(const char *netdev_driver);
/* By the uverbs driver id from RDMA netlink; NULL if unknown. */
const struct rn_rdma_driver_info *rn_rdma_driver_by_id(int driver_id);

#endif
