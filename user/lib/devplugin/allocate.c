// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Allocate and GetPreferredAllocation, without gRPC: what one container
 * gets for a set of device IDs. The character devices are the ones the
 * RDMA model found in sysfs (class/infiniband_verbs, class/infiniband_mad)
 * and whose node exists under the dev root; a node sysfs names but /dev
 * lacks fails the allocation (the container could not open its HCA),
 * except issmN, which only subnet-manager tools use. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin/devplugin.h"

static const struct rn_dp_unit *find_unit(const struct rn_dp_view *v, const char *id)
{
	for (int i = 0; i < v->n_units; i++)
		if (!strcmp(v->units[i].id, id))
			return &v->units[i];
	return NULL;
}

static int add_spec(struct rn_dp_alloc *a, const char *path, struct rn_error *e)
{
	struct rn_dp_devspec *s;

	for (int i = 0; i < a->n_specs; i++)
		if (!strcmp(a->specs[i].host_path, path))
			return 0;
	s = realloc(a->specs, (size_t)(a->n_specs + 1) * sizeof(*s));
	if (!s)
		return rn_fail(e, -ENOMEM, "out of memory");
	a->specs = s;
	s = &a->specs[a->n_specs++];
	snprintf(s->host_path, sizeof(s->host_path), "%s", path);
	snprintf(s->container_path, sizeof(s->container_path), "%s", path);
	snprintf(s->permissions, sizeof(s->permissions), "rwm");
	return 0;
}

/* the character devices of one RDMA device (an HCA, or a VF's) */
static int add_chardevs(struct rn_dp_alloc *a, const struct rn_dp_view *v,
			const struct rn_rdma_dev *d, struct rn_error *e)
{
	bool uverbs = false;

	for (int i = 0; i < d->n_chardevs; i++) {
		const struct rn_rdma_chardev *c = &d->chardevs[i];

		if (!c->present) {
			if (!strcmp(c->kind, "issm"))
				continue;
			return rn_fail(e, -ENOENT, "%s: %s of HCA %s is missing (sysfs names it, "
				       "the node does not exist)", v->resource, c->path, d->name);
		}
		uverbs |= !strcmp(c->kind, "uverbs");
		if (add_spec(a, c->path, e))
			return -ENOMEM;
	}
	if (!uverbs)
		return rn_fail(e, -ENOENT, "%s: HCA %s has no uverbs device (ib_uverbs not loaded, "
			       "or /dev/infiniband not mounted)", v->resource, d->name);
	return 0;
}

static int add_hca(struct rn_dp_alloc *a, const struct rn_dp_view *v,
		   const struct rn_rdma_model *m, const struct rn_dp_hca *h, struct rn_error *e)
{
	const struct rn_rdma_dev *d = rn_rdma_find_dev(m, h->name);
	size_t off = strlen(a->env_value);

	if (!d)
		return rn_fail(e, -ENODEV, "%s: HCA %s is gone", v->resource, h->name);
	if (add_chardevs(a, v, d, e))
		return e ? e->code : -EINVAL;
	snprintf(a->env_value + off, sizeof(a->env_value) - off, "%s%s:%u%s%s", off ? "," : "",
		 h->name, h->port, h->netdev[0] ? ":" : "", h->netdev);
	if (a->n_cdi < RN_DP_MAX_HCAS)
		snprintf(a->cdi_names[a->n_cdi++], sizeof(a->cdi_names[0]), "%s=%s", RN_CDI_KIND,
			 h->name);
	return 0;
}

static void env_name(char *buf, size_t size, const char *resource)
{
	size_t n = (size_t)snprintf(buf, size, "RDMANET_HCAS_%s", resource);

	for (size_t i = strlen("RDMANET_HCAS_"); i < n && i < size; i++)
		buf[i] = isalnum((unsigned char)buf[i]) ? (char)toupper((unsigned char)buf[i]) : '_';
}

/* One VF: its RDMA device's nodes (isRdma) and its PCI address
 * in the value. The ID is refused while the VF cannot serve (Allocate may
 * come after the health kubelet decided on has changed); a VF a hold still
 * names is not refused: kubelet owns the in-use accounting, and the CNI's
 * ADD waits for the VF while another pod's hold is on it. */
static int add_vf(struct rn_dp_alloc *a, const struct rn_dp_view *v,
		  const struct rn_rdma_model *m, const struct rn_dp_hca *vf, bool *rdma,
		  struct rn_error *e)
{
	size_t off = strlen(a->env_value);

	if (!vf->healthy)
		return rn_fail(e, -EBUSY, "%s: VF %s is not available: %s", v->resource, vf->pci,
			       vf->why);
	if (v->vf_rdma && vf->name[0]) {
		const struct rn_rdma_dev *d = rn_rdma_find_dev(m, vf->name);

		if (!d)
			return rn_fail(e, -ENODEV, "%s: VF %s: RDMA device %s is gone", v->resource,
				       vf->pci, vf->name);
		if (add_chardevs(a, v, d, e))
			return e ? e->code : -EINVAL;
		*rdma = true;
	}
	if (off + strlen(vf->pci) + 2 > sizeof(a->env_value))
		return rn_fail(e, -E2BIG, "%s: too many VFs for one container", v->resource);
	snprintf(a->env_value + off, sizeof(a->env_value) - off, "%s%s", off ? "," : "", vf->pci);
	return 0;
}

static int allocate_vfs(const struct rn_dp_view *v, const struct rn_rdma_model *m,
			const char *const *ids, int n_ids, struct rn_dp_alloc *out,
			struct rn_error *e)
{
	bool rdma = false;

	rn_sriov_env_name(v->resource, out->env_name, sizeof(out->env_name));
	for (int i = 0; i < n_ids; i++) {
		const struct rn_dp_unit *u = find_unit(v, ids[i]);

		if (!u)
			return rn_fail(e, -ENOENT, "%s: unknown device ID \"%s\"", v->resource,
				       ids[i]);
		if (add_vf(out, v, m, u->vf, &rdma, e))
			return e ? e->code : -EINVAL;
	}
	if (rdma && !m->rdma_cm_present)
		return rn_fail(e, -ENOENT, "%s: /dev/infiniband/rdma_cm is missing (rdma_ucm not "
			       "loaded?)", v->resource);
	return rdma ? add_spec(out, "/dev/infiniband/rdma_cm", e) : 0;
}

int rn_dp_allocate(const struct rn_dp_view *v, const struct rn_rdma_model *m,
		   const char *const *ids, int n_ids, struct rn_dp_alloc *out,
		   struct rn_error *e)
{
	uint64_t hcas = 0;

	memset(out, 0, sizeof(*out));
	if (v->refused)
		return rn_fail(e, -EPERM, "%s: %s", v->resource, v->refused_why);
	if (v->vfs) {
		if (!allocate_vfs(v, m, ids, n_ids, out, e))
			return 0;
		goto fail;
	}
	for (int i = 0; i < n_ids; i++) {
		const struct rn_dp_unit *u = find_unit(v, ids[i]);

		if (!u)
			return rn_fail(e, -ENOENT, "%s: unknown device ID \"%s\"", v->resource,
				       ids[i]);
		hcas |= u->hcas;
	}
	env_name(out->env_name, sizeof(out->env_name), v->resource);
	for (int i = 0; i < v->n_hcas; i++)
		if ((hcas >> i & 1) && add_hca(out, v, m, &v->hcas[i], e))
			goto fail;
	if (hcas && !m->rdma_cm_present) {
		rn_fail(e, -ENOENT, "%s: /dev/infiniband/rdma_cm is missing (rdma_ucm not loaded?)",
			v->resource);
		goto fail;
	}
	if (hcas && add_spec(out, "/dev/infiniband/rdma_cm", e))
		goto fail;
	return 0;
fail:
	rn_dp_alloc_free(out);
	return e ? e->code : -EINVAL;
}

void rn_dp_alloc_free(struct rn_dp_alloc *a)
{
	free(a->specs);
	a->specs = NULL;
	a->n_specs = 0;
}

static bool listed(const char *const *l, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(l[i], id))
			return true;
	return false;
}

int rn_dp_preferred(const struct rn_dp_view *v, const char *const *avail, int n_avail,
		    const char *const *must, int n_must, int size, const char **out)
{
	uint64_t numa = 0;
	int n = 0;

	/* kubelet's must-include IDs first, then in passes: healthy units on
	 * the NUMA nodes chosen so far, any healthy unit, whatever is left */
	for (int i = 0; i < n_must && n < size; i++) {
		const struct rn_dp_unit *u = find_unit(v, must[i]);

		out[n++] = must[i];
		if (u)
			numa |= rn_dp_unit_numa(v, u);
	}
	for (int pass = 0; pass < 3 && n < size; pass++)
		for (int i = 0; i < n_avail && n < size; i++) {
			const struct rn_dp_unit *u = find_unit(v, avail[i]);
			uint64_t un;

			if (listed(out, n, avail[i]))
				continue;
			if (pass < 2 && (!u || !rn_dp_unit_healthy(v, u)))
				continue;
			un = u ? rn_dp_unit_numa(v, u) : 0;
			if (pass == 0 && numa && !(un & numa))
				continue;
			out[n++] = avail[i];
			numa |= un;
		}
	return n;
}
