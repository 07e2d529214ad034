// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CDI spec (container-device-interface, cdiVersion 0.5.0): one device
 * per HCA of the served resources, named by the HCA ("rdmanet.io/hca=
 * mlx5_0"), with its uverbs/umad/issm nodes and rdma_cm. Allocate returns
 * these names; a CDI-aware runtime (containerd, CRI-O, podman) injects
 * exactly those nodes. Written to a temporary file and renamed, so a
 * runtime never reads half a spec. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "devplugin/devplugin.h"
#include "mkdir_p.h"

static json_t *node(const char *path)
{
	return json_pack("{s:s, s:s}", "path", path, "permissions", "rwm");
}

static json_t *hca_device(const struct rn_rdma_model *m, const struct rn_dp_hca *h)
{
	const struct rn_rdma_dev *d = rn_rdma_find_dev(m, h->name);
	json_t *nodes = json_array();

	for (int i = 0; d && i < d->n_chardevs; i++)
		if (d->chardevs[i].present)
			json_array_append_new(nodes, node(d->chardevs[i].path));
	if (m->rdma_cm_present)
		json_array_append_new(nodes, node("/dev/infiniband/rdma_cm"));
	return json_pack("{s:s, s:{s:o}}", "name", h->name, "containerEdits", "deviceNodes",
			 nodes);
}

int rn_dp_cdi_write(const char *cdi_dir, const struct rn_dp_view *views, int n_views,
		    const struct rn_rdma_model *m, struct rn_error *e)
{
	json_t *devs = json_array(), *spec;
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	int err = 0;

	for (int v = 0; v < n_views; v++)
		for (int i = 0; i < views[v].n_hcas; i++) {
			bool dup = false;
			size_t k;
			json_t *d;

			json_array_foreach(devs, k, d)
				dup |= !strcmp(json_string_value(json_object_get(d, "name")),
					       views[v].hcas[i].name);
			if (!dup)
				json_array_append_new(devs, hca_device(m, &views[v].hcas[i]));
		}
	spec = json_pack("{s:s, s:s, s:o}", "cdiVersion", "0.5.0", "kind", RN_CDI_KIND,
			 "devices", devs);
	snprintf(path, sizeof(path), "%s/rdmanet.io-hca.json", cdi_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (rn_mkdir_p(cdi_dir, 0755))
		err = rn_fail(e, -errno, "%s: %s", cdi_dir, strerror(errno));
	else if (json_dump_file(spec, tmp, JSON_INDENT(2) | JSON_SORT_KEYS))
		err = rn_fail(e, -EIO, "%s: cannot write", tmp);
	else if (rename(tmp, path))
		err = rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (err)
		unlink(tmp);
	json_decref(spec);
	return err;
}
