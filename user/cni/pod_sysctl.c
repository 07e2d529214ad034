// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "pod_sysctl.h"

int cni_pod_sysctl(const struct cni_netns *ns, int family, const char *ifname, const char *knob,
		   const char *value, struct rn_error *e)
{
	size_t len = strlen(value);
	char path[160];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s",
		 family == AF_INET6 ? "ipv6" : "ipv4", ifname, knob);
	if (cni_netns_enter(ns, e))
		return e->code;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	cni_netns_leave(ns);
	if (rc)
		return rn_fail(e, rc, "%s in %s: %s%s", path, ns->path, strerror(-rc),
			       family == AF_INET6 ? " (is IPv6 disabled in the pod?)" : "");
	return 0;
}
