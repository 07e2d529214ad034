// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "pod_sysctl.h"

/* In the pod netns already: 0 or -errno. */
static int write_knob(const struct cni_sysctl *s, const char *ifname, char *path, size_t size)
{
	size_t len = strlen(s->value);
	int fd, rc = 0;

	snprintf(path, size, "/proc/sys/net/%s/conf/%s/%s",
		 s->family == AF_INET6 ? "ipv6" : "ipv4", ifname, s->knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, s->value, len) != (ssize_t)len)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	return rc;
}

int cni_pod_sysctls(const struct cni_netns *ns, const char *ifname, const struct cni_sysctl *v,
		    int n, struct rn_error *e)
{
	char path[160];
	int rc = 0, i;

	if (cni_netns_enter(ns, e))
		return e->code;
	for (i = 0; i < n; i++) {
		rc = write_knob(&v[i], ifname, path, sizeof(path));
		if (rc == -ENOENT && v[i].optional)
			rc = 0;
		if (rc)
			break;
	}
	cni_netns_leave(ns);
	if (rc)
		return rn_fail(e, rc, "%s in %s: %s%s", path, ns->path, strerror(-rc),
			       v[i].family == AF_INET6 ? " (is IPv6 disabled in the pod?)" : "");
	return 0;
}
