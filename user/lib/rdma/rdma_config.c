// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "json_fields.h"
#include "rdma/rdma_config.h"

int rn_rdma_config_parse(json_t *rdma, struct rn_rdma_config *out, struct rn_error *e)
{
	static const char *const keys[] = { "netns_mode", "selectors", "sysfs_root", NULL };
	int mode = RN_NETNS_SHARED;
	json_t *sel;

	memset(out, 0, sizeof(*out));
	out->netns_mode = RN_NETNS_SHARED;
	if (!rdma)
		return 0;
	if (!json_is_object(rdma))
		return rn_fail(e, -EINVAL, "config: rdma: expected an object");
	if (rn_json_only_keys(rdma, keys, "config: rdma", e) ||
	    rn_json_enum(rdma, "netns_mode", rn_netns_mode_names, 2, &mode, "config: rdma", e) ||
	    rn_json_string(rdma, "sysfs_root", out->sysfs_root, sizeof(out->sysfs_root),
			   "config: rdma", e) ||
	    rn_json_typed(rdma, "selectors", JSON_OBJECT, &sel, "config: rdma", e) ||
	    rn_selectors_parse(sel, &out->selectors, "config: rdma.selectors", e))
		return -EINVAL;
	if (out->sysfs_root[0] && out->sysfs_root[0] != '/')
		return rn_fail(e, -EINVAL, "config: rdma.sysfs_root: must be an absolute path");
	out->netns_mode = (enum rn_netns_mode)mode;
	out->netns_mode_given = json_object_get(rdma, "netns_mode") != NULL;
	return 0;
}

int rn_rdma_config_check(const struct rn_config *c, struct rn_error *e)
{
	struct rn_rdma_config rc;

	return rn_rdma_config_parse(c->rdma, &rc, e);
}

void rn_rdma_config_get(const struct rn_config *c, struct rn_rdma_config *out)
{
	if (rn_rdma_config_parse(c->rdma, out, NULL))
		rn_rdma_config_parse(NULL, out, NULL);
}

void rn_rdma_config_roots(const struct rn_config *c, struct rn_rdma_roots *roots)
{
	struct rn_rdma_config rc;

	rn_rdma_config_get(c, &rc);
	rn_rdma_roots_init(roots, rc.sysfs_root);
}
