// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <netlink/socket.h>

#include "log.h"
#include "netns.h"
#include "nl_errno.h"

int cni_netns_open(struct cni_netns *ns, const char *path, struct rn_error *e)
{
	struct statfs sfs;
	struct stat st;

	ns->pod_fd = -1;
	ns->path = path;
	ns->host_fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns->host_fd < 0)
		return rn_fail(e, -errno, "open /proc/self/ns/net: %s", strerror(errno));
	ns->pod_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->pod_fd < 0) {
		int err = -errno;

		cni_netns_close(ns);
		return rn_fail(e, err, "netns %s: %s", path, strerror(-err));
	}
	if (fstatfs(ns->pod_fd, &sfs) || sfs.f_type != NSFS_MAGIC ||
	    ioctl(ns->pod_fd, NS_GET_NSTYPE) != CLONE_NEWNET || fstat(ns->pod_fd, &st)) {
		cni_netns_close(ns);
		return rn_fail(e, -EINVAL, "netns %s: not a network namespace", path);
	}
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	return 0;
}

void cni_netns_close(struct cni_netns *ns)
{
	if (ns->pod_fd >= 0)
		close(ns->pod_fd);
	if (ns->host_fd >= 0)
		close(ns->host_fd);
	ns->pod_fd = ns->host_fd = -1;
}

int cni_netns_enter(const struct cni_netns *ns, struct rn_error *e)
{
	if (setns(ns->pod_fd, CLONE_NEWNET))
		return rn_fail(e, -errno, "setns %s: %s", ns->path, strerror(errno));
	return 0;
}

void cni_netns_leave(const struct cni_netns *ns)
{
	if (setns(ns->host_fd, CLONE_NEWNET)) {
		rn_err("setns back to the host netns: %s", strerror(errno));
		abort();
	}
}

bool cni_netns_still_there(const struct cni_netns *ns)
{
	struct stat st;

	return !stat(ns->path, &st) && st.st_dev == ns->dev && st.st_ino == ns->ino;
}

struct nl_sock *cni_nl_open(const struct cni_netns *ns, struct rn_error *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk) {
		rn_fail(e, -ENOMEM, "netlink: out of memory");
		return NULL;
	}
	if (ns && cni_netns_enter(ns, e)) {
		nl_socket_free(sk);
		return NULL;
	}
	/* the socket belongs to the netns it is created in, wherever we go later */
	err = nl_connect(sk, NETLINK_ROUTE);
	if (ns)
		cni_netns_leave(ns);
	if (err < 0) {
		nl_socket_free(sk);
		rn_fail(e, rn_nl_errno(err), "netlink: %s", nl_geterror(err));
		return NULL;
	}
	return sk;
}
