/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-interface sysctls inside the pod netns (/proc/sys/net shows the
 * netns of whoever opens it, so the write happens after setns). */
#ifndef RDMANET_CNI_POD_SYSCTL_H
#define RDMANET_CNI_POD_SYSCTL_H

#include "error.h"
#include "netns.h"

/* Writes value to /proc/sys/net/<ipv4|ipv6>/conf/<ifname>/<knob>. */
int cni_pod_sysctl(const struct cni_netns *ns, int family, const char *ifname, const char *knob,
		   const char *value, struct rn_error *e);

#endif
