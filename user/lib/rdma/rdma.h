/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RDMA module's interface, as the agent, the CLI, the CNI plugin and
 * the modules above it (sriov/, devplugin/, doctor/, dra/, node/) see it:
 * the device model from sysfs, RDMA netlink and libibverbs (model.h, its
 * roots roots.h, its JSON model_json.h, the providers drivers.h), GID
 * tables and their watch (gid.h, gid_watch.h), the "rdma" config section
 * and metric families (rdma_config.h), device selectors (selectors.h), the
 * masters that back RoCE ports (roce_netdevs.h), RoCE QoS (roce_qos.h),
 * NCCL/UCX environment (nccl_env.h), the pods' addresses and their GIDs
 * (pod_addrs.h), RDMA netlink commands (rdma_nl.h) and sysfs reads
 * (sysfs_attr.h). Include this header, not the ones it names: outside
 * rdma/ they are private (selftests/unit/test_module_headers.sh). */
#ifndef RDMANET_RDMA_H
#define RDMANET_RDMA_H

#include "rdma/drivers.h"
#include "rdma/gid.h"
#include "rdma/gid_watch.h"
#include "rdma/model.h"
#include "rdma/model_json.h"
#include "rdma/nccl_env.h"
#include "rdma/pod_addrs.h"
#include "rdma/rdma_config.h"
#include "rdma/rdma_nl.h"
#include "rdma/roce_netdevs.h"
#include "rdma/roce_qos.h"
#include "rdma/roots.h"
#include "rdma/selectors.h"
#include "rdma/sysfs_attr.h"

#endif
