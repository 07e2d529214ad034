// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The "dra" config section (see dra.h): every key has a default; paths
 * must be absolute, the driver name valid as resource.k8s.io takes it, and
 * the sockets' paths short enough for a unix socket. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dra/dra.h"
#include "json_fields.h"
#include "rdma/rdma.h"

#define SUN_PATH_MAX 108

int rn_dra_driver_name_check(const char *name, struct rn_error *e)
{
	size_t n = strlen(name), label = 0;

	if (!n || n > 63)
		return rn_fail(e, -EINVAL, "driver name \"%s\": 1 to 63 characters", name);
	for (size_t i = 0; i < n; i++) {
		char ch = name[i];
		bool alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');

		if (ch == '.') {
			if (!label || name[i - 1] == '-')
				return rn_fail(e, -EINVAL, "driver name \"%s\": not a DNS subdomain "
					       "(an empty label or one ending in '-')", name);
			label = 0;
			continue;
		}
		if (!alnum && ch != '-')
			return rn_fail(e, -EINVAL, "driver name \"%s\": not a DNS subdomain ('%c': "
				       "only a-z, 0-9, '-' and '.')", name, ch);
		if (!label && ch == '-')
			return rn_fail(e, -EINVAL, "driver name \"%s\": a label starts with '-'",
				       name);
		label++;
	}
	if (!label || name[n - 1] == '-')
		return rn_fail(e, -EINVAL, "driver name \"%s\": not a DNS subdomain (ends with "
			       "'.' or '-')", name);
	return 0;
}

static int absolute(const char *key, const char *path, struct rn_error *e)
{
	if (path[0] != '/')
		return rn_fail(e, -EINVAL, "config: dra.%s: must be an absolute path", key);
	return 0;
}

static json_t *section_of(const struct rn_config *c)
{
	return c->root ? json_object_get(c->root, "dra") : NULL;
}

/* "slices": where and how the node's ResourceSlices are published */
static int parse_slices(json_t *s, struct rn_dra_config *out, struct rn_error *e)
{
	static const char *const keys[] = { "publish", "kubeconfig", "shared_pods", "resync_s",
					    NULL };
	long long pods = out->slices.shared_pods, resync = out->slices.resync_s;

	if (!s)
		return 0;
	if (!json_is_object(s))
		return rn_fail(e, -EINVAL, "config: dra.slices: expected an object");
	/* a kubeconfig named is a wish to publish */
	if (json_object_get(s, "kubeconfig"))
		out->slices.publish = true;
	if (rn_json_only_keys(s, keys, "config: dra.slices", e) ||
	    rn_json_bool(s, "publish", &out->slices.publish, "config: dra.slices", e) ||
	    rn_json_string(s, "kubeconfig", out->slices.kubeconfig, sizeof(out->slices.kubeconfig),
			   "config: dra.slices", e) ||
	    rn_json_int(s, "shared_pods", 1, 1000000, &pods, "config: dra.slices", e) ||
	    rn_json_int(s, "resync_s", 1, 86400, &resync, "config: dra.slices", e))
		return e ? e->code : -EINVAL;
	out->slices.shared_pods = (unsigned int)pods;
	out->slices.resync_s = (unsigned int)resync;
	if (out->slices.kubeconfig[0])
		return absolute("slices.kubeconfig", out->slices.kubeconfig, e);
	return 0;
}

static int parse(json_t *s, const struct rn_config *c, struct rn_dra_config *out,
		 struct rn_error *e)
{
	static const char *const keys[] = { "enabled", "driver", "pool", "kubelet_dir",
					    "plugin_dir", "registry_dir", "claims_dir",
					    "state_dir", "cdi_dir", "slices", "kubeconfig", NULL };
	char kubelet_dir[PATH_MAX] = RN_DRA_DEFAULT_KUBELET_DIR;
	char sock[PATH_MAX + 32];
	struct rn_error ne = { 0 };

	memset(out, 0, sizeof(*out));
	snprintf(out->driver, sizeof(out->driver), "%s", RN_DRA_DEFAULT_DRIVER);
	snprintf(out->state_dir, sizeof(out->state_dir), "%s", RN_DRA_DEFAULT_STATE_DIR);
	snprintf(out->cdi_dir, sizeof(out->cdi_dir), "%s", RN_DRA_DEFAULT_CDI_DIR);
	snprintf(out->hold_dir, sizeof(out->hold_dir), "%s", c->cni.state_dir);
	if (c->node[0])
		snprintf(out->pool, sizeof(out->pool), "%s", c->node);
	else
		gethostname(out->pool, sizeof(out->pool) - 1);
	snprintf(out->node, sizeof(out->node), "%s", out->pool);
	out->slices.shared_pods = RN_DRA_DEFAULT_SHARED_PODS;
	out->slices.resync_s = RN_DRA_DEFAULT_RESYNC_S;
	/* in a pod of the cluster (the DaemonSet) the API server is there */
	out->slices.publish = getenv("KUBERNETES_SERVICE_HOST") != NULL;
	rn_rdma_config_roots(c, &out->roots);
	if (!s)
		return 0;
	if (!json_is_object(s))
		return rn_fail(e, -EINVAL, "config: dra: expected an object");
	out->enabled = true;
	if (rn_json_only_keys(s, keys, "config: dra", e) ||
	    rn_json_bool(s, "enabled", &out->enabled, "config: dra", e) ||
	    rn_json_string(s, "driver", out->driver, sizeof(out->driver), "config: dra", e) ||
	    rn_json_string(s, "pool", out->pool, sizeof(out->pool), "config: dra", e) ||
	    rn_json_string(s, "kubelet_dir", kubelet_dir, sizeof(kubelet_dir), "config: dra", e) ||
	    rn_json_string(s, "plugin_dir", out->plugin_dir, sizeof(out->plugin_dir),
			   "config: dra", e) ||
	    rn_json_string(s, "registry_dir", out->registry_dir, sizeof(out->registry_dir),
			   "config: dra", e) ||
	    rn_json_string(s, "claims_dir", out->claims_dir, sizeof(out->claims_dir),
			   "config: dra", e) ||
	    rn_json_string(s, "state_dir", out->state_dir, sizeof(out->state_dir),
			   "config: dra", e) ||
	    rn_json_string(s, "cdi_dir", out->cdi_dir, sizeof(out->cdi_dir), "config: dra", e) ||
	    rn_json_string(s, "kubeconfig", out->kubeconfig, sizeof(out->kubeconfig),
			   "config: dra", e))
		return e ? e->code : -EINVAL;
	/* a kubeconfig named is a wish to publish (slices.publish may say no) */
	if (out->kubeconfig[0])
		out->slices.publish = true;
	if (parse_slices(json_object_get(s, "slices"), out, e))
		return e ? e->code : -EINVAL;
	if (out->kubeconfig[0] && absolute("kubeconfig", out->kubeconfig, e))
		return e->code;
	/* one client config for claims and slices, slices.kubeconfig kept */
	if (!out->slices.kubeconfig[0])
		snprintf(out->slices.kubeconfig, sizeof(out->slices.kubeconfig), "%s",
			 out->kubeconfig);
	if (rn_dra_driver_name_check(out->driver, &ne))
		return rn_fail(e, -EINVAL, "config: dra.driver: %s", ne.msg);
	if (!out->pool[0])
		return rn_fail(e, -EINVAL, "config: dra.pool: empty (and no node name to default "
			       "to)");
	if (!out->plugin_dir[0])
		snprintf(out->plugin_dir, sizeof(out->plugin_dir), "%.2000s/plugins/%s",
			 kubelet_dir, out->driver);
	if (!out->registry_dir[0])
		snprintf(out->registry_dir, sizeof(out->registry_dir), "%.2000s/plugins_registry",
			 kubelet_dir);
	if (absolute("kubelet_dir", kubelet_dir, e) ||
	    absolute("plugin_dir", out->plugin_dir, e) ||
	    absolute("registry_dir", out->registry_dir, e) ||
	    (out->claims_dir[0] && absolute("claims_dir", out->claims_dir, e)) ||
	    absolute("state_dir", out->state_dir, e) || absolute("cdi_dir", out->cdi_dir, e))
		return e ? e->code : -EINVAL;
	rn_dra_socket_paths(out, sock, sizeof(sock), NULL, 0);
	if (strlen(sock) >= SUN_PATH_MAX)
		return rn_fail(e, -ENAMETOOLONG, "config: dra.registry_dir: %s is longer than a "
			       "unix socket path allows (%d)", sock, SUN_PATH_MAX - 1);
	rn_dra_socket_paths(out, NULL, 0, sock, sizeof(sock));
	if (strlen(sock) >= SUN_PATH_MAX)
		return rn_fail(e, -ENAMETOOLONG, "config: dra.plugin_dir: %s is longer than a "
			       "unix socket path allows (%d)", sock, SUN_PATH_MAX - 1);
	return 0;
}

void rn_dra_socket_paths(const struct rn_dra_config *cfg, char *reg, size_t reg_size,
			 char *plugin, size_t plugin_size)
{
	/* kubelet's plugin watcher takes any socket file in its directory;
	 * "<driver>-reg.sock" is the name the kubelet helper library uses */
	if (reg)
		snprintf(reg, reg_size, "%.3900s/%s-reg.sock", cfg->registry_dir, cfg->driver);
	if (plugin)
		snprintf(plugin, plugin_size, "%.3900s/dra.sock", cfg->plugin_dir);
}

int rn_dra_config_parse(const struct rn_config *c, struct rn_dra_config *out,
			struct rn_error *e)
{
	return parse(section_of(c), c, out, e);
}

int rn_dra_config_check_section(json_t *section, const struct rn_config *c, struct rn_error *e)
{
	struct rn_dra_config cfg;

	return parse(section, c, &cfg, e);
}

int rn_dra_config_check(const struct rn_config *c, struct rn_error *e)
{
	return rn_dra_config_check_section(section_of(c), c, e);
}

bool rn_dra_wanted(const struct rn_config *c)
{
	struct rn_dra_config cfg;

	return !rn_dra_config_parse(c, &cfg, NULL) && cfg.enabled;
}

bool rn_dra_config_same(const struct rn_config *a, const struct rn_config *b)
{
	struct rn_dra_config x, y;

	if (rn_dra_config_parse(a, &x, NULL) || rn_dra_config_parse(b, &y, NULL))
		return false;
	return x.enabled == y.enabled && !strcmp(x.driver, y.driver) &&
	       !strcmp(x.pool, y.pool) && !strcmp(x.plugin_dir, y.plugin_dir) &&
	       !strcmp(x.registry_dir, y.registry_dir) && !strcmp(x.claims_dir, y.claims_dir) &&
	       !strcmp(x.kubeconfig, y.kubeconfig) &&
	       x.slices.publish == y.slices.publish &&
	       !strcmp(x.slices.kubeconfig, y.slices.kubeconfig) &&
	       x.slices.shared_pods == y.slices.shared_pods &&
	       x.slices.resync_s == y.slices.resync_s &&
	       !strcmp(x.state_dir, y.state_dir) && !strcmp(x.cdi_dir, y.cdi_dir) &&
	       !strcmp(x.hold_dir, y.hold_dir) && !strcmp(x.roots.sys, y.roots.sys) &&
	       !strcmp(x.roots.dev, y.roots.dev);
}
