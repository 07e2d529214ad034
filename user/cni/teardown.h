/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Undoing an attachment, whatever state it is in: ADD's rollback, DEL and
 * GC all come here. Each step is idempotent and tolerates what is already
 * gone (no netns, no link, no allocation, no registration); the record goes
 * last, and only when everything before it succeeded, so nothing is ever
 * forgotten while it may still exist. */
#ifndef RDMANET_CNI_TEARDOWN_H
#define RDMANET_CNI_TEARDOWN_H

#include <netlink/netlink.h>

#include "cni_error.h"
#include "netaddr.h"
#include "ipam/ipam.h"

#define CNI_TEARDOWN_MAX_ADDRS 8

struct cni_teardown {
	const char *network, *container_id, *ifname;
	const char *netns;		/* NULL or "": the pod side is gone or unknown */
	const char *pin_dir, *state_dir;
	struct rn_ipam *ipam;
	unsigned int n_addrs;		/* sources of the attachment's policy rules */
	struct rn_addr addrs[CNI_TEARDOWN_MAX_ADDRS];
};

/* Adds an address to the rule sources (duplicates ignored). */
void cni_teardown_add_addr(struct cni_teardown *t, const struct rn_addr *a);
/* Pod side through an open socket: rules, the link (if its alias says it
 * is ours), a leftover link under the temporary name. */
int cni_teardown_pod(struct nl_sock *pod, struct cni_teardown *t, struct rn_error *e);
/* The pod side, opening t->netns if it still exists (0 if it does not). */
int cni_teardown_netns(struct cni_teardown *t, struct cni_err *err);
/* The registration in the data path only (part of the host side). */
int cni_teardown_unregister(const struct cni_teardown *t, struct cni_err *err);
/* Host side: registration, allocation, record. */
int cni_teardown_host(const struct cni_teardown *t, struct cni_err *err);
/* Both, opening t->netns if it still exists. */
int cni_teardown_all(struct cni_teardown *t, struct cni_err *err);

#endif
