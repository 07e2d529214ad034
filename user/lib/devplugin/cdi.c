// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CDI spec (container-device-interface, cdiVersion 0.5.0): one device
 * per HCA of the served resources, named by the HCA ("rdmanet.io/hca=
 * mlx5_0"), with its uverbs/umad/issm nodes and rdma_cm. Allocate returns
 * these names; a CDI-aware runtime (containerd, CRI-O, podman) injects
 * exactly those nodes. Written to a temporary file and renamed, so a
 * runtime never reads half a spec; with no HCA to name, the spec is
 * removed instead (CDI requires at least one device: its validator, and
 * with it every runtime's registry, refuses "devices": []). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <jansson.h>

#include "devplugin/devplugin.h"
#include "mkdir_p.h"

/* path is where the container sees the node ("/dev/infiniband/uverbs0");
 * under a dev root that is not /dev (a fixture tree) the host's node is
 * there, and the runtime must take it from there */
static json_t *node(const struct rn_rdma_model *m, const char *path)
{
	json_t *o = json_pack("{s:s, s:s}", "path", path, "permissions", "rwm");
	char host[PATH_MAX + 64];

	if (strcmp(m->roots.dev, "/dev") && !strncmp(path, "/dev/", 5)) {
		snprintf(host, sizeof(host), "%.4000s/%s", m->roots.dev, path + 5);
		json_object_set_new(o, "hostPath", json_string(host));
	}
	return o;
}

json_t *rn_cdi_rdma_nodes(const struct rn_rdma_model *m, const char *rdma_dev, unsigned int port)
{
	const struct rn_rdma_dev *d = rn_rdma_find_dev(m, rdma_dev);
	json_t *nodes = json_array();

	for (int i = 0; d && i < d->n_chardevs; i++)
		if (d->chardevs[i].present && (!port || !d->chardevs[i].port ||
					       d->chardevs[i].port == port))
			json_array_append_new(nodes, node(m, d->chardevs[i].path));
	if (m->rdma_cm_present)
		json_array_append_new(nodes, node(m, "/dev/infiniband/rdma_cm"));
	return nodes;
}

static json_t *hca_device(const struct rn_rdma_model *m, const struct rn_dp_hca *h)
{
	return json_pack("{s:s, s:{s:o}}", "name", h->name, "containerEdits", "deviceNodes",
			 rn_cdi_rdma_nodes(m, h->name, 0));
}

int rn_cdi_spec_write(const char *path, json_t *spec, struct rn_error *e)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 8];
	char *slash;
	int err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (slash && rn_mkdir_p(dir, 0755))
		err = rn_fail(e, -errno, "%s: %s", dir, strerror(errno));
	else if (json_dump_file(spec, tmp, JSON_INDENT(2) | JSON_SORT_KEYS))
		err = rn_fail(e, -EIO, "%s: cannot write", tmp);
	else if (rename(tmp, path))
		err = rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	if (err)
		unlink(tmp);
	return err;
}

/* CDI's rule for the name after "cdi.k8s.io/" (its AnnotationKey): at most
 * 63 characters, alphanumeric at both ends, [A-Za-z0-9_.-] between. The
 * prefix (a DNS subdomain, no "_") and the name are joined by "_", so two
 * resources never share a key; one too long keeps its first characters and
 * ends with a hash of the whole resource name. */
#define CDI_NAME_MAX 63

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void rn_dp_cdi_annotation_key(const struct rn_dp_resource_config *rc, char *buf, size_t size)
{
	char name[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN + 16], full[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN];
	int n = snprintf(name, sizeof(name), "rdmanet_%s_%s", rc->prefix, rc->name);

	if (n > CDI_NAME_MAX) {
		rn_dp_resource_fullname(rc, full, sizeof(full));
		/* 46 characters, "_", 8 hex digits: 63 */
		snprintf(name + CDI_NAME_MAX - 9, sizeof(name) - (CDI_NAME_MAX - 9), "_%08x",
			 fnv1a(full));
	}
	snprintf(buf, size, "cdi.k8s.io/%s", name);
}

int rn_dp_cdi_write(const char *cdi_dir, const struct rn_dp_view *views, int n_views,
		    const struct rn_rdma_model *m, struct rn_error *e)
{
	json_t *devs = json_array(), *spec;
	char path[PATH_MAX];
	int err;

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
	snprintf(path, sizeof(path), "%s/rdmanet.io-hca.json", cdi_dir);
	if (!json_array_size(devs)) {
		json_decref(devs);
		if (unlink(path) && errno != ENOENT)
			return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
		return 0;
	}
	spec = json_pack("{s:s, s:s, s:o}", "cdiVersion", "0.5.0", "kind", RN_CDI_KIND,
			 "devices", devs);
	err = rn_cdi_spec_write(path, spec, e);
	json_decref(spec);
	return err;
}
