// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <linux/close_range.h>
#include <linux/rtnetlink.h>
#include <sys/wait.h>
#include <netlink/socket.h>

#include "fault.h"
#include "link.h"
#include "link_delete.h"

/* What the child writes, in one write (less than PIPE_BUF: atomic). */
struct deletion_result {
	bool deleted;
	struct rn_error e;
};

/* The child keeps its socket and the pipe; stdio on /dev/null. */
static void keep_only(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a, null = open("/dev/null", O_RDWR);

	for (int fd = 0; fd <= 2 && null >= 0; fd++)
		if (fd != lo && fd != hi)
			dup2(null, fd);
	if (null > 2 && null != lo && null != hi)
		close(null);
	if (lo > 3)
		close_range(3, (unsigned int)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned int)lo + 1, (unsigned int)hi - 1, 0);
	close_range((unsigned int)hi + 1, ~0U, 0);
}

static void delete_in_child(struct nl_sock *sk, int ifindex, const char *name, int result_fd)
{
	struct deletion_result r = { 0 };
	ssize_t n;

	keep_only(nl_socket_get_fd(sk), result_fd);
	cni_link_delete_index(sk, ifindex, name, &r.deleted, &r.e);
	cni_fault_point("link-deleted");
	n = write(result_fd, &r, sizeof(r));
	_exit(n == (ssize_t)sizeof(r) ? 0 : 1);
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

/* The child, with a socket of its own (the caller goes on using pod), and
 * the read end of its answer in d->result_fd. */
static void start_child(const struct cni_netns *ns, struct cni_link_deletion *d)
{
	struct rn_error ignored = { 0 };
	struct nl_sock *sk = cni_nl_open(ns, &ignored);
	int pipefd[2];

	if (!sk)
		return;
	if (pipe2(pipefd, O_CLOEXEC)) {
		nl_socket_free(sk);
		return;
	}
	d->child = fork();
	if (d->child == 0)
		delete_in_child(sk, d->ifindex, d->name, pipefd[1]);
	close(pipefd[1]);
	nl_socket_free(sk);
	if (d->child < 0) {
		d->child = 0;
		close(pipefd[0]);
		return;
	}
	d->result_fd = pipefd[0];
}

static void release(struct cni_link_deletion *d)
{
	if (d->watch)
		nl_socket_free(d->watch);
	d->watch = NULL;
	if (d->result_fd >= 0)
		close(d->result_fd);
	d->result_fd = -1;
}

int cni_link_deletion_start(struct nl_sock *pod, const struct cni_netns *ns, const char *name,
			    const char *alias, struct cni_link_deletion *d, struct rn_error *e)
{
	int ours;

	memset(d, 0, sizeof(*d));
	d->result_fd = -1;
	d->name = name;
	ours = cni_link_ours(pod, name, alias, &d->ifindex, e);
	if (ours <= 0)
		return ours;
	if (ns)
		d->watch = open_watch(ns, &d->e);
	if (d->watch)
		start_child(ns, d);
	if (!d->child) {
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

	if (!d->child)
		return;
	p[0] = (struct pollfd){ .fd = nl_socket_get_fd(d->watch), .events = POLLIN };
	p[1] = (struct pollfd){ .fd = d->result_fd, .events = POLLIN };
	for (;;) {
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (p[1].revents)
			return;		/* the child answered (or died) */
		n = recv(p[0].fd, buf, sizeof(buf), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		/* ENOBUFS (announcements lost) and the like: wait for the child */
		if (n <= 0) {
			p[0].fd = -1;
			continue;
		}
		if (announces_deletion(buf, n, d->ifindex)) {
			d->announced = true;
			return;
		}
	}
}

/* The child's answer; a child that died without one failed. */
static void read_result(struct cni_link_deletion *d)
{
	struct deletion_result r;
	ssize_t n;

	do
		n = read(d->result_fd, &r, sizeof(r));
	while (n < 0 && errno == EINTR);
	waitpid(d->child, NULL, 0);
	if (n == (ssize_t)sizeof(r)) {
		d->deleted = r.deleted;
		d->e = r.e;
	} else {
		rn_fail(&d->e, -EIO, "delete %s: the deleting process gave no answer", d->name);
	}
}

int cni_link_deletion_finish(struct cni_link_deletion *d, bool *deleted, struct rn_error *e)
{
	if (d->child && d->announced) {
		d->deleted = true;	/* the kernel finishes it in the child */
		waitpid(d->child, NULL, WNOHANG);
	} else if (d->child) {
		read_result(d);
	}
	d->child = 0;
	release(d);
	*deleted = d->deleted;
	if (d->e.code) {
		*e = d->e;
		return e->code;
	}
	return 0;
}
