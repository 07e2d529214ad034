/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The agent's health file, what the DaemonSet's probes read through
 * `rdmanetctl health`. The main loop rewrites it at least every
 * RN_HEALTH_BEAT_MS, so its age is the main loop's heartbeat: a loop that
 * hangs stops rewriting it and liveness fails. Its content says whether
 * the node is ready: every master the config wants attached, every
 * device-plugin resource served and registered with kubelet, the DRA
 * driver (when the config turns it on) registered with kubelet. */
#ifndef RDMANET_AGENT_HEALTH_H
#define RDMANET_AGENT_HEALTH_H

#include <stdbool.h>

#include "devplugin/devplugin.h"
#include "dra/dra.h"

#define RN_HEALTH_BEAT_MS 5000

struct rn_health {
	int masters_wanted;		/* configured, or discovered */
	int masters_attached;
	bool dp_wanted;			/* the config asks for a device plugin */
	struct rn_dp_server *dp;	/* NULL: not running */
	bool dra_wanted;		/* the config turns the DRA driver on */
	struct rn_dra_server *dra;	/* NULL: not running */
};

/* Atomically (temporary file, rename) replaces path; errors are logged
 * once per kind, never fatal: health is reported, not a reason to stop. */
void rn_health_write(const char *path, const struct rn_health *h);

#endif
