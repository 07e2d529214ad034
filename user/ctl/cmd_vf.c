// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl vf [--state-dir DIR] [-j]: every SR-IOV PF and its VFs, each
 * VF's netdev, RDMA device, node GUID, admin settings (from the PF's
 * IFLA_VFINFO_LIST) and which pod holds it since when. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

static int vf_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_sriov_config sc;
	struct rn_sriov_host h;
	struct rn_rdma_config rc;
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	const char *state_dir = ctl_arg(a, "--state-dir");

	if (rn_sriov_config_get(&ctl->cfg, &sc, &e))
		return ctl_fail("%s", e.msg);
	rn_rdma_config_get(&ctl->cfg, &rc);
	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_sriov_discover(&h, &roots, true, &e)) {
		rn_sriov_config_free(&sc);
		return ctl_fail("vf: %s", e.msg);
	}
	if (ctl->json) {
		json_t *j = rn_sriov_host_to_json(&h, &sc, state_dir);

		ctl_print_json(ctl, j);
	} else {
		rn_sriov_host_print(stdout, &h, &sc, state_dir);
	}
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&sc);
	return 0;
}

static const struct ctl_opt vf_opts[] = {
	{ "--state-dir", NULL, "DIR", "where the CNI plugin records VF holds" },
	{ NULL },
};

const struct ctl_object ctl_obj_vf = {
	.name = "vf",
	.help = "SR-IOV PFs and their VFs, and which pod holds each",
	.default_verb = "show",
	.verbs = (const struct ctl_verb[]){
		{ "show", NULL, NULL, vf_opts, vf_show,
		  "every PF and VF: netdev, RDMA device, node GUID, admin settings, holder" },
		{ .run = NULL },
	},
};
