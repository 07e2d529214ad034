// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rdma/rdma_config.h"
#include "sriov/sriov.h"
#include "sriov_agent.h"

void rn_sriov_agent_start(const struct rn_config *c)
{
	struct rn_sriov_config sc;
	struct rn_sriov_report *r;
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };
	int rc;

	if (rn_sriov_config_get(c, &sc, &e)) {
		rn_warn("sriov: %s", e.msg);
		return;
	}
	if (!sc.n) {
		rn_sriov_config_free(&sc);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		rn_sriov_config_free(&sc);
		return;
	}
	rn_rdma_config_roots(c, &roots);
	rc = rn_sriov_provision(&sc, &roots, NULL, r, &e);
	for (int i = 0; i < r->n_actions; i++) {
		if (!strncmp(r->actions[i], "error: ", 7))
			rn_warn("sriov: %s", r->actions[i] + 7);
		else
			rn_info("sriov: %s", r->actions[i]);
	}
	rn_sriov_count_guids_fixed((unsigned int)r->guids_fixed);
	if (!rc && !r->n_actions)
		rn_info("sriov: %d PF entr%s as configured, nothing to do", sc.n,
			sc.n == 1 ? "y" : "ies");
	else if (rc)
		rn_warn("sriov: provisioning incomplete (%d error%s); rdmanetctl vf shows the VFs",
			r->n_errors, r->n_errors == 1 ? "" : "s");
	free(r);
	rn_sriov_config_free(&sc);
}

void rn_sriov_agent_tick(const struct rn_config *c)
{
	struct rn_sriov_config sc;
	struct rn_sriov_report *r;
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	if (rn_sriov_config_get(c, &sc, NULL))
		return;
	if (!sc.n) {
		rn_sriov_config_free(&sc);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (r) {
		rn_rdma_config_roots(c, &roots);
		rn_sriov_sweep(sc.state_dir, &roots, r, &e);
		for (int i = 0; i < r->n_actions; i++)
			if (!strncmp(r->actions[i], "error: ", 7))
				rn_warn("sriov sweep: %s", r->actions[i] + 7);
			else
				rn_info("sriov sweep: %s", r->actions[i]);
		free(r);
	}
	rn_sriov_config_free(&sc);
}
