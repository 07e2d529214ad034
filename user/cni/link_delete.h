/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Deleting the pod's link without waiting for all of it. Within a few ms
 * of the request the kernel has taken the device down, out of the netns,
 * its addresses and routes away, and says so with RTM_DELLINK; then it
 * waits out an RCU grace period and the device's last references, and only
 * then does the delete return (15-30 ms on these machines, in every DEL of
 * every plugin). Work that needs only the first part (giving the addresses
 * back, unregistering) runs in between: the delete runs on a thread,
 * cni_link_deletion_gone waits for the announcement (or the delete's
 * return, whichever comes first), cni_link_deletion_finish for the rest. */
#ifndef RDMANET_CNI_LINK_DELETE_H
#define RDMANET_CNI_LINK_DELETE_H

#include <pthread.h>
#include <stdbool.h>
#include <netlink/netlink.h>

#include "error.h"
#include "netns.h"

struct cni_link_deletion {
	pthread_t thread;
	bool running;			/* the thread has the pod socket until finish */
	struct nl_sock *pod;
	struct nl_sock *watch;		/* the pod netns's link announcements */
	int done_fd;			/* eventfd: the delete returned */
	int ifindex;
	const char *name;
	bool deleted;
	struct rn_error e;		/* the delete's error, code 0 if none */
};

/* Starts deleting name from the pod netns (ns, through the socket pod) if
 * it is ours (cni_link_ours). Without a way to watch (no ns, no thread,
 * no socket) it deletes at once. d is set up either way; finish it. */
int cni_link_deletion_start(struct nl_sock *pod, const struct cni_netns *ns, const char *name,
			    const char *alias, struct cni_link_deletion *d, struct rn_error *e);
/* Returns once the link has left the netns, or the delete has returned. */
void cni_link_deletion_gone(struct cni_link_deletion *d);
/* Waits for the delete to return. *deleted: there was a link and it went. */
int cni_link_deletion_finish(struct cni_link_deletion *d, bool *deleted, struct rn_error *e);

#endif
