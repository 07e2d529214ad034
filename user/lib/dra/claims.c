// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ResourceClaims (resource.k8s.io/v1) as the driver needs them: identity,
 * the allocation's device results and configuration (claim_config.c) and
 * the pods it is reserved for; and the claim source that reads
 * them from a directory, <dir>/<namespace>/<name>.json, which stands in
 * for the API server until the driver has its client (the tests'
 * scheduler stand-in writes there). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dra/claim_config.h"
#include "dra/dra.h"

static int copy(json_t *o, const char *key, char *out, size_t size, bool required,
		const char *where, struct rn_error *e)
{
	json_t *v = json_object_get(o, key);

	out[0] = '\0';
	if (!v && !required)
		return 0;
	if (!json_is_string(v))
		return rn_fail(e, -EINVAL, "%s.%s: %s", where, key,
			       v ? "expected a string" : "missing");
	if (strlen(json_string_value(v)) >= size)
		return rn_fail(e, -EINVAL, "%s.%s: longer than %zu characters", where, key,
			       size - 1);
	snprintf(out, size, "%s", json_string_value(v));
	return 0;
}

/* status.reservedFor: ResourceClaimConsumerReference objects (apiGroup,
 * resource, name, uid; apiGroup "" or absent is the core group). Pods are
 * recorded by UID, the first RN_DRA_MAX_PODS of them; other consumers
 * (a future workload kind) are no pods. */
static int reserved_from_json(json_t *status, struct rn_dra_claim *out, struct rn_error *e)
{
	json_t *list = json_object_get(status, "reservedFor"), *c;
	size_t i;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return rn_fail(e, -EINVAL, "status.reservedFor: expected an array");
	if (json_array_size(list) > RN_DRA_RESERVED_MAX)
		return rn_fail(e, -EINVAL, "status.reservedFor: more than %d", RN_DRA_RESERVED_MAX);
	json_array_foreach(list, i, c) {
		char where[48], resource[64], group[256], uid[RN_DRA_UID_LEN], name[256];

		snprintf(where, sizeof(where), "status.reservedFor[%zu]", i);
		if (!json_is_object(c))
			return rn_fail(e, -EINVAL, "%s: expected an object", where);
		if (copy(c, "apiGroup", group, sizeof(group), false, where, e) ||
		    copy(c, "resource", resource, sizeof(resource), true, where, e) ||
		    copy(c, "name", name, sizeof(name), true, where, e) ||
		    copy(c, "uid", uid, sizeof(uid), true, where, e))
			return e ? e->code : -EINVAL;
		if (group[0] || strcmp(resource, "pods") || out->n_pods == RN_DRA_MAX_PODS)
			continue;
		snprintf(out->pods[out->n_pods++], RN_DRA_UID_LEN, "%s", uid);
	}
	return 0;
}

int rn_dra_claim_from_json(json_t *o, struct rn_dra_claim *out, struct rn_error *e)
{
	json_t *meta = json_object_get(o, "metadata"), *alloc, *results, *r;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o) || !json_is_object(meta))
		return rn_fail(e, -EINVAL, "not a ResourceClaim: no metadata");
	if (copy(meta, "namespace", out->namespace_, sizeof(out->namespace_), true, "metadata", e) ||
	    copy(meta, "name", out->name, sizeof(out->name), true, "metadata", e) ||
	    copy(meta, "uid", out->uid, sizeof(out->uid), true, "metadata", e))
		return e ? e->code : -EINVAL;
	if (reserved_from_json(json_object_get(o, "status"), out, e))
		return e ? e->code : -EINVAL;
	alloc = json_object_get(json_object_get(o, "status"), "allocation");
	if (!json_is_object(alloc))
		return 0;
	out->allocated = true;
	results = json_object_get(json_object_get(alloc, "devices"), "results");
	if (results && !json_is_array(results))
		return rn_fail(e, -EINVAL, "status.allocation.devices.results: expected an array");
	if (json_array_size(results) > RN_DRA_MAX_RESULTS)
		return rn_fail(e, -EINVAL, "status.allocation.devices.results: more than %d",
			       RN_DRA_MAX_RESULTS);
	json_array_foreach(results, i, r) {
		struct rn_dra_result *x = &out->results[out->n_results++];
		char where[64];

		snprintf(where, sizeof(where), "status.allocation.devices.results[%zu]", i);
		if (!json_is_object(r))
			return rn_fail(e, -EINVAL, "%s: expected an object", where);
		if (copy(r, "request", x->request, sizeof(x->request), true, where, e) ||
		    copy(r, "driver", x->driver, sizeof(x->driver), true, where, e) ||
		    copy(r, "pool", x->pool, sizeof(x->pool), true, where, e) ||
		    copy(r, "device", x->device, sizeof(x->device), true, where, e))
			return e ? e->code : -EINVAL;
	}
	/* after the results: an entry's "requests" are matched to them */
	if (dra_claim_configs_from_json(json_object_get(json_object_get(alloc, "devices"),
							"config"), out, e))
		return e ? e->code : -EINVAL;
	return 0;
}

/* a namespace or name as a path component: never "..", "/" or empty */
static bool path_safe(const char *s)
{
	return s[0] && s[0] != '.' && !strchr(s, '/');
}

static int dir_get(struct rn_dra_claim_source *src, const char *ns, const char *name,
		   struct rn_dra_claim *out, struct rn_error *e)
{
	char path[PATH_MAX];
	json_error_t jerr;
	json_t *o;
	int rc;

	if (!path_safe(ns) || !path_safe(name))
		return rn_fail(e, -EINVAL, "\"%s/%s\" is not a claim's namespace/name", ns, name);
	if (snprintf(path, sizeof(path), "%s/%s/%s.json", src->dir, ns, name) >= (int)sizeof(path))
		return rn_fail(e, -ENAMETOOLONG, "claim %s/%s: path too long", ns, name);
	o = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!o) {
		if (access(path, F_OK) && errno == ENOENT)
			return rn_fail(e, -ENOENT, "claim %s/%s not found (%s)", ns, name, path);
		return rn_fail(e, -EINVAL, "claim %s/%s: %s: %s", ns, name, path, jerr.text);
	}
	rc = rn_dra_claim_from_json(o, out, e);
	json_decref(o);
	if (rc)
		return rn_fail_wrap(e, "claim %s/%s (%s)", ns, name, path);
	if (strcmp(out->namespace_, ns) || strcmp(out->name, name))
		return rn_fail(e, -EINVAL, "claim %s/%s: %s holds %s/%s", ns, name, path,
			       out->namespace_, out->name);
	return 0;
}

static void dir_destroy(struct rn_dra_claim_source *src)
{
	free(src);
}

struct rn_dra_claim_source *rn_dra_claim_source_dir(const char *dir, struct rn_error *e)
{
	struct rn_dra_claim_source *s = calloc(1, sizeof(*s));

	if (!s)
		return rn_fail(e, -ENOMEM, "out of memory"), NULL;
	snprintf(s->dir, sizeof(s->dir), "%s", dir);
	s->get = dir_get;
	s->destroy = dir_destroy;
	return s;
}
