// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* NodePrepareResources and NodeUnprepareResources for one claim, apart
 * from gRPC: the claim read from the source and checked (same UID, an
 * allocation, devices of this driver and pool that this node has), its
 * VFs held, its CDI spec written, the record saved last. A refusal undoes
 * what this attempt did; a prepared claim answers from its record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/internal.h"
#include "log.h"

struct rn_dra_driver *rn_dra_driver_open(const struct rn_dra_config *cfg,
					 struct rn_dra_claim_source *src, struct rn_error *e)
{
	struct rn_dra_driver *d = calloc(1, sizeof(*d));

	if (!d) {
		if (src)
			src->destroy(src);
		return rn_fail(e, -ENOMEM, "out of memory"), NULL;
	}
	d->cfg = *cfg;
	d->src = src;
	if (dra_state_load(d, e)) {
		rn_dra_driver_close(d);
		return NULL;
	}
	return d;
}

void rn_dra_driver_close(struct rn_dra_driver *d)
{
	if (!d)
		return;
	if (d->src)
		d->src->destroy(d->src);
	free(d->claims);
	free(d);
}

int rn_dra_prepared_count(const struct rn_dra_driver *d)
{
	return d->n_claims;
}

/* a UID names files and CDI devices: a UUID's characters only */
static bool uid_valid(const char *uid)
{
	size_t n = strlen(uid);

	return n && n < RN_DRA_UID_LEN && strspn(uid, "0123456789abcdefABCDEF-") == n;
}

static const struct rn_dra_device *find_device(const struct rn_dra_device *v, int n,
					       const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static int add_record(struct rn_dra_driver *d, const struct rn_dra_prepared *p,
		      struct rn_error *e)
{
	if (d->n_claims == d->cap) {
		int cap = d->cap * 2 + 8;
		struct rn_dra_prepared *nc = realloc(d->claims, (size_t)cap * sizeof(*nc));

		if (!nc)
			return rn_fail(e, -ENOMEM, "out of memory");
		d->claims = nc;
		d->cap = cap;
	}
	d->claims[d->n_claims++] = *p;
	if (dra_state_save(d, e)) {
		d->n_claims--;
		return e ? e->code : -EIO;
	}
	return 0;
}

/* the claim's devices of this driver, checked against this node's */
static int resolve(struct rn_dra_driver *d, const struct rn_dra_claim *c,
		   const struct rn_dra_device *devs, int n_devs, struct rn_dra_prepared *p,
		   const struct rn_dra_device **picked, struct rn_error *e)
{
	for (int i = 0; i < c->n_results; i++) {
		const struct rn_dra_result *r = &c->results[i];
		struct rn_dra_prepared_device *x;
		const struct rn_dra_device *dev;

		if (strcmp(r->driver, d->cfg.driver))
			continue;	/* another driver's device in the same claim */
		if (strcmp(r->pool, d->cfg.pool))
			return rn_fail(e, -EINVAL, "device %s of request %s is in pool %s, not this "
				       "node's (%s)", r->device, r->request, r->pool, d->cfg.pool);
		dev = find_device(devs, n_devs, r->device);
		if (!dev)
			return rn_fail(e, -ENODEV, "device %s of request %s: no such device on "
				       "this node", r->device, r->request);
		x = &p->devices[p->n_devices];
		picked[p->n_devices++] = dev;
		snprintf(x->request, sizeof(x->request), "%s", r->request);
		snprintf(x->pool, sizeof(x->pool), "%s", r->pool);
		snprintf(x->device, sizeof(x->device), "%s", r->device);
		dra_cdi_id(p->uid, dev->name, x->cdi_id, sizeof(x->cdi_id));
		x->known = true;
		x->kind = dev->kind;
		snprintf(x->pci, sizeof(x->pci), "%s", dev->pci);
		snprintf(x->netdev, sizeof(x->netdev), "%s", dev->netdev);
		if (rn_dra_claim_config(c, i, d->cfg.driver, &x->config, e))
			return e ? e->code : -EINVAL;
		/* a VF is attached in exclusive mode: no child link to choose */
		if (x->config.mode[0] && dev->kind == RN_DRA_VF)
			return rn_fail(e, -EINVAL, "device %s of request %s is a VF (exclusive): its "
				       "config's mode \"%s\" is for an HCA port's child link",
				       r->device, r->request, x->config.mode);
	}
	if (!p->n_devices)
		return rn_fail(e, -EINVAL, "no device of driver %s is allocated to it", d->cfg.driver);
	return 0;
}

static void release_vfs(struct rn_dra_driver *d, const struct rn_dra_prepared *p, int n)
{
	for (int i = 0; i < n; i++) {
		struct rn_error re = { 0 };

		if (dra_vf_release(&d->cfg, p->vfs[i], p->uid, &re))
			rn_warn("DRA claim %s: VF %s: %s", p->uid, p->vfs[i], re.msg);
	}
}

/* this node's devices as they are now (the model read from sysfs) */
static int node_devices(struct rn_dra_driver *d, struct rn_rdma_model *m,
			struct rn_dra_device **devs, int *n_devs, struct rn_error *e)
{
	*devs = NULL;
	*n_devs = 0;
	if (rn_rdma_model_load(m, &d->cfg.roots, RN_RDMA_SRC_SYSFS, e))
		return e ? e->code : -EIO;
	if (rn_dra_devices(m, devs, n_devs, e)) {
		rn_rdma_model_free(m);
		return e ? e->code : -ENOMEM;
	}
	return 0;
}

static int prepare_new(struct rn_dra_driver *d, const struct rn_dra_claim *c,
		       struct rn_dra_prepared *p, struct rn_error *e)
{
	const struct rn_dra_device *picked[RN_DRA_MAX_RESULTS];
	struct rn_rdma_model m = { 0 };
	struct rn_dra_device *devs;
	int n_devs, err;

	if (node_devices(d, &m, &devs, &n_devs, e))
		return e ? e->code : -EIO;
	err = resolve(d, c, devs, n_devs, p, picked, e);
	for (int i = 0; !err && i < p->n_devices; i++) {
		if (picked[i]->kind != RN_DRA_VF)
			continue;
		err = dra_vf_hold(&d->cfg, picked[i], p, e);
		if (!err)
			snprintf(p->vfs[p->n_vfs++], RN_PCI_ADDR_LEN, "%s", picked[i]->pci);
	}
	if (!err)
		err = dra_cdi_write(&d->cfg, &m, p, picked, e);
	if (!err && (err = add_record(d, p, e)))
		dra_cdi_remove(&d->cfg, p->uid, NULL);
	if (err) {
		release_vfs(d, p, p->n_vfs);
		err = e ? e->code : -EINVAL;
	}
	free(devs);
	rn_rdma_model_free(&m);
	return err;
}

/* a prepared claim's spec written again from its record */
static int respec(struct rn_dra_driver *d, const struct rn_dra_prepared *p, struct rn_error *e)
{
	const struct rn_dra_device *picked[RN_DRA_MAX_RESULTS];
	struct rn_rdma_model m = { 0 };
	struct rn_dra_device *devs;
	int n_devs, err = 0;

	if (node_devices(d, &m, &devs, &n_devs, e))
		return e ? e->code : -EIO;
	for (int i = 0; !err && i < p->n_devices; i++) {
		picked[i] = find_device(devs, n_devs, p->devices[i].device);
		if (!picked[i])
			err = rn_fail(e, -ENODEV, "device %s: no such device on this node",
				      p->devices[i].device);
	}
	if (!err)
		err = dra_cdi_write(&d->cfg, &m, p, picked, e);
	free(devs);
	rn_rdma_model_free(&m);
	return err;
}

static void pods_of(const struct rn_dra_claim *c, struct rn_dra_prepared *p)
{
	memcpy(p->pods, c->pods, sizeof(p->pods));
	p->n_pods = c->n_pods;
}

/* what the record's devices are, where an older agent did not say (the
 * CNI needs it); true if any was filled in */
static bool fill_device_facts(struct rn_dra_driver *d, struct rn_dra_prepared *p)
{
	struct rn_rdma_model m = { 0 };
	struct rn_dra_device *devs;
	bool changed = false;
	int n_devs;

	for (int i = 0; i < p->n_devices; i++)
		changed |= !p->devices[i].known;
	if (!changed || node_devices(d, &m, &devs, &n_devs, NULL))
		return false;
	changed = false;
	for (int i = 0; i < p->n_devices; i++) {
		struct rn_dra_prepared_device *x = &p->devices[i];
		const struct rn_dra_device *dev = find_device(devs, n_devs, x->device);

		if (x->known || !dev)
			continue;
		x->known = changed = true;
		x->kind = dev->kind;
		snprintf(x->pci, sizeof(x->pci), "%s", dev->pci);
		snprintf(x->netdev, sizeof(x->netdev), "%s", dev->netdev);
	}
	free(devs);
	rn_rdma_model_free(&m);
	return changed;
}

/* kubelet prepares a claim again for each pod that comes to use it (a claim
 * several pods share; a pod's new sandbox): by then reservedFor lists the
 * new pod, and the CNI finds the claim by it. An older agent's record also
 * gets what its devices are. A source that does not answer leaves the pods
 * as they were (the claim stays prepared). */
static void refresh_record(struct rn_dra_driver *d, struct rn_dra_prepared *have)
{
	struct rn_dra_claim *c = calloc(1, sizeof(*c));
	struct rn_dra_prepared before = *have;
	struct rn_error e = { 0 };
	bool changed;

	if (!c)
		return;
	changed = fill_device_facts(d, have);
	if (!d->src->get(d->src, have->namespace_, have->name, c, &e) &&
	    !strcmp(c->uid, have->uid) &&
	    (c->n_pods != have->n_pods || memcmp(c->pods, have->pods, sizeof(c->pods)))) {
		pods_of(c, have);
		changed = true;
	}
	if (changed && dra_state_save(d, &e)) {
		rn_warn("DRA claim %s/%s: its pods and devices not recorded: %s", have->namespace_,
			have->name, e.msg);
		*have = before;
	}
	free(c);
}

int rn_dra_prepare(struct rn_dra_driver *d, const char *ns, const char *name, const char *uid,
		   struct rn_dra_prepared *out, struct rn_error *e)
{
	struct rn_dra_prepared *have;
	struct rn_dra_claim *c;
	int err;

	memset(out, 0, sizeof(*out));
	if (!uid_valid(uid))
		return rn_fail(e, -EINVAL, "claim %s/%s: UID \"%s\" is not a UID", ns, name, uid);
	have = dra_state_find(d, uid);
	if (have) {
		/* /var/run/cdi is a tmpfs: after a reboot the record is there
		 * and the spec is not */
		if (!dra_cdi_exists(&d->cfg, uid) && (err = respec(d, have, e)))
			return rn_fail_wrap(e, "claim %s/%s: its CDI spec is gone", ns, name);
		refresh_record(d, have);
		*out = *have;
		return 0;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return rn_fail(e, -ENOMEM, "out of memory");
	if ((err = d->src->get(d->src, ns, name, c, e)))
		goto out;
	if (strcmp(c->uid, uid)) {
		err = rn_fail(e, -ESTALE, "claim %s/%s: kubelet asks for UID %s, the claim now is "
			      "UID %s (deleted and created again): refused", ns, name, uid, c->uid);
		goto out;
	}
	if (!c->allocated) {
		err = rn_fail(e, -EINVAL, "claim %s/%s: not allocated (no status.allocation)", ns,
			      name);
		goto out;
	}
	snprintf(out->uid, sizeof(out->uid), "%s", uid);
	snprintf(out->namespace_, sizeof(out->namespace_), "%s", ns);
	snprintf(out->name, sizeof(out->name), "%s", name);
	pods_of(c, out);
	err = prepare_new(d, c, out, e);
	if (err)
		rn_fail_wrap(e, "claim %s/%s", ns, name);
	else
		rn_info("DRA: claim %s/%s (%s) prepared: %d device(s)", ns, name, uid,
			out->n_devices);
out:
	free(c);
	return err;
}

int rn_dra_unprepare(struct rn_dra_driver *d, const char *uid, struct rn_error *e)
{
	struct rn_dra_prepared *p = dra_state_find(d, uid), saved;
	int idx;

	if (!p)
		return 0;
	if (dra_cdi_remove(&d->cfg, uid, e))
		return e ? e->code : -EIO;
	saved = *p;
	for (int i = 0; i < saved.n_vfs; i++)
		if (dra_vf_release(&d->cfg, saved.vfs[i], uid, e))
			return rn_fail_wrap(e, "claim %s/%s: VF %s", saved.namespace_, saved.name,
					    saved.vfs[i]);
	idx = (int)(p - d->claims);
	d->claims[idx] = d->claims[--d->n_claims];
	if (dra_state_save(d, e)) {
		d->claims[d->n_claims++] = saved;	/* still recorded: kubelet retries */
		return e ? e->code : -EIO;
	}
	rn_info("DRA: claim %s/%s (%s) unprepared", saved.namespace_, saved.name, uid);
	return 0;
}
