/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Named points in the IPAM library where a test stops the process
 * (RDMANET_IPAM_FAULT=stop@<point>: it sends itself SIGSTOP there), to run
 * another node's or the agent's step at an exact moment of this one, as
 * RDMANET_CNI_FAULT does for the plugin's steps (user/cni/fault.h). Unset,
 * a point costs one getenv. Points: release-etcd (rn_ipam_release, after
 * the node's own store had nothing, before etcd is asked). */
#ifndef RDMANET_IPAM_FAULT_H
#define RDMANET_IPAM_FAULT_H

void rn_ipam_fault_point(const char *name);

#endif
