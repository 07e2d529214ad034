// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where a resource's socket lives, and whether the config alone already
 * says it cannot be served there: kubelet dials it by path, a unix socket
 * path is at most 107 bytes, and kubelet's directory is device-plugins or,
 * with the plugin watcher, plugins_registry (chosen at start by which one
 * exists, so the longer one is what the config must fit). One resource
 * that fails this is not served; the others are (plugin_thread.c), and
 * rdmanetd --check-config says so before a start would. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devplugin/devplugin.h"

#define SUN_PATH_MAX 107	/* sizeof(sun_path) less its NUL */

void rn_dp_socket_name(const struct rn_dp_resource_config *rc, char *buf, size_t size)
{
	snprintf(buf, size, "rdmanet-%s-%s.sock", rc->prefix, rc->name);
}

int rn_dp_socket_path(const struct rn_dp_config *dc, const struct rn_dp_resource_config *rc,
		      bool watcher, char *buf, size_t size)
{
	char name[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN + 16];
	int n;

	rn_dp_socket_name(rc, name, sizeof(name));
	n = snprintf(buf, size, "%s/%s/%s", dc->kubelet_dir,
		     watcher ? "plugins_registry" : "device-plugins", name);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

int rn_dp_resource_servable(const struct rn_dp_config *dc, int i, struct rn_error *e)
{
	const struct rn_dp_resource_config *rc = &dc->res[i];
	char full[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN], name[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN + 16];
	char path[PATH_MAX + sizeof(name)], other[sizeof(name)];
	int n;

	rn_dp_resource_fullname(rc, full, sizeof(full));
	/* without the watcher, Register goes through kubelet.sock */
	if (strlen(dc->kubelet_dir) + sizeof("/device-plugins/kubelet.sock") - 1 > SUN_PATH_MAX)
		return rn_fail(e, -ENAMETOOLONG, "device plugin %s: %s/device-plugins/kubelet.sock "
			       "is longer than a unix socket allows (%d bytes): shorten "
			       "device_plugin.kubelet_dir", full, dc->kubelet_dir, SUN_PATH_MAX);
	n = rn_dp_socket_path(dc, rc, true, path, sizeof(path));
	if (n < 0 || n > SUN_PATH_MAX)
		return rn_fail(e, -ENAMETOOLONG, "device plugin %s: socket path %s is %d bytes, "
			       "longer than a unix socket allows (%d): shorten "
			       "device_plugin.kubelet_dir, the resourcePrefix or the resourceName",
			       full, path, n < 0 ? (int)strlen(path) : n, SUN_PATH_MAX);
	/* "a-b"/"c" and "a"/"b-c" would share one socket: the first keeps it */
	rn_dp_socket_name(rc, name, sizeof(name));
	for (int j = 0; j < i; j++) {
		rn_dp_socket_name(&dc->res[j], other, sizeof(other));
		if (!strcmp(name, other)) {
			rn_dp_resource_fullname(&dc->res[j], other, sizeof(other));
			return rn_fail(e, -EEXIST, "device plugin %s: its socket %s is also %s's; "
				       "rename one of them", full, name, other);
		}
	}
	return 0;
}

int rn_dp_config_servable(const struct rn_dp_config *dc, struct rn_error *e)
{
	struct rn_error first = { 0 };
	int bad = 0;

	for (int i = 0; i < dc->n_res; i++) {
		struct rn_error one = { 0 };

		if (rn_dp_resource_servable(dc, i, &one) && !bad++)
			first = one;
	}
	if (!bad)
		return 0;
	if (bad == 1)
		return rn_fail(e, first.code, "%s", first.msg);
	return rn_fail(e, first.code, "%s (and %d more resource(s) that cannot be served)",
		       first.msg, bad - 1);
}
