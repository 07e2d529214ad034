// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl env [--netdev IF] [-j]
 *
 * Run inside a pod: prints what NCCL and UCX need for the RoCE interfaces
 * of the current network namespace, as shell export lines
 * (eval "$(rdmanetctl env)") or JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "rdma/rdma.h"

static json_t *env_json(const struct rn_env *env, const struct rn_env_var *vars)
{
	json_t *rails = json_array(), *skipped = json_array(), *o = json_object();

	for (int i = 0; i < env->n_rails; i++) {
		const struct rn_env_rail *r = &env->rails[i];
		char addr[RN_ADDR_STRLEN], gid[RN_GID_STRLEN];

		rn_addr_format(&r->addr, addr);
		rn_gid_format(r->gid, gid);
		json_array_append_new(rails, json_pack("{s:s,s:s,s:s,s:i,s:i,s:s}", "ifname",
						       r->ifname, "address", addr, "device", r->dev,
						       "port", (int)r->port, "gid_index",
						       (int)r->gid_index, "gid", gid));
	}
	for (int i = 0; i < env->n_skipped; i++)
		json_array_append_new(skipped, json_pack("{s:s,s:s}", "ifname",
							 env->skipped[i].ifname, "reason",
							 env->skipped[i].why));
	for (int i = 0; vars[i].name; i++)
		json_object_set_new(o, vars[i].name, json_string(vars[i].value));
	return json_pack("{s:o,s:o,s:o}", "interfaces", rails, "skipped", skipped, "env", o);
}

static int env_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	struct rn_env_var vars[8];
	struct rn_local_if *ifs;
	struct rn_env *env;
	const char *only = ctl_arg(a, "--netdev");
	int n, err;

	if (rn_local_ifaces(&ifs, &n, &e))
		return ctl_fail("%s", e.msg);
	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_ALL, &e)) {
		free(ifs);
		return ctl_fail("%s", e.msg);
	}
	env = calloc(1, sizeof(*env));
	err = env ? rn_env_resolve(&m, ifs, n, only, env, &e) : rn_fail(&e, -1, "out of memory");
	free(ifs);
	rn_rdma_model_free(&m);
	if (err) {
		free(env);
		return ctl_fail("%s", e.msg);
	}
	rn_env_vars(env, vars);
	if (ctl->json) {
		ctl_print_json(ctl, env_json(env, vars));
	} else {
		for (int i = 0; i < env->n_skipped; i++)
			printf("# %s: %s\n", env->skipped[i].ifname, env->skipped[i].why);
		if (!env->same_gid_index)
			printf("# rails have different RoCE v2 GID indexes: no single "
			       "NCCL_IB_GID_INDEX fits, NCCL picks per HCA by address family\n");
		for (int i = 0; vars[i].name; i++)
			printf("export %s='%s'\n", vars[i].name, vars[i].value);
	}
	free(env);
	return 0;
}

static const struct ctl_opt env_opts[] = {
	{ "--netdev", NULL, "IF", "only this interface" },
	{ NULL },
};

const struct ctl_object ctl_obj_env = {
	.name = "env",
	.help = "inside a pod: the NCCL/UCX environment for its RoCE interfaces",
	.verbs = (const struct ctl_verb[]){
		{ .opts = env_opts, .run = env_show,
		  .help = "export lines for NCCL and UCX (eval \"$(rdmanetctl env)\"), or JSON" },
		{ .run = NULL },
	},
};
