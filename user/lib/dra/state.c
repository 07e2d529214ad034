// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The prepared claims, kept in <state_dir>/prepared.json so that a
 * restarted agent answers kubelet's repeated NodePrepareResources with what
 * it prepared before, and can still unprepare it:
 *   { "claims": { "<uid>": { "namespace": "...", "name": "...",
 *       "devices": [ { "request": "nic", "pool": "node1",
 *                      "device": "mlx5-0-port1", "cdi_id": "...",
 *                      "kind": "port", "pci": "0000:3b:00.0",
 *                      "netdev": "ens1f0np0",
 *                      "config": { "mode": "ipvlan", "dscp": 26, ... } } ],
 *       "vfs": [ "0000:3b:00.2" ],
 *       "pods": [ "<pod uid>" ] } } }
 * "pods" (status.reservedFor's pods, what the CNI finds a pod's claim by)
 * is absent from an older agent's records: such a claim is found by no
 * pod until kubelet prepares it again. A device's "config" (the claim's
 * effective opaque configuration for it, dra.h rn_dra_netconfig) is there
 * only when the claim had one: an older agent's record has none. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dra/claim_config.h"
#include "dra/internal.h"
#include "mkdir_p.h"
#include "write_all.h"

static void path_of(const struct rn_dra_driver *d, char *buf, size_t size)
{
	snprintf(buf, size, "%.4000s/prepared.json", d->cfg.state_dir);
}

struct rn_dra_prepared *dra_state_find(struct rn_dra_driver *d, const char *uid)
{
	for (int i = 0; i < d->n_claims; i++)
		if (!strcmp(d->claims[i].uid, uid))
			return &d->claims[i];
	return NULL;
}

static int str(json_t *o, const char *key, char *out, size_t size)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (!s || strlen(s) >= size)
		return -EINVAL;
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

/* a JSON array of at most max strings shorter than len, into out */
static int strings(json_t *a, char *out, size_t len, int max, int *n)
{
	json_t *v;
	size_t i;

	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a) || json_array_size(a) > (size_t)max)
		return -EINVAL;
	json_array_foreach(a, i, v) {
		if (!json_is_string(v) || strlen(json_string_value(v)) >= len)
			return -EINVAL;
		snprintf(out + (size_t)(*n)++ * len, len, "%s", json_string_value(v));
	}
	return 0;
}

/* "kind" ("vf" or "port"), "pci", "netdev": absent from an older agent's */
static int device_facts(json_t *v, struct rn_dra_prepared_device *x)
{
	const char *kind = json_string_value(json_object_get(v, "kind"));

	if (!json_object_get(v, "kind"))
		return 0;
	if (!kind || (strcmp(kind, "vf") && strcmp(kind, "port")) ||
	    str(v, "pci", x->pci, sizeof(x->pci)) || str(v, "netdev", x->netdev, sizeof(x->netdev)))
		return -EINVAL;
	x->known = true;
	x->kind = strcmp(kind, "vf") ? RN_DRA_HCA_PORT : RN_DRA_VF;
	return 0;
}

static int claim_from_json(const char *uid, json_t *o, struct rn_dra_prepared *p)
{
	json_t *devs = json_object_get(o, "devices"), *v;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (strlen(uid) >= sizeof(p->uid) || str(o, "namespace", p->namespace_, sizeof(p->namespace_)) ||
	    str(o, "name", p->name, sizeof(p->name)) || !json_is_array(devs) ||
	    json_array_size(devs) > RN_DRA_MAX_RESULTS ||
	    strings(json_object_get(o, "vfs"), p->vfs[0], RN_PCI_ADDR_LEN, RN_DRA_MAX_RESULTS,
		    &p->n_vfs) ||
	    strings(json_object_get(o, "pods"), p->pods[0], RN_DRA_UID_LEN, RN_DRA_MAX_PODS,
		    &p->n_pods))
		return -EINVAL;
	snprintf(p->uid, sizeof(p->uid), "%s", uid);
	json_array_foreach(devs, i, v) {
		struct rn_dra_prepared_device *x = &p->devices[p->n_devices++];

		if (str(v, "request", x->request, sizeof(x->request)) ||
		    str(v, "pool", x->pool, sizeof(x->pool)) ||
		    str(v, "device", x->device, sizeof(x->device)) ||
		    str(v, "cdi_id", x->cdi_id, sizeof(x->cdi_id)) || device_facts(v, x))
			return -EINVAL;
		if (json_object_get(v, "config") &&
		    dra_netconfig_from_json(json_object_get(v, "config"), false, &x->config,
					    "config", NULL))
			return -EINVAL;
	}
	return 0;
}

int dra_state_load(struct rn_dra_driver *d, struct rn_error *e)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *o, *claims, *c;
	const char *uid;

	path_of(d, path, sizeof(path));
	d->n_claims = 0;
	o = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		if (access(path, F_OK) && errno == ENOENT)
			return 0;
		return rn_fail(e, -EINVAL, "%s: %s", path, jerr.text);
	}
	claims = json_object_get(o, "claims");
	if (!json_is_object(claims)) {
		json_decref(o);
		return rn_fail(e, -EINVAL, "%s: no \"claims\" object", path);
	}
	d->cap = (int)json_object_size(claims) + 8;
	free(d->claims);
	d->claims = calloc((size_t)d->cap, sizeof(*d->claims));
	if (!d->claims) {
		json_decref(o);
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	json_object_foreach(claims, uid, c) {
		if (claim_from_json(uid, c, &d->claims[d->n_claims])) {
			json_decref(o);
			d->n_claims = 0;
			return rn_fail(e, -EINVAL, "%s: claim %s: malformed record", path, uid);
		}
		d->n_claims++;
	}
	json_decref(o);
	return 0;
}

static json_t *claim_to_json(const struct rn_dra_prepared *p)
{
	json_t *devs = json_array(), *vfs = json_array(), *pods = json_array();

	for (int i = 0; i < p->n_devices; i++) {
		const struct rn_dra_prepared_device *x = &p->devices[i];
		json_t *d = json_pack("{s:s, s:s, s:s, s:s}", "request", x->request, "pool", x->pool,
				      "device", x->device, "cdi_id", x->cdi_id), *cfg;

		if (d && x->known) {
			json_object_set_new(d, "kind", json_string(x->kind == RN_DRA_VF ? "vf" :
								   "port"));
			json_object_set_new(d, "pci", json_string(x->pci));
			json_object_set_new(d, "netdev", json_string(x->netdev));
		}
		cfg = d ? dra_netconfig_to_json(&x->config) : NULL;
		if (cfg)
			json_object_set_new(d, "config", cfg);
		json_array_append_new(devs, d);
	}
	for (int i = 0; i < p->n_vfs; i++)
		json_array_append_new(vfs, json_string(p->vfs[i]));
	for (int i = 0; i < p->n_pods; i++)
		json_array_append_new(pods, json_string(p->pods[i]));
	return json_pack("{s:s, s:s, s:o, s:o, s:o}", "namespace", p->namespace_, "name", p->name,
			 "devices", devs, "vfs", vfs, "pods", pods);
}

int dra_state_save(const struct rn_dra_driver *d, struct rn_error *e)
{
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	json_t *claims = json_object(), *o;
	char *text;
	int err;

	for (int i = 0; i < d->n_claims; i++)
		json_object_set_new(claims, d->claims[i].uid, claim_to_json(&d->claims[i]));
	o = json_pack("{s:o}", "claims", claims);
	text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	json_decref(o);
	if (!text)
		return rn_fail(e, -ENOMEM, "out of memory");
	path_of(d, path, sizeof(path));
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (rn_mkdir_p(d->cfg.state_dir, 0700)) {
		err = rn_fail(e, -errno, "%s: %s", d->cfg.state_dir, strerror(errno));
		free(text);
		return err;
	}
	err = rn_write_file_replace(path, tmp, text, strlen(text), 0600, true);
	if (err)
		rn_fail(e, err, "%s: %s", path, strerror(-err));
	free(text);
	return err;
}
