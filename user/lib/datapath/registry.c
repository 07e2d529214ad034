// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include "map_syscall.h"
#include "pin.h"
#include "registry.h"
#include <rdmanet/pod_guard.h>
#include <rdmanet/pod_index.h>

int rn_pod_spec_check(const struct rn_pod_spec *s, struct rn_error *e)
{
	int n4 = 0, n6 = 0;

	if (!s->container_id[0])
		return rn_fail(e, -EINVAL, "container id is required");
	if (!s->ifname[0])
		return rn_fail(e, -EINVAL, "ifname is required");
	if (!s->master[0])
		return rn_fail(e, -EINVAL, "master is required");
	if (!s->ip_keyed && rn_mac_is_zero(s->mac))
		return rn_fail(e, -EINVAL, "a MAC address is required");
	if (s->dscp < -1 || s->dscp > RN_DSCP_MAX)
		return rn_fail(e, -EINVAL, "dscp %d is outside 0..%d", s->dscp, RN_DSCP_MAX);
	if (s->n_ips < 0 || s->n_ips > RN_POD_MAX_IPS)
		return rn_fail(e, -EINVAL, "too many IPs (at most %d)", RN_POD_MAX_IPS);
	for (int i = 0; i < s->n_ips; i++) {
		if (s->ips[i].family == AF_INET)
			n4++;
		else
			n6++;
		for (int j = 0; j < i; j++)
			if (rn_addr_equal(&s->ips[i], &s->ips[j]))
				return rn_fail(e, -EINVAL, "IP listed twice");
	}
	if (n4 > RN_POD_MAX_IPV4 || n6 > RN_POD_MAX_IPV6)
		return rn_fail(e, -EINVAL, "at most %d IPv4 and %d IPv6 addresses per interface",
			       RN_POD_MAX_IPV4, RN_POD_MAX_IPV6);
	if (s->ip_keyed && s->n_ips == 0)
		return rn_fail(e, -EINVAL, "an IP-keyed (ipvlan) interface needs an IP");
	return 0;
}

static void ip_key(struct rn_pod_ip_key *k, __u16 master, const struct rn_addr *a)
{
	memset(k, 0, sizeof(*k));
	k->master = master;
	k->family = a->family == AF_INET ? 4 : 6;
	memcpy(k->addr, a->b, rn_addr_len(a));
}

static void pod_ips(const struct rn_pod *p, struct rn_addr *ips, int *n)
{
	*n = 0;
	for (int i = 0; i < p->n_ipv4 && i < RN_POD_MAX_IPV4; i++) {
		memset(&ips[*n], 0, sizeof(ips[*n]));
		ips[*n].family = AF_INET;
		memcpy(ips[*n].b, &p->ipv4[i], 4);
		(*n)++;
	}
	for (int i = 0; i < p->n_ipv6 && i < RN_POD_MAX_IPV6; i++) {
		memset(&ips[*n], 0, sizeof(ips[*n]));
		ips[*n].family = AF_INET6;
		memcpy(ips[*n].b, p->ipv6[i], 16);
		(*n)++;
	}
}

/* The owner records of every used slot, in one batch read. */
struct meta_table {
	__u32 *slots;
	struct rn_pod_meta *metas;
	int n;
};

static int meta_table_load(const struct rn_maps *m, struct meta_table *t)
{
	t->slots = calloc(m->max_pods, sizeof(*t->slots));
	t->metas = calloc(m->max_pods, sizeof(*t->metas));
	t->n = 0;
	if (!t->slots || !t->metas)
		return -ENOMEM;
	t->n = rn_maps_dump(m->pod_meta, t->slots, sizeof(__u32), t->metas, sizeof(*t->metas),
			    m->max_pods);
	return t->n < 0 ? t->n : 0;
}

static void meta_table_free(struct meta_table *t)
{
	free(t->slots);
	free(t->metas);
}

static int meta_table_find(const struct meta_table *t, const char *container_id,
			   const char *ifname)
{
	for (int i = 0; i < t->n; i++)
		if (!strncmp(t->metas[i].container_id, container_id, RN_CONTAINER_ID_LEN) &&
		    !strncmp(t->metas[i].ifname, ifname, RN_IFNAMSIZ))
			return (int)t->slots[i];
	return -ENOENT;
}

int rn_registry_find(const struct rn_maps *m, const char *container_id, const char *ifname)
{
	struct meta_table t;
	int slot = meta_table_load(m, &t);

	if (!slot)
		slot = meta_table_find(&t, container_id, ifname);
	meta_table_free(&t);
	return slot;
}

/* Puts a key in its index bucket, or in the overflow hash when the bucket
 * is full (include/rdmanet/pod_index.h). */
static int index_insert(const struct rn_maps *m, const struct rn_pod_key *key, __u32 slot)
{
	__u64 bits = rn_pod_key_bits(key);
	__u32 bucket = rn_pod_index_bucket(bits), ovf = 0;

	for (__u32 way = 0; way < RN_POD_INDEX_WAYS; way++) {
		__u32 idx = bucket * RN_POD_INDEX_WAYS + way;
		struct rn_pod_index_entry ent;

		if (rn_bpf_map_lookup(m->pod_idx, &idx, &ent))
			return -errno;
		if (ent.used)
			continue;
		ent = (struct rn_pod_index_entry){ .key = bits, .slot = slot, .used = 1 };
		return rn_bpf_map_update(m->pod_idx, &idx, &ent, BPF_ANY) ? -errno : 0;
	}
	if (rn_bpf_map_update(m->pods, key, &slot, BPF_ANY))
		return -errno;
	rn_bpf_map_lookup(m->pod_ovf, &bucket, &ovf);
	ovf++;
	return rn_bpf_map_update(m->pod_ovf, &bucket, &ovf, BPF_ANY) ? -errno : 0;
}

static void index_remove(const struct rn_maps *m, const struct rn_pod_key *key, __u32 slot)
{
	__u64 bits = rn_pod_key_bits(key);
	__u32 bucket = rn_pod_index_bucket(bits), ovf = 0, owner;

	for (__u32 way = 0; way < RN_POD_INDEX_WAYS; way++) {
		__u32 idx = bucket * RN_POD_INDEX_WAYS + way;
		struct rn_pod_index_entry ent;

		if (rn_bpf_map_lookup(m->pod_idx, &idx, &ent) || !ent.used || ent.key != bits ||
		    ent.slot != slot)
			continue;
		memset(&ent, 0, sizeof(ent));
		rn_bpf_map_update(m->pod_idx, &idx, &ent, BPF_ANY);
		return;
	}
	if (rn_bpf_map_lookup(m->pods, key, &owner) || owner != slot)
		return;
	rn_bpf_map_delete(m->pods, key);
	if (!rn_bpf_map_lookup(m->pod_ovf, &bucket, &ovf) && ovf) {
		ovf--;
		rn_bpf_map_update(m->pod_ovf, &bucket, &ovf, BPF_ANY);
	}
}

/* Takes a pod's keys out of the data path (which then stops finding it). */
static void unpublish_keys(const struct rn_maps *m, const struct rn_pod *pod, __u32 slot)
{
	struct rn_pod_key key = { .master = pod->master };
	struct rn_addr ips[RN_POD_MAX_IPS];
	__u32 owner;
	int n;

	memcpy(key.mac, pod->mac, 6);
	if (!(pod->flags & RN_POD_F_IP_KEYED))
		index_remove(m, &key, slot);
	pod_ips(pod, ips, &n);
	for (int i = 0; i < n; i++) {
		struct rn_pod_ip_key ik;

		ip_key(&ik, pod->master, &ips[i]);
		if (!rn_bpf_map_lookup(m->pod_ips, &ik, &owner) && owner == slot)
			rn_bpf_map_delete(m->pod_ips, &ik);
	}
}

/* Adds a leaving pod's traffic to its master's retired totals, so the
 * master's counters stay monotonic when the pod's slot is freed. */
static void retire_counters(const struct rn_maps *m, const struct rn_pod *pod, __u32 slot)
{
	struct rn_master_retired ret;
	struct rn_pod_counters c;
	__u32 mslot = pod->master;

	if (mslot >= RN_MAX_MASTERS || rn_maps_percpu_sum(m, m->pod_ctr, slot, &c, sizeof(c)) ||
	    rn_bpf_map_lookup(m->mst_ret, &mslot, &ret))
		return;
	for (int d = 0; d < RN_DIR_MAX; d++)
		for (int k = 0; k < RN_CLASS_MAX; k++) {
			ret.traffic[d][k].packets += c.traffic[d][k].packets;
			ret.traffic[d][k].bytes += c.traffic[d][k].bytes;
		}
	rn_bpf_map_update(m->mst_ret, &mslot, &ret, BPF_ANY);
}

/* Unregisters a slot: keys first (the data path stops finding it), its
 * traffic into the master's retired totals, the owner record last (the
 * slot becomes free). */
void rn_registry_remove_slot(const struct rn_maps *m, __u32 slot)
{
	struct rn_pod pod;

	if (!rn_bpf_map_lookup(m->pod_info, &slot, &pod)) {
		unpublish_keys(m, &pod, slot);
		retire_counters(m, &pod, slot);
	}
	rn_bpf_map_delete(m->pod_meta, &slot);
}

static int free_slot(const struct rn_maps *m, const struct meta_table *t, __u32 *slot)
{
	unsigned char *used = calloc(m->max_pods, 1);

	if (!used)
		return -ENOMEM;
	for (int i = 0; i < t->n; i++)
		if (t->slots[i] < m->max_pods)
			used[t->slots[i]] = 1;
	for (__u32 s = 0; s < m->max_pods; s++) {
		if (!used[s]) {
			free(used);
			*slot = s;
			return 0;
		}
	}
	free(used);
	return -ENOSPC;
}

static int conflict(const struct rn_maps *m, const struct rn_pod_spec *s, __u16 master,
		    int self, struct rn_error *e)
{
	struct rn_pod_meta meta;
	__u32 owner;
	int found = 0;

	if (!s->ip_keyed) {
		struct rn_pod_key key = { .master = master };

		memcpy(key.mac, s->mac, 6);
		found = !rn_pod_lookup_key(m, &key, &owner) && (int)owner != self;
	}
	for (int i = 0; !found && i < s->n_ips && s->ip_keyed; i++) {
		struct rn_pod_ip_key ik;

		ip_key(&ik, master, &s->ips[i]);
		found = !rn_bpf_map_lookup(m->pod_ips, &ik, &owner) && (int)owner != self;
	}
	if (!found)
		return 0;
	if (rn_bpf_map_lookup(m->pod_meta, &owner, &meta))
		return rn_fail(e, -EEXIST, "address already registered on %s (slot %u)",
			       s->master, owner);
	return rn_fail(e, -EEXIST, "%s already registered on %s by %s/%s (container %.12s, %s)",
		       s->ip_keyed ? "IP" : "MAC", s->master, meta.ns, meta.name,
		       meta.container_id, meta.ifname);
}

static void fill_pod(struct rn_pod *p, const struct rn_pod_spec *s, __u16 master)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->mac, s->mac, 6);
	p->master = master;
	p->dscp_roce = s->dscp < 0 ? RN_DSCP_INHERIT : (__u8)s->dscp;
	p->dscp_cnp = RN_DSCP_INHERIT;
	p->flags = s->ip_keyed ? RN_POD_F_IP_KEYED : 0;
	for (int i = 0; i < s->n_ips; i++) {
		if (s->ips[i].family == AF_INET)
			memcpy(&p->ipv4[p->n_ipv4++], s->ips[i].b, 4);
		else
			memcpy(p->ipv6[p->n_ipv6++], s->ips[i].b, 16);
	}
}

static void fill_meta(struct rn_pod_meta *meta, const struct rn_pod_spec *s)
{
	struct timespec ts;

	memset(meta, 0, sizeof(*meta));
	snprintf(meta->ns, sizeof(meta->ns), "%s", s->ns);
	snprintf(meta->name, sizeof(meta->name), "%s", s->name);
	snprintf(meta->container_id, sizeof(meta->container_id), "%s", s->container_id);
	snprintf(meta->ifname, sizeof(meta->ifname), "%s", s->ifname);
	clock_gettime(CLOCK_REALTIME, &ts);
	meta->created_ns = (__u64)ts.tv_sec * 1000000000ull + (__u64)ts.tv_nsec;
}

/* The slot's traffic counters and, where the per-pod program's map is
 * pinned, its refusals by reason: a pod never starts with the counts of the
 * pod that had its slot before. */
static int zero_counters(const struct rn_maps *m, __u32 slot)
{
	size_t size = sizeof(struct rn_pod_counters) > sizeof(struct rn_pod_reasons)
			      ? sizeof(struct rn_pod_counters)
			      : sizeof(struct rn_pod_reasons);
	void *zero = calloc((size_t)m->ncpus, size);
	int err;

	if (!zero)
		return -ENOMEM;
	err = rn_bpf_map_update(m->pod_ctr, &slot, zero, BPF_ANY) ? -errno : 0;
	if (!err && m->pod_rsn > 0)
		err = rn_bpf_map_update(m->pod_rsn, &slot, zero, BPF_ANY) ? -errno : 0;
	free(zero);
	return err;
}

/* Writes a pod into a slot and publishes its keys. */
static int publish_pod(const struct rn_maps *m, const struct rn_pod *pod,
		       const struct rn_pod_meta *meta, __u32 slot, bool fresh, struct rn_error *e)
{
	struct rn_addr ips[RN_POD_MAX_IPS];
	int err, n;

	/* order matters: the data path must never find a key whose slot still
	 * holds another pod's info or counters */
	if (fresh && zero_counters(m, slot))
		return rn_fail(e, -errno, "reset counters of slot %u: %s", slot, strerror(errno));
	if (rn_bpf_map_update(m->pod_info, &slot, pod, BPF_ANY) ||
	    rn_bpf_map_update(m->pod_meta, &slot, meta, BPF_ANY))
		return rn_fail(e, -errno, "write pod slot %u: %s", slot, strerror(errno));
	if (!(pod->flags & RN_POD_F_IP_KEYED)) {
		struct rn_pod_key key = { .master = pod->master };

		memcpy(key.mac, pod->mac, 6);
		err = index_insert(m, &key, slot);
		if (err)
			return rn_fail(e, err, "publish MAC: %s", strerror(-err));
		return 0;
	}
	pod_ips(pod, ips, &n);
	for (int i = 0; i < n; i++) {
		struct rn_pod_ip_key ik;

		ip_key(&ik, pod->master, &ips[i]);
		if (rn_bpf_map_update(m->pod_ips, &ik, &slot, BPF_ANY))
			return rn_fail(e, -errno, "publish IP: %s", strerror(errno));
	}
	return 0;
}

int rn_registry_publish(const struct rn_maps *m, const struct rn_pod_spec *s, __u16 master,
			__u32 slot, bool fresh, struct rn_error *e)
{
	struct rn_pod pod;
	struct rn_pod_meta meta;

	fill_pod(&pod, s, master);
	fill_meta(&meta, s);
	return publish_pod(m, &pod, &meta, slot, fresh, e);
}

static int mark_master_ip_keyed(const struct rn_maps *m, __u32 mslot)
{
	struct rn_master ms;

	if (rn_master_get(m, mslot, &ms))
		return -errno;
	if (ms.flags & RN_MASTER_F_IP_KEYED)
		return 0;
	ms.flags |= RN_MASTER_F_IP_KEYED;
	return rn_bpf_map_update(m->masters, &mslot, &ms, BPF_EXIST) ? -errno : 0;
}

/* Re-registration keeps the slot and its counters and swaps the keys; if
 * the new ones cannot be published, the old registration is put back, so a
 * failed update changes nothing. */
static int republish(const struct rn_maps *m, const struct rn_pod_spec *s, __u16 master,
		     __u32 slot, struct rn_error *e)
{
	struct rn_pod_meta old_meta;
	struct rn_pod old_pod;
	int err;

	if (rn_bpf_map_lookup(m->pod_info, &slot, &old_pod) ||
	    rn_bpf_map_lookup(m->pod_meta, &slot, &old_meta))
		return rn_fail(e, -errno, "read pod slot %u: %s", slot, strerror(errno));
	unpublish_keys(m, &old_pod, slot);
	err = rn_registry_publish(m, s, master, slot, false, e);
	if (err) {
		struct rn_pod half;

		/* drop whatever of the new keys made it in, then the old ones back */
		fill_pod(&half, s, master);
		unpublish_keys(m, &half, slot);
		publish_pod(m, &old_pod, &old_meta, slot, false, NULL);
	}
	return err;
}

/* The maps, and the registry lock held: returns the lock fd. */
static int registry_open(const char *pin_dir, struct rn_maps *m, struct rn_error *e)
{
	int err = rn_maps_open(m, pin_dir, e), lock;

	if (err)
		return err;
	lock = rn_pin_lock_registry(pin_dir, e);
	if (lock < 0)
		rn_maps_close(m);
	return lock;
}

int rn_registry_add(const char *pin_dir, const struct rn_pod_spec *s, struct rn_error *e)
{
	return rn_registry_add_slot(pin_dir, s, NULL, e);
}

int rn_registry_add_slot(const char *pin_dir, const struct rn_pod_spec *s, __u32 *slot_out,
			 struct rn_error *e)
{
	struct meta_table table = { 0 };
	struct rn_maps m;
	int lock, mslot, old, err;
	__u32 slot = 0;

	if (rn_pod_spec_check(s, e))
		return e ? e->code : -EINVAL;
	lock = registry_open(pin_dir, &m, e);
	if (lock < 0)
		return lock;
	mslot = rn_master_find(&m, s->master);
	if (mslot < 0) {
		err = rn_fail(e, -ENODEV, "master %s is not attached by rdmanetd", s->master);
		goto out;
	}
	err = meta_table_load(&m, &table);
	if (err) {
		rn_fail(e, err, "read the pod registry: %s", strerror(-err));
		goto out;
	}
	old = meta_table_find(&table, s->container_id, s->ifname);
	err = conflict(&m, s, (__u16)mslot, old, e);
	if (err)
		goto out;
	if (old < 0 && free_slot(&m, &table, &slot)) {
		err = rn_fail(e, -ENOSPC, "all %u pod slots are in use", m.max_pods);
		goto out;
	}
	if (s->ip_keyed && (err = mark_master_ip_keyed(&m, (__u32)mslot))) {
		rn_fail(e, err, "flag master %s: %s", s->master, strerror(-err));
		goto out;
	}
	if (old >= 0) {
		slot = (__u32)old;
		err = republish(&m, s, (__u16)mslot, slot, e);
		goto out;
	}
	err = rn_registry_publish(&m, s, (__u16)mslot, slot, true, e);
	if (err)
		rn_registry_remove_slot(&m, slot);
out:
	if (!err && slot_out)
		*slot_out = slot;
	meta_table_free(&table);
	rn_pin_unlock(lock);
	rn_maps_close(&m);
	return err;
}

int rn_registry_del(const char *pin_dir, const char *container_id, const char *ifname,
		    bool *removed, struct rn_error *e)
{
	struct rn_maps m;
	int lock, slot;

	if (removed)
		*removed = false;
	if (!container_id[0] || !ifname[0])
		return rn_fail(e, -EINVAL, "container id and ifname are required");
	lock = registry_open(pin_dir, &m, e);
	if (lock < 0)
		return lock;
	slot = rn_registry_find(&m, container_id, ifname);
	if (slot >= 0) {
		rn_registry_remove_slot(&m, (__u32)slot);
		if (removed)
			*removed = true;
	}
	rn_pin_unlock(lock);
	rn_maps_close(&m);
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct rn_pod_entry *x = a, *y = b;
	int c = strcmp(x->meta.ns, y->meta.ns);

	if (!c)
		c = strcmp(x->meta.name, y->meta.name);
	if (!c)
		c = strcmp(x->meta.ifname, y->meta.ifname);
	if (!c)
		c = strcmp(x->meta.container_id, y->meta.container_id);
	return c;
}

int rn_registry_list(const struct rn_maps *m, struct rn_pod_entry **out, int *n,
		     struct rn_error *e)
{
	struct rn_master masters[RN_MAX_MASTERS];
	__u32 mkeys[RN_MAX_MASTERS], max = m->max_pods;
	struct rn_pod_meta *metas = calloc(max, sizeof(*metas));
	struct rn_pod *pods = calloc(max, sizeof(*pods));
	__u32 *slots = calloc(max, sizeof(*slots)), *ikeys = calloc(max, sizeof(*ikeys));
	struct rn_pod_entry *v = calloc((size_t)max + 1, sizeof(*v));
	int nmeta, npods, nm, cnt = 0, err = 0;

	*out = NULL;
	*n = 0;
	if (!metas || !pods || !slots || !ikeys || !v) {
		err = rn_fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	memset(masters, 0, sizeof(masters));
	nm = rn_maps_dump(m->masters, mkeys, sizeof(__u32), masters, sizeof(masters[0]),
			  RN_MAX_MASTERS);
	nmeta = rn_maps_dump(m->pod_meta, slots, sizeof(__u32), metas, sizeof(*metas), max);
	npods = rn_maps_dump(m->pod_info, ikeys, sizeof(__u32), pods, sizeof(*pods), max);
	if (nm < 0 || nmeta < 0 || npods < 0) {
		err = rn_fail(e, nm < 0 ? nm : nmeta < 0 ? nmeta : npods,
			      "read the pod registry: %s",
			      strerror(-(nm < 0 ? nm : nmeta < 0 ? nmeta : npods)));
		goto out;
	}
	for (int i = 0; i < nmeta; i++) {
		struct rn_pod_entry *ent = &v[cnt];

		/* array keys are their index, so the info of slot s is pods[s] */
		if (slots[i] >= (__u32)npods)
			continue;
		ent->slot = slots[i];
		ent->meta = metas[i];
		ent->pod = pods[slots[i]];
		if (ent->pod.master < nm)
			memcpy(ent->master, masters[ent->pod.master].ifname, RN_IFNAMSIZ);
		ent->master[RN_IFNAMSIZ - 1] = '\0';
		ent->meta.ns[RN_NS_LEN - 1] = '\0';
		ent->meta.name[RN_POD_NAME_LEN - 1] = '\0';
		ent->meta.container_id[RN_CONTAINER_ID_LEN - 1] = '\0';
		ent->meta.ifname[RN_IFNAMSIZ - 1] = '\0';
		cnt++;
	}
	if (cnt)
		qsort(v, (size_t)cnt, sizeof(*v), entry_cmp);
	*out = v;
	*n = cnt;
	v = NULL;
out:
	free(metas);
	free(pods);
	free(slots);
	free(ikeys);
	free(v);
	return err;
}
