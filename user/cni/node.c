// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

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

void cni_node_pin_dir_fallback(const struct cni_netconf *c, char *out, size_t size)
{
	json_t *root = json_load_file(c->config_file, 0, NULL);
	const char *p = json_string_value(json_object_get(json_object_get(root, "bpf"),
							  "pin_dir"));

	snprintf(out, size, "%s", p && p[0] == '/' && strlen(p) < size ? p : RN_DEFAULT_PIN_DIR);
	json_decref(root);
}

int cni_ipam_open(const struct rn_config *cfg, struct rn_ipam **ipam, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (rn_ipam_open(ipam, cfg, &e))
		return cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				   "IPAM store");
	return 0;
}
