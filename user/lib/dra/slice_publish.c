// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Publishing the pool's slices: the API server is made to hold exactly
 * what rn_dra_slices_build made, with the least writes. All slices of a
 * pool carry one generation (consumers use only the highest): when any
 * slice changes, every slice is written with the next generation; when
 * nothing changed nothing is written, so a publication every tick costs
 * one list request. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/slices.h"

#define RS_PATH "/apis/resource.k8s.io/v1/resourceslices"

/* spec without pool.generation: what the driver says, not when */
static json_t *spec_content(json_t *slice)
{
	json_t *spec = json_deep_copy(json_object_get(slice, "spec"));

	json_object_del(json_object_get(spec, "pool"), "generation");
	return spec;
}

static bool same_content(json_t *a, json_t *b)
{
	json_t *sa = spec_content(a), *sb = spec_content(b);
	bool same = sa && sb && json_equal(sa, sb);

	json_decref(sa);
	json_decref(sb);
	return same;
}

/* fieldSelector's value, URL-encoded: "spec.nodeName%3DN%2Cspec.driver%3DD" */
static int list_path(const char *driver, const char *node, char *out, size_t size)
{
	int n = snprintf(out, size, RS_PATH "?fieldSelector=spec.nodeName%%3D%s%%2Cspec.driver%%3D%s",
			 node, driver);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int list_slices(struct rn_kube *k, const char *driver, const char *node, json_t **items,
		       struct rn_error *e)
{
	struct rn_kube_reply r;
	char path[1024];
	int err;

	*items = NULL;
	if (list_path(driver, node, path, sizeof(path)))
		return rn_fail(e, -ENAMETOOLONG, "DRA slices: node or driver name too long");
	err = rn_kube_request(k, "GET", path, NULL, &r, e) ?: rn_kube_check(&r, "list ResourceSlices", e);
	if (!err) {
		*items = json_incref(json_object_get(r.body, "items"));
		if (!json_is_array(*items)) {
			json_decref(*items);
			*items = NULL;
			err = rn_fail(e, -EPROTO, "list ResourceSlices: the answer has no items");
		}
	}
	rn_kube_reply_free(&r);
	return err;
}

static json_t *find_named(json_t *items, const char *name)
{
	json_t *it;
	size_t i;

	json_array_foreach(items, i, it) {
		const char *n = json_string_value(json_object_get(json_object_get(it, "metadata"), "name"));

		if (n && !strcmp(n, name))
			return it;
	}
	return NULL;
}

static const char *name_of(json_t *o)
{
	return json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
}

/* PUT want over have (its resourceVersion); a 409 means the slice changed
 * under us (kubelet, an old agent): read it again and retry once */
static int replace(struct rn_kube *k, json_t *want, json_t *have, struct rn_error *e)
{
	json_t *cur = json_incref(have), *meta = json_object_get(want, "metadata");
	char path[512], what[600];
	int err = 0;

	snprintf(path, sizeof(path), RS_PATH "/%s", name_of(want));
	snprintf(what, sizeof(what), "update ResourceSlice %s", name_of(want));
	for (int attempt = 0; attempt < 2; attempt++) {
		struct rn_kube_reply r;

		json_object_set(meta, "resourceVersion",
				json_object_get(json_object_get(cur, "metadata"), "resourceVersion"));
		err = rn_kube_request(k, "PUT", path, want, &r, e) ?: rn_kube_check(&r, what, e);
		rn_kube_reply_free(&r);
		json_object_del(meta, "resourceVersion");
		if (err != -ESTALE || attempt)
			break;
		err = rn_kube_request(k, "GET", path, NULL, &r, e) ?: rn_kube_check(&r, what, e);
		if (!err) {
			json_decref(cur);
			cur = json_incref(r.body);
		}
		rn_kube_reply_free(&r);
		if (err)
			break;
	}
	json_decref(cur);
	return err;
}

int rn_dra_slices_publish(struct rn_kube *k, const char *driver, const char *node,
			  json_t *slices, struct rn_dra_publish_stats *st, struct rn_error *e)
{
	json_int_t gen = 0;
	bool changed = false;
	json_t *items, *it;
	size_t i;
	int err;

	memset(st, 0, sizeof(*st));
	err = list_slices(k, driver, node, &items, e);
	if (err)
		return err;
	json_array_foreach(items, i, it) {
		json_int_t g = json_integer_value(json_object_get(json_object_get(json_object_get(it, "spec"), "pool"), "generation"));

		if (g > gen)
			gen = g;
		if (!find_named(slices, name_of(it)))
			changed = true;
	}
	json_array_foreach(slices, i, it) {
		json_t *have = find_named(items, name_of(it));

		if (!have || !same_content(it, have))
			changed = true;
	}
	if (!changed) {
		st->unchanged = (int)json_array_size(slices);
		json_decref(items);
		return 0;
	}
	gen++;
	json_array_foreach(slices, i, it) {
		json_t *have = find_named(items, name_of(it));
		struct rn_kube_reply r;
		char what[600];

		json_object_set_new(json_object_get(json_object_get(it, "spec"), "pool"), "generation",
				    json_integer(gen));
		if (have) {
			err = replace(k, it, have, e);
			if (err)
				break;
			st->updated++;
			continue;
		}
		snprintf(what, sizeof(what), "create ResourceSlice %s", name_of(it));
		err = rn_kube_request(k, "POST", RS_PATH, it, &r, e) ?: rn_kube_check(&r, what, e);
		rn_kube_reply_free(&r);
		if (err)
			break;
		st->created++;
	}
	json_array_foreach(items, i, it) {
		struct rn_kube_reply r;
		char path[512], what[600];

		if (err || find_named(slices, name_of(it)))
			continue;
		snprintf(path, sizeof(path), RS_PATH "/%s", name_of(it));
		snprintf(what, sizeof(what), "delete ResourceSlice %s", name_of(it));
		err = rn_kube_request(k, "DELETE", path, NULL, &r, e);
		/* gone already (kubelet wiped it meanwhile) is what was wanted */
		if (!err && r.status != 404)
			err = rn_kube_check(&r, what, e);
		rn_kube_reply_free(&r);
		if (!err)
			st->deleted++;
	}
	json_decref(items);
	return err;
}
