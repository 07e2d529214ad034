// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rn_metrics_dra: the DRA driver's part of the textfile (agent only: the
 * driver's state lives in the agent's threads; `rdmanetctl export` has
 * none to show and writes no DRA family). */
#include <stdio.h>

#include "textfile.h"
#include "dra/internal.h"

static void result_counter(FILE *f, const char *name, const char *help,
			   unsigned long long ok, unsigned long long failed)
{
	const char *ok_labels[] = { "result", "ok", NULL };
	const char *failed_labels[] = { "result", "error", NULL };

	rn_metric_family(f, name, "counter", help);
	rn_metric_sample(f, name, ok_labels, ok);
	rn_metric_sample(f, name, failed_labels, failed);
}

static void gauge(FILE *f, const char *name, const char *help, unsigned long long v)
{
	rn_metric_family(f, name, "gauge", help);
	rn_metric_sample(f, name, NULL, v);
}

void rn_metrics_dra(FILE *f)
{
	struct rn_dra_server *s = dra_agent_server();
	struct rn_dra_health h;

	if (!s)
		return;
	rn_dra_health(s, &h);
	gauge(f, "rdmanet_dra_registered",
	      "1 if kubelet registered the DRA driver (and has not deleted its socket since).",
	      h.registered);
	gauge(f, "rdmanet_dra_prepared_claims", "ResourceClaims the DRA driver holds prepared.",
	      (unsigned long long)h.prepared);
	result_counter(f, "rdmanet_dra_claim_prepares_total",
		       "Claims kubelet asked the DRA driver to prepare, by result.",
		       h.prepares_ok, h.prepares_failed);
	result_counter(f, "rdmanet_dra_claim_unprepares_total",
		       "Claims kubelet asked the DRA driver to unprepare, by result.",
		       h.unprepares_ok, h.unprepares_failed);
	if (!h.slices.enabled)
		return;
	result_counter(f, "rdmanet_dra_slice_publishes_total",
		       "Publications of the node's ResourceSlices to the API server, by result.",
		       h.slices.publishes, h.slices.failures);
	gauge(f, "rdmanet_dra_slices", "ResourceSlices of the last successful publication.",
	      (unsigned long long)h.slices.slices);
	gauge(f, "rdmanet_dra_devices", "Devices in the ResourceSlices of the last successful "
	      "publication.", (unsigned long long)h.slices.devices);
}
