// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Releases in the etcd store: an owner record and its address keys go
 * together, under a compare-and-swap on the owner record. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ipam/etcd_store.h"

/* --- owner and address operations ------------------------------------------------- */

int rn_et_read_owner(struct etcd_store *s, const char *container_id, const char *ifname,
		     struct owner_rec *o, struct rn_error *e)
{
	char key[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	int err;

	memset(o, 0, sizeof(*o));
	rn_etcd_key_owner(key, s->prefix, container_id, ifname);
	err = rn_etcd_get(s->c, key, NULL, 0, false, false, &r, e);
	if (err)
		return err;
	if (r.n)
		err = rn_et_parse_owner(&r.kvs[0], container_id, ifname, o, e);
	rn_etcd_range_free(&r);
	return err;
}

json_t *rn_et_owner_compare(const char *key, const struct owner_rec *o)
{
	return o->exists ? rn_etcd_cmp_mod(key, o->mod_revision) : rn_etcd_cmp_create(key, 0);
}

/* The owner key after dropping entry `drop` (-1: none): a put, or a delete
 * when nothing is left. */
json_t *rn_et_owner_write(const char *key, struct owner_rec *o, int drop)
{
	struct owner_rec rest = *o;
	json_t *op;
	char *value;

	rest.n = 0;
	for (unsigned int i = 0; i < o->n; i++)
		if ((int)i != drop)
			rest.a[rest.n++] = o->a[i];
	if (!rest.n)
		return rn_etcd_op_delete(key, NULL);
	value = rn_et_owner_value(&rest);
	op = rn_etcd_op_put(key, value);
	free(value);
	return op;
}

int rn_et_release_owner(struct rn_store *base, const char *container_id, const char *ifname,
			struct rn_error *e)
{
	struct etcd_store *s = to_et(base);
	char key[RN_ETCD_KEY_MAX], ipkey[RN_ETCD_KEY_MAX];

	rn_etcd_key_owner(key, s->prefix, container_id, ifname);
	rn_etcd_deadline(s->c);
	while (!rn_etcd_expired(s->c)) {
		struct owner_rec o;
		json_t *ops;
		bool ok;
		int err = rn_et_read_owner(s, container_id, ifname, &o, e);

		if (err)
			return err;
		if (!o.exists)
			return 0;
		/* address keys change only together with their owner key: the
		 * owner's revision guards them all */
		ops = json_pack("[o]", rn_etcd_op_delete(key, NULL));
		for (unsigned int i = 0; i < o.n; i++) {
			rn_etcd_key_ip(ipkey, s->prefix, o.a[i].pool, &o.a[i].addr);
			json_array_append_new(ops, rn_etcd_op_delete(ipkey, NULL));
		}
		err = rn_etcd_txn(s->c, json_pack("[o]", rn_et_owner_compare(key, &o)), ops, NULL,
				  &ok, NULL, 0, e);
		if (err)
			return err;
		if (ok)
			return (int)o.n;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: release of %s/%s did not settle within %u s: "
		       "try again later", container_id, ifname,
		       s->base.settings->timeout_ms / 1000);
}

/* Releases one address key and its entry in the owner record; the caller
 * holds the deadline. Returns 1, or 0 if it was free. */
int rn_et_release_ip_once(struct etcd_store *s, const char *pool, const struct rn_addr *addr,
			  struct rn_error *e)
{
	char ipkey[RN_ETCD_KEY_MAX], okey[RN_ETCD_KEY_MAX];

	rn_etcd_key_ip(ipkey, s->prefix, pool, addr);
	while (!rn_etcd_expired(s->c)) {
		struct rn_ipam_allocation a;
		struct rn_etcd_range r;
		struct owner_rec o;
		json_t *cmp, *ops;
		int err, drop = -1;
		bool ok;

		err = rn_etcd_get(s->c, ipkey, NULL, 0, false, false, &r, e);
		if (err)
			return err;
		if (!r.n) {
			rn_etcd_range_free(&r);
			return 0;
		}
		err = rn_et_parse_ip_kv(s, &r.kvs[0], &a, e);
		cmp = json_pack("[o]", rn_etcd_cmp_mod(ipkey, r.kvs[0].mod_revision));
		rn_etcd_range_free(&r);
		if (!err)
			err = rn_et_read_owner(s, a.container_id, a.ifname, &o, e);
		if (err) {
			json_decref(cmp);
			return err;
		}
		rn_etcd_key_owner(okey, s->prefix, a.container_id, a.ifname);
		for (unsigned int i = 0; i < o.n; i++)
			if (!strcmp(o.a[i].pool, pool) && rn_addr_equal(&o.a[i].addr, addr))
				drop = (int)i;
		json_array_append_new(cmp, rn_et_owner_compare(okey, &o));
		ops = json_pack("[o]", rn_etcd_op_delete(ipkey, NULL));
		if (o.exists)
			json_array_append_new(ops, rn_et_owner_write(okey, &o, drop));
		err = rn_etcd_txn(s->c, cmp, ops, NULL, &ok, NULL, 0, e);
		if (err)
			return err;
		if (ok)
			return 1;
	}
	return rn_fail(e, -EAGAIN, "ipam: etcd: release of an address in pool \"%s\" did not "
		       "settle within %u s: try again later", pool,
		       s->base.settings->timeout_ms / 1000);
}

int rn_et_release_ip(struct rn_store *base, const char *pool, const struct rn_addr *addr,
		     struct rn_error *e)
{
	struct etcd_store *s = to_et(base);

	rn_etcd_deadline(s->c);
	return rn_et_release_ip_once(s, pool, addr, e);
}
