/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pod's network namespace: held open by fd for the whole command (so it
 * cannot be swapped under us), entered with setns() only around what must
 * run inside it, and netlink sockets bound to it or to the host's. IPAM and
 * registry calls always run in the host netns (etcd is reached over the
 * host's network). */
#ifndef RDMANET_CNI_NETNS_H
#define RDMANET_CNI_NETNS_H

#include <stdbool.h>
#include <sys/types.h>
#include <netlink/netlink.h>

#include "error.h"

struct cni_netns {
	int host_fd;			/* the netns we were started in */
	int pod_fd;
	dev_t dev;			/* identity of the pod netns */
	ino_t ino;
	const char *path;
};

/* -ENOENT if path does not exist, -EINVAL if it is not a network namespace. */
int cni_netns_open(struct cni_netns *ns, const char *path, struct rn_error *e);
void cni_netns_close(struct cni_netns *ns);
int cni_netns_enter(const struct cni_netns *ns, struct rn_error *e);
/* Back to the host netns; failing here would leave the process in the pod,
 * so it aborts instead. */
void cni_netns_leave(const struct cni_netns *ns);
/* True while path still names the namespace we opened (not deleted, not
 * replaced by another one). */
bool cni_netns_still_there(const struct cni_netns *ns);
/* A NETLINK_ROUTE socket in the pod netns (ns) or in the host's (ns NULL). */
struct nl_sock *cni_nl_open(const struct cni_netns *ns, struct rn_error *e);

#endif
