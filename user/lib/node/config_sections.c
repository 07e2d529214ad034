// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The node config's sections owned by modules, composed here, above every
 * module, so that the core (config.c) knows none of them. Order is the
 * order of the type errors (after the core's keys) and of the checks.
 * Adding a module's section: a line here, nothing in config.c. */
#include <stddef.h>

#include "config.h"
#include "devplugin/devplugin.h"
#include "dra/dra.h"
#include "ipam/ipam.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

const struct rn_config_section rn_config_sections[] = {
	/* the store and the pools: one check reads both */
	{ "ipam", JSON_OBJECT, offsetof(struct rn_config, ipam), rn_ipam_config_check },
	{ "pools", JSON_ARRAY, offsetof(struct rn_config, pools), NULL },
	{ "rdma", JSON_OBJECT, offsetof(struct rn_config, rdma), rn_rdma_config_check },
	{ "device_plugin", JSON_OBJECT, offsetof(struct rn_config, device_plugin),
	  rn_dp_config_check },
	{ "sriov", JSON_ARRAY, offsetof(struct rn_config, sriov), rn_sriov_config_check },
	{ "dra", JSON_OBJECT, 0, rn_dra_config_check },
	{ 0 }
};
