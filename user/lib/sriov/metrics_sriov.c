// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rn_metrics_sriov: the SR-IOV part of the textfile. */
#include <stdio.h>
#include <stdlib.h>

#include "textfile.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

/* One sample per VF: its health, or whether a pod holds it. */
static void vf_gauge(FILE *f, const char *name, const char *help,
		     const struct rn_sriov_device *d, int n, bool in_use)
{
	rn_metric_family(f, name, "gauge", help);
	for (int i = 0; i < n; i++) {
		const char *labels[] = { "resource", d[i].resource_name, "pf", d[i].pf_ifname,
					 "pci", d[i].pci, NULL };

		rn_metric_sample(f, name, labels, in_use ? d[i].in_use : d[i].healthy);
	}
}

void rn_metrics_sriov(FILE *f, const struct rn_config *c)
{
	const struct rn_sriov_counters *k = rn_sriov_counters();
	struct rn_sriov_config sc;
	struct rn_sriov_host h;
	struct rn_rdma_roots roots;
	struct rn_sriov_device *d = NULL;
	int n = 0;

	rn_metric_family(f, "rdmanet_sriov_vfs_swept_total", "counter",
			 "VFs the leak sweep found stranded (their pod netns gone) and restored.");
	rn_metric_sample(f, "rdmanet_sriov_vfs_swept_total", NULL, k->vfs_swept);
	rn_metric_family(f, "rdmanet_sriov_sweep_errors_total", "counter",
			 "VFs the leak sweep could not restore.");
	rn_metric_sample(f, "rdmanet_sriov_sweep_errors_total", NULL, k->sweep_errors);
	rn_metric_family(f, "rdmanet_sriov_guids_fixed_total", "counter",
			 "Zero VF node GUIDs the agent filled in.");
	rn_metric_sample(f, "rdmanet_sriov_guids_fixed_total", NULL, k->guids_fixed);
	if (rn_sriov_config_get(c, &sc, NULL))
		return;
	rn_rdma_config_roots(c, &roots);
	if (sc.n && !rn_sriov_discover(&h, &roots, false, NULL)) {
		if (!rn_sriov_devices(&sc, &h, sc.state_dir, &d, &n, NULL)) {
			vf_gauge(f, "rdmanet_sriov_vf_healthy", "1 if the VF can serve a pod, in use "
				 "or not (PF up, GUID set).", d, n, false);
			vf_gauge(f, "rdmanet_sriov_vf_in_use", "1 if a pod holds the VF.", d, n, true);
			free(d);
		}
		rn_sriov_host_free(&h);
	}
	rn_sriov_config_free(&sc);
}
