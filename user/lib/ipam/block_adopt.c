// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>

#include "ipam/block_adopt.h"
#include "ipam/etcd_store.h"

/* compares + ops of one block's transaction: 2 compares + 2 deletes per
 * record, the block's compares and put */
#define ADOPT_MAX_RECORDS	((TXN_OPS_MAX - 2) / 2)

struct rec {
	struct rn_ipam_allocation a;
	long long ip_mod;
	char owner_key[RN_ETCD_KEY_MAX];
	long long owner_mod;
	rn_u128 base;			/* of its block */
};

static void copy_str(char *dst, size_t size, json_t *v)
{
	snprintf(dst, size, "%s", json_string_value(v) ?: "");
}

/* One P/ips record: its owner, and whether the owner holds it alone. */
static int read_rec(struct rn_etcd *c, const char *prefix, const struct rn_pool *p,
		    const struct rn_etcd_kv *kv, struct rec *r, bool *single, struct rn_error *e)
{
	char pool[RN_POOL_NAME_MAX];
	struct rn_etcd_range o;
	struct owner_rec own;
	json_t *v;
	int err;

	memset(r, 0, sizeof(*r));
	*single = false;
	if (rn_etcd_parse_ip_key(kv->key, prefix, pool, sizeof(pool), &r->a.addr) ||
	    strcmp(pool, p->name))
		return rn_fail(e, -EIO, "etcd: %s: malformed address key", kv->key);
	v = json_loads(kv->value ? kv->value : "", 0, NULL);
	if (!json_is_object(v)) {
		json_decref(v);
		return rn_fail(e, -EIO, "etcd: %s: malformed address record", kv->key);
	}
	snprintf(r->a.pool, sizeof(r->a.pool), "%s", p->name);
	copy_str(r->a.container_id, sizeof(r->a.container_id), json_object_get(v, "container_id"));
	copy_str(r->a.ifname, sizeof(r->a.ifname), json_object_get(v, "ifname"));
	copy_str(r->a.pod_namespace, sizeof(r->a.pod_namespace), json_object_get(v, "namespace"));
	copy_str(r->a.pod_name, sizeof(r->a.pod_name), json_object_get(v, "pod"));
	copy_str(r->a.node, sizeof(r->a.node), json_object_get(v, "node"));
	r->a.created = json_integer_value(json_object_get(v, "created"));
	json_decref(v);
	r->ip_mod = kv->mod_revision;
	rn_etcd_key_owner(r->owner_key, prefix, r->a.container_id, r->a.ifname);
	err = rn_etcd_get(c, r->owner_key, NULL, 0, false, false, &o, e);
	if (err)
		return err;
	if (o.n && !rn_et_parse_owner(&o.kvs[0], r->a.container_id, r->a.ifname, &own, NULL)) {
		r->owner_mod = own.mod_revision;
		*single = own.n == 1 && !strcmp(own.a[0].pool, p->name) &&
			  rn_addr_equal(&own.a[0].addr, &r->a.addr);
	}
	rn_etcd_range_free(&o);
	return 0;
}

/* The owner holds the record's address in the local store too. */
static int copy_local(struct rn_store *local, const struct rn_pool *p, const struct rec *r,
		      struct rn_error *e)
{
	rn_u128 a = rn_addr_to_u128(&r->a.addr);
	struct rn_pool_seg only = { a, a };
	struct rn_alloc_plan plan = {
		.container_id = r->a.container_id, .ifname = r->a.ifname,
		.pod_namespace = r->a.pod_namespace, .pod_name = r->a.pod_name,
		.node = r->a.node, .n_families = 1,
	};
	struct rn_ipam_allocation got[2];
	int err;

	plan.fam[0].family = r->a.addr.family;
	plan.fam[0].n = 1;
	plan.fam[0].pools[0] = p;
	plan.fam[0].within[0] = &only;
	plan.fam[0].n_within[0] = 1;
	err = local->ops->allocate(local, &plan, got, e);
	if (err)
		return err;
	if (!rn_addr_equal(&got[0].addr, &r->a.addr))
		/* the owner holds another address of the family on the node */
		return rn_fail(e, -EEXIST, "ipam: adopt: %s/%s holds another address here",
			       r->a.container_id, r->a.ifname);
	return 0;
}

/* One block: records rs[0..n-1], read at revision rev. 1 adopted, 0 not
 * (changed meanwhile: the next pass sees), or an error. */
static int adopt_block(struct rn_etcd *c, const char *prefix, const char *node,
		       const struct rn_block_lease *l, const struct rn_pool *p, struct rn_store *local,
		       const struct rec *rs, int n, long long rev, struct rn_error *e)
{
	int family = rn_pool_family(p);
	rn_u128 last = rn_block_last(family, rs[0].base, p->block);
	char key[RN_ETCD_KEY_MAX], from[RN_ETCD_KEY_MAX], to[RN_ETCD_KEY_MAX + 1];
	char value[RN_POOL_NODE_MAX + 96];
	json_t *cmp = json_array(), *ops = json_array();
	struct rn_addr a;
	bool ok;
	int err;

	for (int i = 0; i < n; i++) {
		err = copy_local(local, p, &rs[i], e);
		if (err) {
			json_decref(cmp);
			json_decref(ops);
			return err == -EEXIST ? 0 : err;
		}
	}
	rn_block_key(key, prefix, p->name, family, rs[0].base);
	rn_addr_from_u128(&a, family, rs[0].base);
	rn_etcd_key_ip(from, prefix, p->name, &a);
	rn_addr_from_u128(&a, family, last);
	rn_etcd_key_ip(to, prefix, p->name, &a);
	strcat(to, "0");	/* past KEY(last), before KEY(last + 1) */
	json_array_append_new(cmp, rn_etcd_cmp_create(key, 0));
	json_array_append_new(cmp, rn_etcd_cmp_mod_range_less(from, to, rev + 1));
	snprintf(value, sizeof(value), "{\"node\":\"%s\",\"lease\":\"%lld\",\"len\":%u}", node,
		 l->id, p->block);
	json_array_append_new(ops, rn_etcd_op_put_lease(key, value, l->id));
	for (int i = 0; i < n; i++) {
		char ip[RN_ETCD_KEY_MAX];

		rn_etcd_key_ip(ip, prefix, p->name, &rs[i].a.addr);
		json_array_append_new(cmp, rn_etcd_cmp_mod(rs[i].owner_key, rs[i].owner_mod));
		json_array_append_new(ops, rn_etcd_op_delete(ip, NULL));
		json_array_append_new(ops, rn_etcd_op_delete(rs[i].owner_key, NULL));
	}
	rn_etcd_deadline(c);
	err = rn_etcd_txn(c, cmp, ops, NULL, &ok, NULL, 0, e);
	if (!err && !ok)
		/* a record changed (a release, a new neighbour): the local
		 * copies go, the next pass reads again */
		for (int i = 0; i < n; i++)
			local->ops->release_owner(local, rs[i].a.container_id, rs[i].a.ifname,
						  NULL);
	return err ? err : ok;
}

int rn_block_adopt(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, const struct rn_pool *p, struct rn_store *local,
		   struct rn_error *e)
{
	int family = rn_pool_family(p);
	rn_u128 mask = ~rn_block_last(family, 0, p->block);
	char dir[RN_ETCD_KEY_MAX];
	struct rn_etcd_range r;
	struct rec *rs = NULL;
	int adopted = 0, err;
	size_t i = 0;

	if (!p->block || !l->id)
		return 0;
	rn_etcd_key_ips(dir, prefix, p->name);
	rn_etcd_deadline(c);
	err = rn_etcd_get_prefix(c, dir, false, &r, e);
	if (err)
		return err;
	if (r.n)
		rs = calloc(ADOPT_MAX_RECORDS, sizeof(*rs));
	if (r.n && !rs)
		err = rn_fail(e, -ENOMEM, "ipam: out of memory");
	/* keys are in address order: one block's records are consecutive */
	while (!err && i < r.n) {
		struct rn_addr a0;
		char pool[RN_POOL_NAME_MAX];
		rn_u128 base;
		bool adoptable = true;
		int n = 0;

		if (rn_etcd_parse_ip_key(r.kvs[i].key, prefix, pool, sizeof(pool), &a0)) {
			i++;
			continue;
		}
		base = rn_addr_to_u128(&a0) & mask;
		for (; i < r.n; i++) {
			struct rn_addr a;
			bool single;

			if (rn_etcd_parse_ip_key(r.kvs[i].key, prefix, pool, sizeof(pool), &a) ||
			    (rn_addr_to_u128(&a) & mask) != base)
				break;
			if (!adoptable)
				continue;
			if (n == ADOPT_MAX_RECORDS) {
				adoptable = false;
				continue;
			}
			err = read_rec(c, prefix, p, &r.kvs[i], &rs[n], &single, e);
			if (err)
				break;
			rs[n].base = base;
			adoptable = single && !strcmp(rs[n].a.node, node);
			n++;
		}
		if (!err && adoptable && n) {
			err = adopt_block(c, prefix, node, l, p, local, rs, n, r.revision, e);
			if (err > 0) {
				adopted += n;
				err = 0;
			}
		}
	}
	rn_etcd_range_free(&r);
	free(rs);
	return err ? err : adopted;
}
