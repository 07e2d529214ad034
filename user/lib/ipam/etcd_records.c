// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON records the etcd store keeps under its keys (etcd_keys.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/etcd_store.h"

static void copy_str(char *dst, size_t size, json_t *v)
{
	snprintf(dst, size, "%s", json_string_value(v) ? json_string_value(v) : "");
}

int rn_et_parse_owner(const struct rn_etcd_kv *kv, const char *container_id,
		      const char *ifname, struct owner_rec *o, struct rn_error *e)
{
	json_t *v = json_loads(kv->value ? kv->value : "", 0, NULL), *addrs, *a;
	size_t i;

	memset(o, 0, sizeof(*o));
	addrs = json_object_get(v, "addrs");
	if (!json_is_object(v) || !json_is_array(addrs) || json_array_size(addrs) > OWNER_MAX) {
		json_decref(v);
		return rn_fail(e, -EIO, "etcd: %s: malformed owner record", kv->key);
	}
	o->exists = true;
	o->mod_revision = kv->mod_revision;
	json_array_foreach(addrs, i, a) {
		struct rn_ipam_allocation *r = &o->a[i];

		copy_str(r->pool, sizeof(r->pool), json_object_get(a, "pool"));
		if (rn_addr_parse(json_string_value(json_object_get(a, "ip")) ?: "", &r->addr)) {
			json_decref(v);
			return rn_fail(e, -EIO, "etcd: %s: malformed address in owner record",
				       kv->key);
		}
		snprintf(r->container_id, sizeof(r->container_id), "%s", container_id);
		snprintf(r->ifname, sizeof(r->ifname), "%s", ifname);
		copy_str(r->pod_namespace, sizeof(r->pod_namespace),
			 json_object_get(v, "namespace"));
		copy_str(r->pod_name, sizeof(r->pod_name), json_object_get(v, "pod"));
		copy_str(r->node, sizeof(r->node), json_object_get(v, "node"));
		r->created = json_integer_value(json_object_get(a, "created"));
		o->n++;
	}
	json_decref(v);
	return 0;
}

char *rn_et_owner_value(const struct owner_rec *o)
{
	json_t *addrs = json_array(), *v;
	char ip[RN_ADDR_STRLEN], *text;

	for (unsigned int i = 0; i < o->n; i++)
		json_array_append_new(addrs, json_pack("{s:s, s:s, s:I}", "pool", o->a[i].pool,
						       "ip", rn_addr_format(&o->a[i].addr, ip),
						       "created", (json_int_t)o->a[i].created));
	v = json_pack("{s:o, s:s, s:s, s:s}", "addrs", addrs,
		      "namespace", o->n ? o->a[0].pod_namespace : "",
		      "pod", o->n ? o->a[0].pod_name : "", "node", o->n ? o->a[0].node : "");
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	return text;
}

char *rn_et_ip_value(const struct rn_ipam_allocation *a)
{
	json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "container_id", a->container_id,
			      "ifname", a->ifname, "namespace", a->pod_namespace,
			      "pod", a->pod_name, "node", a->node, "created",
			      (json_int_t)a->created);
	char *text = json_dumps(v, JSON_COMPACT);

	json_decref(v);
	return text;
}

/* An address key and its value into an allocation. */
int rn_et_parse_ip_kv(struct etcd_store *s, const struct rn_etcd_kv *kv,
		      struct rn_ipam_allocation *a, struct rn_error *e)
{
	json_t *v;

	memset(a, 0, sizeof(*a));
	if (rn_etcd_parse_ip_key(kv->key, s->prefix, a->pool, sizeof(a->pool), &a->addr))
		return rn_fail(e, -EIO, "etcd: malformed address key %s", kv->key);
	v = json_loads(kv->value ? kv->value : "", 0, NULL);
	if (!json_is_object(v) || !json_is_string(json_object_get(v, "container_id")) ||
	    !json_is_string(json_object_get(v, "ifname"))) {
		json_decref(v);
		return rn_fail(e, -EIO, "etcd: %s: malformed allocation record", kv->key);
	}
	copy_str(a->container_id, sizeof(a->container_id), json_object_get(v, "container_id"));
	copy_str(a->ifname, sizeof(a->ifname), json_object_get(v, "ifname"));
	copy_str(a->pod_namespace, sizeof(a->pod_namespace), json_object_get(v, "namespace"));
	copy_str(a->pod_name, sizeof(a->pod_name), json_object_get(v, "pod"));
	copy_str(a->node, sizeof(a->node), json_object_get(v, "node"));
	a->created = json_integer_value(json_object_get(v, "created"));
	json_decref(v);
	return 0;
}

int rn_et_parse_pool_kv(const struct rn_etcd_kv *kv, struct pool_rec *p, struct rn_error *e)
{
	json_t *v = json_loads(kv->value ? kv->value : "", 0, NULL);
	char where[RN_ETCD_KEY_MAX + 16];
	int err;

	memset(p, 0, sizeof(*p));
	snprintf(where, sizeof(where), "etcd: %s", kv->key);
	if (!json_is_object(v)) {
		json_decref(v);
		return rn_fail(e, -EIO, "%s: malformed pool record", where);
	}
	err = rn_pool_from_json(&p->pool, json_object_get(v, "spec"), where, e);
	p->exists = !err;
	p->deleting = json_is_true(json_object_get(v, "deleting"));
	p->from_config = json_is_true(json_object_get(v, "from_config"));
	p->mod_revision = kv->mod_revision;
	json_decref(v);
	return err ? -EIO : 0;
}

char *rn_et_pool_value(const struct rn_pool *p, bool from_config, bool deleting)
{
	json_t *v = json_pack("{s:o, s:b}", "spec", rn_pool_to_json(p), "from_config",
			      from_config);
	char *text;

	if (deleting)
		json_object_set_new(v, "deleting", json_true());
	text = json_dumps(v, JSON_COMPACT);
	json_decref(v);
	return text;
}
