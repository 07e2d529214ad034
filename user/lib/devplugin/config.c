// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The "device_plugin" section: the RDMA shared device plugin's config.json
 * keys, inline or in the file configFile names, with that plugin's rules
 * (resourceName [A-Za-z0-9_]+ and unique, rdmaHcaMax >= 0, selectors or
 * the legacy devices but not both) plus kubelet's check of the full name,
 * so a name kubelet would refuse fails here, at config time. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin/devplugin.h"
#include "json_fields.h"

static bool plugin_name_ok(const char *n)
{
	if (!n[0])
		return false;
	for (; *n; n++)
		if (!(*n >= 'a' && *n <= 'z') && !(*n >= 'A' && *n <= 'Z') &&
		    !(*n >= '0' && *n <= '9') && *n != '_')
			return false;
	return true;
}

static int parse_devices(json_t *arr, struct rn_rdma_selectors *s, const char *where,
			 struct rn_error *e)
{
	json_t *sel = json_object(), *copy = json_copy(arr);
	int err;

	/* "devices" is the plugin's old name for an ifNames selector */
	json_object_set_new(sel, "ifNames", copy);
	err = rn_selectors_parse(sel, s, where, e);
	json_decref(sel);
	return err;
}

static int parse_resource(json_t *r, struct rn_dp_resource_config *rc, const char *where,
			  struct rn_error *e)
{
	static const char *const keys[] = { "resourceName", "resourcePrefix", "rdmaHcaMax",
					    "selectors", "devices", "healthyWhen", NULL };
	static const char *const healthy_when[] = { "anyHca", "everyHca" };
	int when = 0;
	char sub[160], full[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN];
	json_t *sel, *dev;

	memset(rc, 0, sizeof(*rc));
	snprintf(rc->prefix, sizeof(rc->prefix), "%s", RN_DP_DEFAULT_PREFIX);
	rc->hca_max = RN_DP_DEFAULT_HCA_MAX;
	if (!json_is_object(r))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(r, keys, where, e) ||
	    rn_json_string(r, "resourceName", rc->name, sizeof(rc->name), where, e) ||
	    rn_json_string(r, "resourcePrefix", rc->prefix, sizeof(rc->prefix), where, e) ||
	    rn_json_int(r, "rdmaHcaMax", 0, 1000000, &rc->hca_max, where, e) ||
	    rn_json_typed(r, "selectors", JSON_OBJECT, &sel, where, e) ||
	    rn_json_typed(r, "devices", JSON_ARRAY, &dev, where, e) ||
	    rn_json_enum(r, "healthyWhen", healthy_when, 2, &when, where, e))
		return -EINVAL;
	rc->healthy_every = when == 1;
	if (!json_object_get(r, "resourceName"))
		return rn_fail(e, -EINVAL, "%s.resourceName: missing", where);
	if (!plugin_name_ok(rc->name))
		return rn_fail(e, -EINVAL, "%s.resourceName: \"%s\": only letters, digits and _ "
			       "(as the RDMA shared device plugin allows)", where, rc->name);
	if (!rc->prefix[0])
		snprintf(rc->prefix, sizeof(rc->prefix), "%s", RN_DP_DEFAULT_PREFIX);
	if (rn_dp_shared_units_fit(rc->hca_max) < rc->hca_max)
		return rn_fail(e, -EINVAL, "%s.rdmaHcaMax: %lld devices do not fit in one "
			       "ListAndWatch message (kubelet takes at most %u bytes): at most %lld",
			       where, rc->hca_max, RN_DP_KUBELET_MSG_MAX,
			       rn_dp_shared_units_fit(rc->hca_max));
	snprintf(sub, sizeof(sub), "%s.selectors", where);
	if (rn_selectors_parse(sel, &rc->selectors, sub, e))
		return -EINVAL;
	if (dev && json_array_size(dev)) {
		if (!rn_selectors_empty(&rc->selectors))
			return rn_fail(e, -EINVAL, "%s: \"selectors\" and \"devices\" both given; "
				       "use selectors (devices is the old ifNames)", where);
		snprintf(sub, sizeof(sub), "%s.devices", where);
		if (parse_devices(dev, &rc->selectors, sub, e))
			return -EINVAL;
		rc->from_devices = true;
	}
	if (rn_selectors_empty(&rc->selectors))
		return rn_fail(e, -EINVAL, "%s: neither \"selectors\" nor \"devices\": a resource "
			       "must select its HCAs", where);
	rn_dp_resource_fullname(rc, full, sizeof(full));
	if (rn_dp_resource_name_check(full, e))
		return rn_fail_wrap(e, "%s", where);
	return 0;
}

/* The keys the shared plugin's config.json has. */
static int parse_plugin_keys(json_t *obj, struct rn_dp_config *out, const char *where,
			     struct rn_error *e)
{
	char sub[96];
	long long v = out->periodic_s;
	json_t *list, *r;
	size_t i;

	if (rn_json_int(obj, "periodicUpdateInterval", 0, 86400, &v, where, e) ||
	    rn_json_typed(obj, "configList", JSON_ARRAY, &list, where, e))
		return -EINVAL;
	out->periodic_s = (int)v;
	if (json_array_size(list) > RN_DP_MAX_RESOURCES)
		return rn_fail(e, -EINVAL, "%s.configList: more than %d resources", where,
			       RN_DP_MAX_RESOURCES);
	json_array_foreach(list, i, r) {
		struct rn_dp_resource_config *rc = &out->res[i];

		snprintf(sub, sizeof(sub), "%s.configList[%zu]", where, i);
		if (parse_resource(r, rc, sub, e))
			return -EINVAL;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(out->res[j].name, rc->name) &&
			    !strcmp(out->res[j].prefix, rc->prefix))
				return rn_fail(e, -EINVAL, "%s.resourceName: \"%s\" already used by "
					       "configList[%zu]", sub, rc->name, j);
		out->n_res = (int)i + 1;
	}
	return 0;
}

static int parse_config_file(struct rn_dp_config *out, struct rn_error *e)
{
	static const char *const keys[] = { "periodicUpdateInterval", "configList", NULL };
	json_error_t jerr;
	json_t *root = json_load_file(out->config_file, JSON_REJECT_DUPLICATES, &jerr);
	char where[PATH_MAX + 64];
	int err;

	snprintf(where, sizeof(where), "config: device_plugin.configFile %s", out->config_file);
	if (!root)
		return rn_fail(e, jerr.line < 1 ? -ENOENT : -EINVAL, "%s: line %d column %d: %s",
			       where, jerr.line, jerr.column, jerr.text);
	err = (!json_is_object(root) ? rn_fail(e, -EINVAL, "%s: expected an object", where) : 0) ||
	      rn_json_only_keys(root, keys, where, e) || parse_plugin_keys(root, out, where, e);
	json_decref(root);
	return err ? -EINVAL : 0;
}

int rn_dp_config_parse(json_t *dp, struct rn_dp_config *out, struct rn_error *e)
{
	static const char *const keys[] = { "kubelet_dir", "cdi", "cdi_dir",
					    "periodicUpdateInterval", "configList", "configFile",
					    NULL };
	static const char where[] = "config: device_plugin";

	/* not the ~400 KiB of res[]: each resource is zeroed as it is
	 * parsed (parse_resource, add_vf_resources) and nothing reads past
	 * n_res, so a node's few resources touch a few pages of it, not all
	 * 64 slots (the plugin's config lives as long as the agent) */
	memset(out, 0, offsetof(struct rn_dp_config, res));
	out->n_res = 0;
	memset(&out->sriov, 0, sizeof(out->sriov));
	snprintf(out->kubelet_dir, sizeof(out->kubelet_dir), "%s", RN_DP_DEFAULT_KUBELET_DIR);
	snprintf(out->cdi_dir, sizeof(out->cdi_dir), "%s", RN_DP_DEFAULT_CDI_DIR);
	out->periodic_s = 60;
	if (!dp)
		return 0;
	if (!json_is_object(dp))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(dp, keys, where, e) ||
	    rn_json_string(dp, "kubelet_dir", out->kubelet_dir, sizeof(out->kubelet_dir), where,
			   e) ||
	    rn_json_bool(dp, "cdi", &out->cdi, where, e) ||
	    rn_json_string(dp, "cdi_dir", out->cdi_dir, sizeof(out->cdi_dir), where, e) ||
	    rn_json_string(dp, "configFile", out->config_file, sizeof(out->config_file), where, e))
		return -EINVAL;
	if (out->kubelet_dir[0] != '/')
		return rn_fail(e, -EINVAL, "%s.kubelet_dir: must be an absolute path", where);
	if (out->cdi_dir[0] != '/')
		return rn_fail(e, -EINVAL, "%s.cdi_dir: must be an absolute path", where);
	if (out->config_file[0]) {
		if (json_object_get(dp, "configList") || json_object_get(dp, "periodicUpdateInterval"))
			return rn_fail(e, -EINVAL, "%s: configFile and configList/"
				       "periodicUpdateInterval both given; use one", where);
		return parse_config_file(out, e);
	}
	return parse_plugin_keys(dp, out, where, e);
}

/* Builds c's resources (which checks them) and, when asked, whether each
 * can be served. */
static int check_built(const struct rn_config *c, bool servable, struct rn_error *e)
{
	struct rn_dp_config *dc;
	int err;

	/* neither section: no resource to check, and no ~400 KiB to zero at
	 * every config load (every CNI plugin run loads the config) */
	if (!c->device_plugin && !c->sriov)
		return 0;
	dc = malloc(sizeof(*dc));	/* ~400 KiB: not on a stack */
	if (!dc)
		return rn_fail(e, -ENOMEM, "config: device_plugin: out of memory");
	/* the VF resources too: their names are kubelet names as well */
	err = rn_dp_config_build(c, dc, e);
	if (!err) {
		if (servable)
			err = rn_dp_config_servable(dc, e);
		rn_dp_config_free(dc);
	}
	free(dc);
	return err;
}

int rn_dp_config_check(const struct rn_config *c, struct rn_error *e)
{
	return check_built(c, false, e);
}

int rn_dp_check_servable(const struct rn_config *c, struct rn_error *e)
{
	return check_built(c, true, e);
}

int rn_dp_config_files(const char *text, char (*paths)[PATH_MAX], int max)
{
	json_t *root = json_loads(text, 0, NULL);
	const char *file = json_string_value(json_object_get(json_object_get(root,
									   "device_plugin"),
							     "configFile"));
	int n = 0;

	if (file && file[0] && n < max)
		snprintf(paths[n++], PATH_MAX, "%s", file);
	json_decref(root);
	return n;
}

static bool resource_same(const struct rn_dp_resource_config *a,
			  const struct rn_dp_resource_config *b)
{
	/* parse_resource and add_vf_resources zero each one first: the
	 * selectors' unused bytes are zero on both sides */
	return !strcmp(a->prefix, b->prefix) && !strcmp(a->name, b->name) &&
	       a->hca_max == b->hca_max && a->from_devices == b->from_devices &&
	       a->healthy_every == b->healthy_every &&
	       a->provider == b->provider && !a->sriov == !b->sriov &&
	       !memcmp(&a->selectors, &b->selectors, sizeof(a->selectors));
}

bool rn_dp_config_same(const struct rn_dp_config *a, const struct rn_dp_config *b)
{
	if (strcmp(a->kubelet_dir, b->kubelet_dir) || a->cdi != b->cdi ||
	    strcmp(a->cdi_dir, b->cdi_dir) || a->periodic_s != b->periodic_s ||
	    strcmp(a->config_file, b->config_file) || a->n_res != b->n_res)
		return false;
	for (int i = 0; i < a->n_res; i++)
		if (!resource_same(&a->res[i], &b->res[i]))
			return false;
	return true;
}

void rn_dp_resource_fullname(const struct rn_dp_resource_config *rc, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s", rc->prefix, rc->name);
}
