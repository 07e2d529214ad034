// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "handoff.h"
#include "log.h"
#include "node_config.h"

void cni_node_config_path(struct cni_req *r)
{
	r->conf.config_file_given = r->env.node_config[0] != '\0';
	snprintf(r->conf.config_file, sizeof(r->conf.config_file), "%s",
		 r->conf.config_file_given ? r->env.node_config : RN_DEFAULT_CONFIG);
}

/* A network config may repeat the node's path, never choose another. */
static int same_path(struct cni_req *r, const char *key, const char *given, const char *node,
		     const char *node_key)
{
	if (!given[0] || !strcmp(given, node))
		return 0;
	if (r->env.cmd == CNI_CMD_DEL) {
		rn_warn("config: %s: ignored; host paths come from the node (%s: %s)", key,
			node_key, node);
		return 0;
	}
	return cni_fail(&r->err, CNI_ERR_CONFIG, "config: %s: \"%s\" is not this node's; a "
			"network config may not choose host paths (the node's %s is %s)", key,
			given, node_key, node);
}

int cni_node_load(struct cni_req *r, struct rn_config *cfg)
{
	struct cni_netconf *c = &r->conf;
	struct rn_error e = { 0 };
	int rc;

	cni_node_config_path(r);
	if (same_path(r, "configFile", c->nad_config_file, c->config_file,
		      "config file (RDMANET_CONFIG)"))
		return -1;
	if (!c->config_file_given && access(c->config_file, F_OK) && errno == ENOENT) {
		rn_config_defaults(cfg);
	} else if ((rc = rn_config_load(cfg, c->config_file, &e))) {
		/* the details name values (and a parse error quotes text) of the
		 * file: they go to the node's log, not into the answer */
		rn_err("%s", e.msg);
		return cni_fail(&r->err, CNI_ERR_CONFIG, "node config %s: %s; the plugin's log "
				"on the node (stderr) has the details", c->config_file,
				rc == -ENOENT ? "cannot be read" : "not valid");
	}
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", cfg->cni.state_dir);
	if (same_path(r, "stateDir", c->nad_state_dir, c->state_dir, "cni.state_dir"))
		return -1;
	return cni_store_handoff(r, cfg);
}

static void fallback_path(json_t *root, const char *section, const char *key, char *out,
			  size_t size, const char *def)
{
	const char *p = json_string_value(json_object_get(json_object_get(root, section), key));

	snprintf(out, size, "%s", p && p[0] == '/' && strlen(p) < size ? p : def);
}

void cni_node_fallback(const struct cni_netconf *c, char *pin_dir, size_t pin_size,
		       char *state_dir, size_t state_size)
{
	json_t *root = json_load_file(c->config_file, 0, NULL);

	fallback_path(root, "bpf", "pin_dir", pin_dir, pin_size, RN_DEFAULT_PIN_DIR);
	fallback_path(root, "cni", "state_dir", state_dir, state_size, RN_DEFAULT_CNI_STATE_DIR);
	json_decref(root);
}

int cni_node_check_dscp(struct cni_req *r, const struct rn_config *cfg)
{
	char allowed[256];

	if (r->conf.dscp < 0 || (cfg->cni.allowed_dscp & (1ULL << r->conf.dscp)))
		return 0;
	return cni_fail(&r->err, CNI_ERR_CONFIG, "config: dscp: %d is not allowed on this node "
			"(allowed: %s; the node config's cni.allowed_dscp)", r->conf.dscp,
			rn_dscp_set_format(cfg->cni.allowed_dscp, allowed, sizeof(allowed)));
}

int cni_ipam_open(const struct rn_config *cfg, struct rn_ipam **ipam, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (rn_ipam_open(ipam, cfg, &e))
		return cni_fail_rn(err, cni_code_of(e.code, RN_CNI_ERR_INTERNAL), &e,
				   "IPAM store");
	return 0;
}
