// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Continuous reconciliation (sriov.h, rn_sriov_reconcile): provisioning is
 * idempotent but not free (discovery, rtnetlink, a wait for new VFs), so it
 * runs again only when a fingerprint of its inputs differs from what its
 * last pass left: a config reload, a VF freed by the sweep (its netdev
 * back, its hold gone), a driver rebind (a new RDMA device, a zero GUID),
 * sriov_numvfs changed behind the agent's back. */
#include <string.h>

#include "sriov/sriov.h"

static void mix(uint64_t *h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		*h ^= b[i];
		*h *= 1099511628211ULL;		/* FNV-1a */
	}
}

static void mix_str(uint64_t *h, const char *s)
{
	mix(h, s, strlen(s) + 1);
}

static void mix_int(uint64_t *h, long long v)
{
	mix(h, &v, sizeof(v));
}

static void mix_config(uint64_t *h, const struct rn_sriov_config *c)
{
	mix_str(h, c->state_dir);
	for (int i = 0; i < c->n; i++) {
		const struct rn_sriov_pf_config *pc = &c->pfs[i];

		mix_str(h, pc->pf);
		for (int j = 0; j < pc->n_vendors; j++)
			mix_str(h, pc->vendors[j]);
		for (int j = 0; j < pc->n_device_ids; j++)
			mix_str(h, pc->device_ids[j]);
		for (int j = 0; j < pc->n_root_devices; j++)
			mix_str(h, pc->root_devices[j]);
		for (int j = 0; j < pc->n_pf_names; j++)
			mix_str(h, pc->pf_names[j]);
		mix_int(h, pc->num_vfs);
		mix_int(h, pc->is_rdma);
		mix_int(h, pc->mtu);
	}
}

/* 0 where the VFs cannot be read: a pass then runs (and says why). */
static uint64_t fingerprint(const struct rn_sriov_config *c, const struct rn_rdma_roots *roots)
{
	uint64_t h = 14695981039346656037ULL;
	struct rn_sriov_host host;

	mix_config(&h, c);
	if (rn_sriov_discover(&host, roots, false, NULL))
		return 0;
	for (int i = 0; i < host.n_pfs; i++) {
		const struct rn_sriov_pf *pf = &host.pfs[i];

		if (!rn_sriov_config_for_pf(c, pf))
			continue;
		mix_str(&h, pf->pci);
		mix_str(&h, pf->ifname);
		mix_int(&h, pf->numvfs);
		mix_int(&h, pf->totalvfs);
		for (int j = 0; j < pf->n_vfs; j++) {
			const struct rn_sriov_vf *vf = &pf->vfs[j];
			struct rn_sriov_hold hold;

			mix_str(&h, vf->pci);
			mix_str(&h, vf->driver);
			mix_str(&h, vf->netdev);
			mix_str(&h, vf->rdma_dev);
			mix_str(&h, vf->node_guid);
			mix_int(&h, vf->mtu);
			mix_int(&h, rn_sriov_hold_read(c->state_dir, vf->pci, &hold, NULL));
		}
	}
	rn_sriov_host_free(&host);
	return h ? h : 1;
}

int rn_sriov_reconcile(struct rn_sriov_reconciler *st, const struct rn_sriov_config *c,
		       const struct rn_rdma_roots *roots, const struct rn_sriov_ops *ops,
		       struct rn_sriov_report *r, bool *ran, struct rn_error *e)
{
	uint64_t fp = fingerprint(c, roots);
	int rc;

	*ran = false;
	memset(r, 0, sizeof(*r));
	if (st->done && !st->retry && fp && fp == st->done_fp)
		return 0;
	*ran = true;
	rc = rn_sriov_provision(c, roots, ops, r, e);
	st->done = true;
	st->retry = r->n_busy > 0;
	st->done_fp = fingerprint(c, roots);
	return rc;
}
