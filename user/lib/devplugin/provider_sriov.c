// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The SR-IOV provider: a VF resource's units are its VFs, one each, the
 * PCI address the device ID (what sriov-network-device-plugin advertises,
 * and what Multus hands the CNI as deviceID). Health is the sriov module's
 * (rn_sriov_devices: free, GUID set, PF up); this file only turns it into
 * units and adds the NUMA node kubelet's topology manager wants. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin/devplugin.h"
#include "rdma/rdma.h"

static int vf_numa(const struct rn_rdma_model *m, const char *pci)
{
	long v = -1;

	if (rn_sysfs_read_long(&v, "%s/bus/pci/devices/%s/numa_node", m->roots.sys, pci))
		return -1;
	return v < 0 || v > 63 ? -1 : (int)v;
}

static bool ours(const struct rn_dp_resource_config *rc, const struct rn_sriov_device *d)
{
	return !strcmp(d->resource_name, rc->name) && !strcmp(d->resource_prefix, rc->prefix);
}

/* isRdma on any entry of the resource: its pods need the VF's RDMA device */
static bool wants_rdma(const struct rn_dp_resource_config *rc)
{
	for (int i = 0; i < rc->sriov->n; i++) {
		const struct rn_sriov_pf_config *pc = &rc->sriov->pfs[i];

		if (pc->is_rdma && !strcmp(pc->resource_name, rc->name) &&
		    !strcmp(pc->resource_prefix, rc->prefix))
			return true;
	}
	return false;
}

int rn_dp_provider_sriov(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
			 struct rn_dp_view *v, struct rn_error *e)
{
	struct rn_sriov_device *d = NULL;
	struct rn_sriov_host h;
	int n = 0, mine = 0, err;

	if (!rc->sriov)
		return rn_fail(e, -EINVAL, "%s: no sriov section behind a VF resource", v->resource);
	/* the CNI refuses an isRdma VF in shared mode: advertising the VFs
	 * would only schedule pods that cannot start */
	if (m->netns_mode == RN_NETNS_SHARED && wants_rdma(rc)) {
		v->refused = true;
		snprintf(v->refused_why, sizeof(v->refused_why),
			 "RDMA subsystem in shared netns mode: an isRdma VF's RDMA device cannot "
			 "move into a pod; no devices advertised (rdma.netns_mode exclusive)");
		return 0;
	}
	v->vf_rdma = wants_rdma(rc);
	err = rn_sriov_discover(&h, &m->roots, false, e);
	if (err)
		return err;
	err = rn_sriov_devices(rc->sriov, &h, rc->sriov->state_dir, &d, &n, e);
	rn_sriov_host_free(&h);
	if (err)
		return err;
	for (int i = 0; i < n; i++)
		mine += ours(rc, &d[i]);
	v->vfs = calloc((size_t)mine + 1, sizeof(*v->vfs));
	v->units = calloc((size_t)mine + 1, sizeof(*v->units));
	if (!v->vfs || !v->units) {
		free(d);
		return rn_fail(e, -ENOMEM, "%s: out of memory", v->resource);
	}
	for (int i = 0; i < n; i++) {
		struct rn_dp_hca *x = &v->vfs[v->n_vfs];
		struct rn_dp_unit *u = &v->units[v->n_units];

		if (!ours(rc, &d[i]))
			continue;
		snprintf(x->name, sizeof(x->name), "%s", d[i].rdma_dev);
		snprintf(x->pci, sizeof(x->pci), "%s", d[i].pci);
		snprintf(x->netdev, sizeof(x->netdev), "%s", d[i].netdev);
		x->port = d[i].rdma_dev[0] ? 1 : 0;
		x->numa = vf_numa(m, d[i].pci);
		x->healthy = d[i].healthy;
		snprintf(x->why, sizeof(x->why), "%s", d[i].why);
		snprintf(u->id, sizeof(u->id), "%s", d[i].pci);
		u->vf = x;
		v->n_vfs++;
		v->n_units++;
	}
	free(d);
	return 0;
}
