/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What NCCL and UCX need to use the RoCE interfaces of a network namespace
 * (a pod's): each interface's address resolved to the RDMA device, port
 * and RoCE v2 GID index that carry it. In shared mode the GID index of a
 * pod's address depends on how many pods came before it, so it has to be
 * looked up, not assumed. */
#ifndef RDMANET_RDMA_NCCL_ENV_H
#define RDMANET_RDMA_NCCL_ENV_H

#include <rdmanet/master.h>

#include "error.h"
#include "netaddr.h"
#include "rdma/model.h"

#define RN_LOCAL_IF_ADDRS 8

struct rn_local_if {
	char name[RN_IFNAMSIZ];
	struct rn_addr addrs[RN_LOCAL_IF_ADDRS];	/* IPv4 first, then IPv6 */
	int n_addrs;
};

struct rn_env_rail {
	char ifname[RN_IFNAMSIZ];
	struct rn_addr addr;
	char dev[RN_RDMA_NAME_LEN];
	unsigned int port;
	unsigned int gid_index;
	uint8_t gid[16];
};

struct rn_env_skip {
	char ifname[RN_IFNAMSIZ];
	char why[160];
};

struct rn_env {
	struct rn_env_rail rails[RN_MAX_MASTERS];
	int n_rails;
	struct rn_env_skip skipped[RN_MAX_MASTERS];
	int n_skipped;
	bool same_gid_index;	/* every rail has the same index */
	int family;		/* AF_INET or AF_INET6: what the rails resolved by */
};

/* Interfaces of the current network namespace with their addresses (no
 * loopback, no link-local IPv6), sorted by name; an interface without an
 * address is listed with none. */
int rn_local_ifaces(struct rn_local_if **out, int *n, struct rn_error *e);

/* Resolves ifs (only the one named only, if not NULL) against m. Fails
 * when no interface resolves, with a message that says why for each. */
int rn_env_resolve(const struct rn_rdma_model *m, const struct rn_local_if *ifs, int n,
		   const char *only, struct rn_env *out, struct rn_error *e);

/* Fills vars with the variables (NCCL_IB_HCA, NCCL_IB_GID_INDEX or, when
 * rails differ, NCCL_IB_ADDR_FAMILY + NCCL_IB_ROCE_VERSION_NUM,
 * NCCL_SOCKET_IFNAME, UCX_NET_DEVICES), name NULL after the last; returns
 * how many. */
struct rn_env_var {
	const char *name;
	char value[512];
};
int rn_env_vars(const struct rn_env *env, struct rn_env_var vars[8]);

#endif
