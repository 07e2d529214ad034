// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <unistd.h>

#include "node.h"

int cni_node_load(const struct cni_netconf *c, struct rn_config *cfg, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (!c->config_file_given && access(c->config_file, F_OK) && errno == ENOENT) {
		rn_config_defaults(cfg);
		return 0;
	}
	if (rn_config_load(cfg, c->config_file, &e))
		return cni_fail_rn(err, CNI_ERR_CONFIG, &e, "configFile");
	return 0;
}

int cni_ipam_open(const struct rn_config *cfg, struct rn_ipam **ipam, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (rn_ipam_open(ipam, cfg, &e))
		return cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				   "IPAM store");
	return 0;
}
