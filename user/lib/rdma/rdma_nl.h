/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* RDMA netlink (NETLINK_RDMA, the RDMA_NL_NLDEV client) through libnl: the
 * requests `rdma dev`, `rdma link`, `rdma system` and `rdma statistic` make,
 * answered from the kernel of the current network namespace. */
#ifndef RDMANET_RDMA_NL_H
#define RDMANET_RDMA_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "error.h"

struct rn_rdma_nl;

struct rn_rdma_nl_dev {
	unsigned int index;
	char name[64];
	unsigned int n_ports;
	char fw_ver[64];
	uint64_t node_guid;		/* host order; 0 if absent */
	uint64_t sys_image_guid;
	int node_type;			/* RDMA_NODE_*; -1 if absent */
	char protocol[16];		/* "roce", "ib", "iw" ("" on old kernels) */
};

struct rn_rdma_nl_port {
	unsigned int dev_index;
	char dev_name[64];
	unsigned int port;
	int state;			/* enum ib_port_state; -1 if absent */
	int phys_state;
	unsigned int ndev_index;	/* 0: no netdev in this netns */
	char ndev_name[RN_IFNAMSIZ];
};

typedef int (*rn_rdma_nl_dev_cb)(const struct rn_rdma_nl_dev *d, void *arg);
typedef int (*rn_rdma_nl_port_cb)(const struct rn_rdma_nl_port *p, void *arg);
typedef int (*rn_rdma_nl_counter_cb)(const char *name, uint64_t value, void *arg);

int rn_rdma_nl_open(struct rn_rdma_nl **out, struct rn_error *e);
void rn_rdma_nl_close(struct rn_rdma_nl *nl);

/* Every device, then every port of one device (the kernel dumps ports per
 * device). A callback returning non-zero stops the walk. */
int rn_rdma_nl_dev_dump(struct rn_rdma_nl *nl, rn_rdma_nl_dev_cb cb, void *arg,
			struct rn_error *e);
int rn_rdma_nl_port_dump(struct rn_rdma_nl *nl, unsigned int dev_index, rn_rdma_nl_port_cb cb,
			 void *arg, struct rn_error *e);
/* RDMA_NLDEV_CMD_SYS_GET/SET: 1 shared, 0 exclusive. Setting fails with
 * -EBUSY while any network namespace other than the initial one exists. */
int rn_rdma_nl_netns_mode_get(struct rn_rdma_nl *nl, int *mode, struct rn_error *e);
int rn_rdma_nl_netns_mode_set(struct rn_rdma_nl *nl, int mode, struct rn_error *e);
/* The port's hardware counters, as `rdma statistic show link DEV/PORT`. */
int rn_rdma_nl_stat_get(struct rn_rdma_nl *nl, unsigned int dev_index, unsigned int port,
			rn_rdma_nl_counter_cb cb, void *arg, struct rn_error *e);
/* The uverbs driver id (enum rdma_driver_id) of a device: what rdma-core
 * picks its provider by. -ENOENT if the kernel does not say. */
int rn_rdma_nl_uverbs_driver_id(struct rn_rdma_nl *nl, unsigned int dev_index, int *id,
				struct rn_error *e);
/* RDMA_NLDEV_CMD_SET {DEV_INDEX, NET_NS_FD}: `rdma dev set DEV netns NS`.
 * The kernel answers EOPNOTSUPP for a driver that cannot disassociate its
 * user contexts (rxe) and needs exclusive netns mode. */
int rn_rdma_nl_dev_set_netns(struct rn_rdma_nl *nl, unsigned int dev_index, int netns_fd,
			     struct rn_error *e);

#endif
