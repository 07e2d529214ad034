/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Per-interface sysctls inside the pod netns (/proc/sys/net shows the
 * netns of whoever opens it, so the write happens after setns). */
#ifndef RDMANET_CNI_POD_SYSCTL_H
#define RDMANET_CNI_POD_SYSCTL_H

#include <stdbool.h>

#include "error.h"
#include "netns.h"

struct cni_sysctl {
	int family;		/* AF_INET or AF_INET6 */
	const char *knob, *value;
	bool optional;		/* a knob the pod does not have (no IPv6) is skipped */
};

/* Writes each value to /proc/sys/net/<ipv4|ipv6>/conf/<ifname>/<knob>, in
 * order, in one visit to the pod netns; stops at the first that fails. */
int cni_pod_sysctls(const struct cni_netns *ns, const char *ifname, const struct cni_sysctl *v,
		    int n, struct rn_error *e);

#endif
