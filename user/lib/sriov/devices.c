// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin's view of the VFs: one device per VF PCI address of
 * every PF a "sriov" entry with a resourceName manages. Health says
 * whether the VF can serve a pod, never whether one has it: kubelet
 * subtracts the pods' requests from the healthy count itself, so a VF in
 * use reported Unhealthy would be counted twice (sriov-network-device-
 * plugin's issue #40). A free VF is healthy when its PF is up and its RDMA
 * device (isRdma) is here with a non-zero GUID; a VF in use when its PF is
 * up; a VF whose pod was deleted but whose netdev has not come back from
 * the pod's dying netns (a released hold) cannot serve until the agent has
 * restored it. The PCI address goes to the pod as PCIDEVICE_<RESOURCE>, named as
 * sriov-network-device-plugin names it, so Multus hands it to the CNI as
 * deviceID. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/rdma.h"
#include "sriov/sriov.h"

void rn_sriov_env_name(const char *resource, char *buf, size_t size)
{
	size_t n = 0;
	const char *p = "PCIDEVICE_";

	if (!size)
		return;
	for (; *p && n + 1 < size; p++)
		buf[n++] = *p;
	/* sriov-network-device-plugin (pkg/resources/pool_stub.go GetEnvs):
	 * strings.ToUpper(strings.Replace("PCIDEVICE_<prefix>_<name>", ".",
	 * "_")): '.' and the prefix's '/' become '_', a '-' stays */
	for (p = resource; *p && n + 1 < size; p++)
		buf[n++] = *p == '.' || *p == '/' ? '_' : (char)toupper((unsigned char)*p);
	buf[n] = '\0';
}

/* The uverbs node of an RDMA device: <sys>/class/infiniband/DEV/device/
 * infiniband_verbs/uverbsN. */
static void uverbs_of(const char *sys, const char *dev, char *out, size_t size)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	if (rn_pathf(path, sizeof(path), "%s/class/infiniband/%s/device/infiniband_verbs", sys,
		     dev))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "uverbs", 6)) {
			snprintf(out, size, "/dev/infiniband/%.*s", (int)(size > 17 ? size - 17 : 0),
				 de->d_name);
			break;
		}
	closedir(d);
}

int rn_sriov_devices(const struct rn_sriov_config *c, const struct rn_sriov_host *h,
		     const char *state_dir, struct rn_sriov_device **out, int *n,
		     struct rn_error *e)
{
	int cap = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < h->n_pfs; i++) {
		const struct rn_sriov_pf *pf = &h->pfs[i];
		const struct rn_sriov_pf_config *pc = rn_sriov_config_for_pf(c, pf);

		if (!pc || !pc->resource_name[0])
			continue;
		for (int j = 0; j < pf->n_vfs; j++) {
			const struct rn_sriov_vf *vf = &pf->vfs[j];
			struct rn_sriov_device *d;
			struct rn_sriov_hold hold;
			int rc;

			if (*n == cap) {
				struct rn_sriov_device *grown;

				cap = cap ? cap * 2 : 16;
				grown = realloc(*out, (size_t)cap * sizeof(**out));
				if (!grown) {
					free(*out);
					*out = NULL;
					*n = 0;
					return rn_fail(e, -ENOMEM, "out of memory");
				}
				*out = grown;
			}
			d = &(*out)[(*n)++];
			memset(d, 0, sizeof(*d));
			snprintf(d->pci, sizeof(d->pci), "%s", vf->pci);
			snprintf(d->pf_ifname, sizeof(d->pf_ifname), "%s", pf->ifname);
			snprintf(d->resource_name, sizeof(d->resource_name), "%s", pc->resource_name);
			snprintf(d->resource_prefix, sizeof(d->resource_prefix), "%s",
				 pc->resource_prefix);
			snprintf(d->netdev, sizeof(d->netdev), "%s", vf->netdev);
			snprintf(d->rdma_dev, sizeof(d->rdma_dev), "%s", vf->rdma_dev);
			if (vf->rdma_dev[0])
				uverbs_of(h->roots.sys, vf->rdma_dev, d->uverbs, sizeof(d->uverbs));
			d->healthy = true;
			rc = rn_sriov_hold_read(state_dir, vf->pci, &hold, NULL);
			if (rc == 0 && !hold.released) {
				/* in use: kubelet counts it in the pod's requests; its
				 * devices are in the pod, so only the PF says whether it
				 * can serve */
				d->in_use = true;
				if (!pf->up) {
					d->healthy = false;
					snprintf(d->why, sizeof(d->why), "PF %s down", pf->ifname);
				}
			} else if (rc == 0) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "being returned from %.48s/%.48s's "
					 "netns", hold.pod_namespace, hold.pod_name);
			} else if (rc != -ENOENT) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "held (unreadable hold record)");
			} else if (!pf->up) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "PF %s down", pf->ifname);
			} else if (pc->is_rdma && !vf->rdma_dev[0]) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "no RDMA device in this netns");
			} else if (pc->is_rdma && rn_rdma_guid_is_zero(vf->node_guid)) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "zero node GUID");
			} else if (!vf->netdev[0]) {
				d->healthy = false;
				snprintf(d->why, sizeof(d->why), "no netdev in this netns");
			}
			if (d->in_use)
				snprintf(d->held_by, sizeof(d->held_by), "%.60s/%.50s",
					 hold.pod_namespace, hold.pod_name);
		}
	}
	return 0;
}
