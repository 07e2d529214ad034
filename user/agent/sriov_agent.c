// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"
#include "sriov_agent.h"

static struct rn_sriov_reconciler reconciler;

/* Provisioning again when its inputs changed (rn_sriov_reconcile): at
 * start-up, after a config reload, a VF the sweep freed, a driver rebind. */
static void reconcile(const struct rn_sriov_config *sc, const struct rn_rdma_roots *roots)
{
	struct rn_sriov_report *r = calloc(1, sizeof(*r));
	struct rn_error e = { 0 };
	bool first = !reconciler.done, ran;
	int rc;

	if (!r)
		return;
	rc = rn_sriov_reconcile(&reconciler, sc, roots, NULL, r, &ran, &e);
	if (!ran) {
		free(r);
		return;
	}
	for (int i = 0; i < r->n_actions; i++) {
		if (!strncmp(r->actions[i], "error: ", 7))
			rn_warn("sriov: %s", r->actions[i] + 7);
		else
			rn_info("sriov: %s", r->actions[i]);
	}
	rn_sriov_count_guids_fixed((unsigned int)r->guids_fixed);
	if (!rc && !r->n_actions && first)
		rn_info("sriov: %d PF entr%s as configured, nothing to do", sc->n,
			sc->n == 1 ? "y" : "ies");
	else if (rc)
		rn_warn("sriov: provisioning incomplete (%d error%s); rdmanetctl vf shows the VFs",
			r->n_errors, r->n_errors == 1 ? "" : "s");
	free(r);
}

void rn_sriov_agent_start(const struct rn_config *c)
{
	struct rn_sriov_config sc;
	struct rn_rdma_roots roots;
	struct rn_error e = { 0 };

	if (rn_sriov_config_get(c, &sc, &e)) {
		rn_warn("sriov: %s", e.msg);
		return;
	}
	if (sc.n) {
		rn_rdma_config_roots(c, &roots);
		reconcile(&sc, &roots);
	}
	rn_sriov_config_free(&sc);
}

/* The sweep's "kept: ..." lines of the last tick: a hold the agent cannot
 * judge is said once, not every tick; again if it changes or comes back. */
static char kept_said[RN_SRIOV_MAX_ACTIONS][sizeof(((struct rn_sriov_report *)0)->actions[0])];
static int n_kept_said;

static bool kept_before(const char *line)
{
	for (int i = 0; i < n_kept_said; i++)
		if (!strcmp(kept_said[i], line))
			return true;
	return false;
}

static void log_sweep(const struct rn_sriov_report *r)
{
	static char now[RN_SRIOV_MAX_ACTIONS][sizeof(r->actions[0])];
	int n_now = 0;

	for (int i = 0; i < r->n_actions; i++) {
		const char *a = r->actions[i];

		if (!strncmp(a, "kept: ", 6)) {
			if (!kept_before(a))
				rn_warn("sriov sweep: hold kept: %s", a + 6);
			memcpy(now[n_now++], a, sizeof(now[0]));
		} else if (!strncmp(a, "error: ", 7)) {
			rn_warn("sriov sweep: %s", a + 7);
		} else {
			rn_info("sriov sweep: %s", a);
		}
	}
	memcpy(kept_said, now, (size_t)n_now * sizeof(now[0]));
	n_kept_said = n_now;
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
		log_sweep(r);
		free(r);
		reconcile(&sc, &roots);
	}
	rn_sriov_config_free(&sc);
}
