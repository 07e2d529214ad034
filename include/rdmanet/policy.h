/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Source-address policy modes and the reasons a packet violates them. */
#ifndef RDMANET_POLICY_H
#define RDMANET_POLICY_H

#include "base.h"

enum rn_policy {
	RN_POLICY_OFF = 0,
	RN_POLICY_MONITOR,	/* count violations, pass the packet */
	RN_POLICY_ENFORCE,	/* count violations, drop the packet */
};

enum rn_violation {
	/* source IP is not one of the pod's addresses on this master */
	RN_VIOLATION_SPOOFED_SOURCE = 0,
	RN_VIOLATION_MAX,
};

enum rn_ecn_mode {
	RN_ECN_OFF = 0,		/* leave ECN bits alone */
	RN_ECN_ECT0,		/* set ECT(0) on Not-ECT RoCE packets */
	RN_ECN_ECT1,		/* set ECT(1) on Not-ECT RoCE packets */
};

/* DSCP value meaning "use the master's default" in a pod entry. */
#define RN_DSCP_INHERIT 0xff
#define RN_DSCP_MAX 63
#define RN_DEFAULT_ROCE_DSCP 26
#define RN_DEFAULT_CNP_DSCP 48

#endif
