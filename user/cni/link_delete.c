// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <linux/rtnetlink.h>
#include <sys/eventfd.h>
#include <netlink/socket.h>

#include "link.h"
#include "link_delete.h"

static void *delete_link(void *arg)
{
	struct cni_link_deletion *d = arg;
	uint64_t one = 1;
	ssize_t n;

	cni_link_delete_index(d->pod, d->ifindex, d->name, &d->deleted, &d->e);
	/* an eventfd write of 1 cannot fail short of a bug; the waiter would
	 * then go on at the announcement, and finish joins the thread anyway */
	n = write(d->done_fd, &one, sizeof(one));
	(void)n;
	return NULL;
}

/* A socket in the pod netns that hears link announcements, subscribed
 * before the delete is sent so the announcement cannot be missed. */
static struct nl_sock *open_watch(const struct cni_netns *ns, struct rn_error *e)
{
	struct nl_sock *w = cni_nl_open(ns, e);

	if (!w)
		return NULL;
	if (nl_socket_add_membership(w, RTNLGRP_LINK) < 0 || nl_socket_set_nonblocking(w) < 0) {
		nl_socket_free(w);
		return NULL;
	}
	return w;
}

static void release(struct cni_link_deletion *d)
{
	if (d->watch)
		nl_socket_free(d->watch);
	d->watch = NULL;
	if (d->done_fd >= 0)
		close(d->done_fd);
	d->done_fd = -1;
}

int cni_link_deletion_start(struct nl_sock *pod, const struct cni_netns *ns, const char *name,
			    const char *alias, struct cni_link_deletion *d, struct rn_error *e)
{
	int ours;

	memset(d, 0, sizeof(*d));
	d->done_fd = -1;
	d->pod = pod;
	d->name = name;
	ours = cni_link_ours(pod, name, alias, &d->ifindex, e);
	if (ours <= 0)
		return ours;
	if (ns)
		d->watch = open_watch(ns, &d->e);
	if (d->watch)
		d->done_fd = eventfd(0, EFD_CLOEXEC);
	if (d->done_fd >= 0)
		d->running = !pthread_create(&d->thread, NULL, delete_link, d);
	if (!d->running) {
		/* no watching: delete here, the way it always was */
		release(d);
		memset(&d->e, 0, sizeof(d->e));
		if (cni_link_delete_index(pod, d->ifindex, name, &d->deleted, &d->e)) {
			*e = d->e;
			return e->code;
		}
	}
	return 0;
}

/* True if buf holds RTM_DELLINK for ifindex. */
static bool announces_deletion(const char *buf, ssize_t len, int ifindex)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		const struct ifinfomsg *ifi = NLMSG_DATA(h);

		if (h->nlmsg_type == RTM_DELLINK &&
		    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifi)) && ifi->ifi_index == ifindex)
			return true;
	}
	return false;
}

void cni_link_deletion_gone(struct cni_link_deletion *d)
{
	struct pollfd p[2];
	char buf[8192];

	if (!d->running)
		return;
	p[0] = (struct pollfd){ .fd = nl_socket_get_fd(d->watch), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = d->done_fd, .events = POLLIN };
	for (;;) {
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[1].revents)
			return;		/* the delete returned (or failed) */
		n = recv(p[0].fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* ENOBUFS (announcements lost) and the like: wait for the return */
		if (n <= 0) {
			p[0].fd = -1;
			continue;
		}
		if (announces_deletion(buf, n, d->ifindex))
			return;
	}
}

int cni_link_deletion_finish(struct cni_link_deletion *d, bool *deleted, struct rn_error *e)
{
	if (d->running)
		pthread_join(d->thread, NULL);
	d->running = false;
	release(d);
	*deleted = d->deleted;
	if (d->e.code) {
		*e = d->e;
		return e->code;
	}
	return 0;
}
