/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Hardware QoS for offloaded RoCE, which bypasses the tc marker: the IP
 * TOS RDMA-CM puts on new connections (configfs rdma_cm/<dev>/ports/<N>/
 * default_roce_tos) and, where the driver has it, the port's global
 * traffic class (sysfs class/infiniband/<dev>/tc/<N>/traffic_class, as
 * mlx5 from MLNX_OFED exposes it). Both get tos = dscp << 2 | ecn bits. */
#ifndef RDMANET_RDMA_ROCE_QOS_H
#define RDMANET_RDMA_ROCE_QOS_H

#include <stdbool.h>

#include "config.h"
#include "rdma/model.h"
#include "rdma/rdma_config.h"
#include "rdma/selectors.h"

/* dscp << 2 | ECN codepoint (off 0, ECT(1) 1, ECT(0) 2). */
int rn_roce_tos(const struct rn_qos_config *q);

enum rn_qos_knob { RN_QOS_DEFAULT_ROCE_TOS = 0, RN_QOS_TRAFFIC_CLASS };

struct rn_qos_outcome {
	const char *dev;
	unsigned int port;
	enum rn_qos_knob knob;
	int old_value;		/* -1 unknown */
	int new_value;
	bool changed;
	int err;		/* -errno; 0 if in line (changed or not) */
	const char *hint;	/* why it failed and what to do */
};

typedef void (*rn_qos_cb)(const struct rn_qos_outcome *o, void *arg);

/* The ports whose QoS is rdmanet's to set: those of the netdevs the agent
 * manages, and no other NIC's. When the config lists masters, the Ethernet
 * ports whose netdev is one of them; when it lists none (auto-discovery),
 * the Ethernet ports of every device the selectors match (every device
 * when there are none; VFs included, since pods given one run offloaded
 * RoCE on it that the tc marker never sees). */
struct rn_qos_scope {
	const struct rn_master_config *masters;
	int n_masters;
	const struct rn_rdma_selectors *sel;	/* NULL: every device */
};

/* The scope of config c; rc (its parsed rdma section) must outlive it. */
void rn_roce_qos_scope(struct rn_qos_scope *s, const struct rn_config *c,
		       const struct rn_rdma_config *rc);
bool rn_roce_qos_in_scope(const struct rn_qos_scope *s, const struct rn_rdma_dev *d,
			  const struct rn_rdma_port *p);
/* Brings every port of m in scope in line with tos (nothing outside it is
 * read or written); cb gets one outcome per port and knob that exists
 * (traffic_class only where the driver has it). Returns the number of
 * failures. */
int rn_roce_qos_apply(const struct rn_rdma_model *m, const struct rn_qos_scope *scope, int tos,
		      rn_qos_cb cb, void *arg);
/* What default_roce_tos says now for (dev, port); -errno if unreadable. */
int rn_roce_qos_read_tos(const struct rn_rdma_roots *roots, const char *dev, unsigned int port);

#endif
