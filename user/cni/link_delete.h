/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Deleting the pod's link without waiting for all of it. Within a few ms
 * of the request the kernel has taken the device down, out of the netns,
 * its addresses and routes away (ndo_uninit: a macvlan has left its
 * master's port), and says so with RTM_DELLINK; then it waits out RCU
 * (a grace period, then an rcu_barrier) and the device's last references,
 * and only then does the delete return: 15-30 ms on these machines, in
 * every DEL of every plugin, none of it visible from the netns.
 *
 * So the delete is sent by a child process, from a socket of its own, and
 * DEL goes on once the announcement comes: it gives the addresses back,
 * unregisters, removes the record and answers while the child waits for
 * the kernel. The child keeps nothing of the runtime's (stdin, stdout and
 * stderr are /dev/null, every other descriptor closed: no lock of ours
 * outlives DEL, and the runtime's pipe sees EOF when DEL exits); it ends
 * when the delete returns and is reaped by whoever adopts it. Without the
 * announcement (a delete refused, announcements lost) DEL waits for the
 * child's answer, as before. */
#ifndef RDMANET_CNI_LINK_DELETE_H
#define RDMANET_CNI_LINK_DELETE_H

#include <stdbool.h>
#include <sys/types.h>
#include <netlink/netlink.h>

#include "error.h"
#include "netns.h"

struct cni_link_deletion {
	pid_t child;			/* 0: none (deleted here, or nothing to delete) */
	struct nl_sock *watch;		/* the pod netns's link announcements */
	int result_fd;			/* the child's answer (struct in link_delete.c) */
	int ifindex;
	const char *name;
	bool announced;			/* RTM_DELLINK seen: the link is gone */
	bool deleted;
	struct rn_error e;		/* the delete's error, code 0 if none */
};

/* Starts deleting name from the pod netns ns if it is ours (cni_link_ours,
 * through the socket pod). Without a way to watch (no ns, no child, no
 * socket) it deletes at once, through pod. d is set up either way; finish
 * it. */
int cni_link_deletion_start(struct nl_sock *pod, const struct cni_netns *ns, const char *name,
			    const char *alias, struct cni_link_deletion *d, struct rn_error *e);
/* Returns once the link has left the netns, or the delete has returned. */
void cni_link_deletion_gone(struct cni_link_deletion *d);
/* The delete's outcome: at once if the kernel announced the link gone,
 * else once the child answers. *deleted: there was a link and it went. */
int cni_link_deletion_finish(struct cni_link_deletion *d, bool *deleted, struct rn_error *e);

#endif
