// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl resources [-j]
 *
 * The device plugin's resources as kubelet would see them now: each
 * configured resource, its devices (count and health), their NUMA nodes,
 * the HCAs behind them with port, netdev and why one is unhealthy, and
 * whether its socket is there (rdmanetd serving it), for a shared resource
 * when its devices are Healthy (healthyWhen: any HCA up, or every one);
 * for a VF resource
 * (the "sriov" section) each VF: PCI address, RDMA device, netdev, NUMA
 * node, health and why not (held by which pod, zero GUID, PF down). Read
 * from the config, the RDMA model and the VF holds, so it works with or
 * without the agent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl.h"
#include "devplugin/devplugin.h"
#include "rdma/rdma.h"

static int healthy_units(const struct rn_dp_view *v)
{
	int n = 0;

	for (int i = 0; i < v->n_units; i++)
		n += rn_dp_unit_healthy(v, &v->units[i]);
	return n;
}

static const char *healthy_when(const struct rn_dp_resource_config *rc)
{
	return rc->healthy_every ? "everyHca" : "anyHca";
}

static json_t *numa_json(uint64_t mask)
{
	json_t *a = json_array();

	for (int b = 0; b < 64; b++)
		if (mask >> b & 1)
			json_array_append_new(a, json_integer(b));
	return a;
}

static void numa_text(uint64_t mask, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int b = 0; b < 64 && off < size; b++)
		if (mask >> b & 1)
			off += (size_t)snprintf(buf + off, size - off, "%s%d", off ? "," : "", b);
	if (!off)
		snprintf(buf, size, "-");
}

static json_t *vfs_json(const struct rn_dp_view *v)
{
	json_t *a = json_array();

	for (int i = 0; i < v->n_vfs; i++) {
		const struct rn_dp_hca *x = &v->vfs[i];

		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:i, s:b, s:s}", "pci", x->pci,
						   "rdma_dev", x->name, "netdev", x->netdev, "numa",
						   x->numa, "healthy", x->healthy, "why", x->why));
	}
	return a;
}

static void vfs_text(const struct rn_dp_view *v)
{
	for (int i = 0; i < v->n_vfs; i++) {
		const struct rn_dp_hca *x = &v->vfs[i];

		printf("    vf %s rdma %s netdev %s numa %d %s%s%s\n", x->pci,
		       x->name[0] ? x->name : "-", x->netdev[0] ? x->netdev : "-", x->numa,
		       x->healthy ? "healthy" : "unhealthy", x->healthy ? "" : ": ",
		       x->healthy ? "" : x->why);
	}
}

static bool serving(const struct rn_dp_config *dc, const struct rn_dp_resource_config *rc)
{
	char path[PATH_MAX + 2 * RN_DP_PREFIX_LEN];
	struct stat st;

	for (int w = 0; w < 2; w++)
		if (rn_dp_socket_path(dc, rc, w, path, sizeof(path)) >= 0 && !stat(path, &st) &&
		    S_ISSOCK(st.st_mode))
			return true;
	return false;
}

static int resources_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_dp_config *dc = calloc(1, sizeof(*dc));
	struct rn_rdma_model m = { 0 };
	struct rn_rdma_roots roots;
	struct rn_dp_view *views = NULL;
	struct rn_error e = { 0 };
	json_t *out = NULL;
	int n = 0, rc = 0;

	(void)a;
	if (!dc || rn_dp_config_build(&ctl->cfg, dc, &e)) {
		free(dc);
		return ctl_fail("%s", dc ? e.msg : "out of memory");
	}
	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK, &e) ||
	    rn_dp_views(&ctl->cfg, &m, &views, &n, &e)) {
		rc = ctl_fail("%s", e.msg);
		goto out;
	}
	if (ctl->json)
		out = json_array();
	else if (!n)
		printf("no device plugin resources configured (device_plugin.configList, "
		       "sriov[].resourceName)\n");
	for (int i = 0; i < n; i++) {
		const struct rn_dp_view *v = &views[i];
		uint64_t numa = 0;
		bool up = serving(dc, &dc->res[i]);
		char nbuf[128];

		/* a resource's NUMA nodes: every unit's (a VF has its own) */
		for (int u = 0; u < v->n_units; u++)
			numa |= rn_dp_unit_numa(v, &v->units[u]);

		if (ctl->json) {
			json_t *hcas = json_array();

			for (int h = 0; h < v->n_hcas; h++)
				json_array_append_new(hcas, json_pack(
					"{s:s, s:s, s:i, s:s, s:i, s:b, s:s}", "name", v->hcas[h].name,
					"pci", v->hcas[h].pci, "port", v->hcas[h].port, "netdev",
					v->hcas[h].netdev, "numa", v->hcas[h].numa, "healthy",
					v->hcas[h].healthy, "why", v->hcas[h].why));
			json_array_append_new(out, json_pack(
				"{s:s, s:s, s:i, s:i, s:o, s:o, s:o, s:b, s:b, s:s, s:s?}",
				"resource", v->resource, "kind", dc->res[i].sriov ? "sriov" : "shared",
				"devices", v->n_units, "healthy", healthy_units(v), "numa",
				numa_json(numa), "hcas", hcas, "vfs", vfs_json(v), "serving", up,
				"refused", v->refused, "refused_why", v->refused_why,
				"healthy_when", dc->res[i].sriov ? NULL : healthy_when(&dc->res[i])));
			continue;
		}
		numa_text(numa, nbuf, sizeof(nbuf));
		printf("%s: %d devices, %d healthy, numa %s, %s\n", v->resource, v->n_units,
		       healthy_units(v), nbuf, up ? "serving" : "no socket");
		if (!dc->res[i].sriov && v->n_hcas > 1)
			printf("    healthy when %s HCA is (healthyWhen %s)\n",
			       dc->res[i].healthy_every ? "every" : "any",
			       healthy_when(&dc->res[i]));
		if (v->refused)
			printf("    refused: %s\n", v->refused_why);
		if (dc->res[i].sriov && !v->n_vfs && !v->refused)
			printf("    no VF: no PF of its sriov entries has VFs here\n");
		else if (!dc->res[i].sriov && !v->n_hcas && !v->refused)
			printf("    no HCA matches the selectors\n");
		vfs_text(v);
		for (int h = 0; h < v->n_hcas; h++) {
			const struct rn_dp_hca *x = &v->hcas[h];

			printf("    %s port %u netdev %s pci %s numa %d %s%s%s\n", x->name, x->port,
			       x->netdev[0] ? x->netdev : "-", x->pci[0] ? x->pci : "-", x->numa,
			       x->healthy ? "healthy" : "unhealthy", x->healthy ? "" : ": ",
			       x->healthy ? "" : x->why);
		}
	}
	if (out)
		ctl_print_json(ctl, out);
out:
	for (int i = 0; i < n; i++)
		rn_dp_view_free(&views[i]);
	free(views);
	rn_rdma_model_free(&m);
	rn_dp_config_free(dc);
	free(dc);
	return rc;
}

const struct ctl_object ctl_obj_resources = {
	.name = "resources",
	.help = "the device plugin's resources as kubelet would see them now",
	.verbs = (const struct ctl_verb[]){
		{ .run = resources_show,
		  .help = "each resource: devices, health, NUMA nodes, HCAs or VFs, and whether "
			  "rdmanetd serves it" },
		{ .run = NULL },
	},
};
