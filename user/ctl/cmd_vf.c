// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl vf [--state-dir DIR] [-j]: every SR-IOV PF and its VFs, each
 * VF's netdev, RDMA device, node GUID, admin settings (from the PF's
 * IFLA_VFINFO_LIST) and which pod holds it since when. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "rdma/rdma_config.h"
#include "sriov/sriov.h"

int cmd_vf(struct ctl *ctl, int argc, char **argv)
{
	struct rn_sriov_config sc;
	struct rn_sriov_host h;
	struct rn_rdma_config rc;
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	const char *state_dir = NULL;

	for (int i = 1; i < argc; i++) {
		if (ctl_common_opt(ctl, argv[i]))
			continue;
		if (!strcmp(argv[i], "--state-dir") && i + 1 < argc) {
			state_dir = argv[++i];
			continue;
		}
		if (!strcmp(argv[i], "show"))
			continue;
		return ctl_fail("vf: unexpected argument \"%s\"", argv[i]);
	}
	if (rn_sriov_config_get(&ctl->cfg, &sc, &e))
		return ctl_fail("%s", e.msg);
	rn_rdma_config_get(&ctl->cfg, &rc);
	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_sriov_discover(&h, &roots, true, &e)) {
		rn_sriov_config_free(&sc);
		return ctl_fail("vf: %s", e.msg);
	}
	if (ctl->json)
		ctl_print_json(ctl, rn_sriov_host_to_json(&h, &sc, state_dir));
	else
		rn_sriov_host_print(stdout, &h, &sc, state_dir);
	rn_sriov_host_free(&h);
	rn_sriov_config_free(&sc);
	return 0;
}
