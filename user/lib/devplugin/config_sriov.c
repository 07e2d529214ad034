// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The resources the node's "sriov" section adds to the device plugin: one
 * per distinct "<resourcePrefix>/<resourceName>" (entries naming the same
 * one pool their PFs' VFs, as sriov-network-device-plugin does with
 * selectors over several PFs). The names are checked here, at config time,
 * with kubelet's rules, so a name kubelet would refuse never reaches it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "devplugin/devplugin.h"

static bool same_resource(const struct rn_dp_resource_config *rc,
			  const struct rn_sriov_pf_config *pc)
{
	return !strcmp(rc->name, pc->resource_name) && !strcmp(rc->prefix, pc->resource_prefix);
}

static int add_vf_resources(struct rn_dp_config *out, struct rn_error *e)
{
	for (int i = 0; i < out->sriov.n; i++) {
		const struct rn_sriov_pf_config *pc = &out->sriov.pfs[i];
		struct rn_dp_resource_config *rc;
		char full[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN];
		int j;

		if (!pc->resource_name[0])
			continue;
		for (j = 0; j < out->n_res && !same_resource(&out->res[j], pc); j++)
			;
		if (j < out->n_res && out->res[j].sriov)
			continue;	/* one more PF of a VF resource */
		if (j < out->n_res)
			return rn_fail(e, -EINVAL, "config: sriov[%d].resourceName: \"%s/%s\" is "
				       "also a shared resource of device_plugin.configList; one "
				       "name, one kind of device", i, pc->resource_prefix,
				       pc->resource_name);
		if (out->n_res == RN_DP_MAX_RESOURCES)
			return rn_fail(e, -EINVAL, "config: sriov[%d].resourceName: more than %d "
				       "device plugin resources", i, RN_DP_MAX_RESOURCES);
		rc = &out->res[out->n_res];
		memset(rc, 0, sizeof(*rc));
		snprintf(rc->prefix, sizeof(rc->prefix), "%s", pc->resource_prefix);
		snprintf(rc->name, sizeof(rc->name), "%s", pc->resource_name);
		rc->provider = rn_dp_provider_sriov;
		rc->sriov = &out->sriov;
		rn_dp_resource_fullname(rc, full, sizeof(full));
		if (rn_dp_resource_name_check(full, e))
			return rn_fail_wrap(e, "config: sriov[%d].resourceName", i);
		out->n_res++;
	}
	return 0;
}

int rn_dp_config_build(const struct rn_config *c, struct rn_dp_config *out, struct rn_error *e)
{
	if (rn_dp_config_parse(c->device_plugin, out, e))
		return -EINVAL;
	if (rn_sriov_config_parse(c->sriov, &out->sriov, e))
		return -EINVAL;
	if (add_vf_resources(out, e)) {
		rn_dp_config_free(out);
		return -EINVAL;
	}
	return 0;
}

void rn_dp_config_free(struct rn_dp_config *dc)
{
	rn_sriov_config_free(&dc->sriov);
}

bool rn_dp_wanted(const struct rn_config *c)
{
	struct rn_sriov_config sc;
	bool named = false;

	if (c->device_plugin)
		return true;
	if (rn_sriov_config_parse(c->sriov, &sc, NULL))
		return false;
	for (int i = 0; i < sc.n; i++)
		named |= sc.pfs[i].resource_name[0] != '\0';
	rn_sriov_config_free(&sc);
	return named;
}
