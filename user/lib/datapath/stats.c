// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "map_syscall.h"
#include "config.h"
#include "pin.h"
#include "stats.h"

const char *const rn_class_names[RN_CLASS_MAX] = { "roce", "cnp", "tcp", "udp", "other" };
const char *const rn_dir_names[RN_DIR_MAX] = { "rx", "tx" };
const char *const rn_violation_names[RN_VIOLATION_MAX] = { "spoofed_source" };
const char *const rn_malformed_names[RN_MALFORMED_MAX] = {
	"none", "ethernet", "vlan", "ipv4", "ipv6", "l4", "bth",
};
const char *const rn_xdp_state_names[3] = { "none", "native", "skb" };
const char *const rn_pod_reason_names[RN_REASON_MAX] = {
	"source_mac", "source_ip", "arp_claim", "nd_claim", "vlan_depth", "ipv6_ext_depth",
	"nd_unfinished", "malformed",
};
const char *const rn_tc_state_names[3] = { "none", "tcx", "clsact" };

_Static_assert(sizeof(struct rn_pod_counters) % 8 == 0, "per-CPU values are __u64 words");
_Static_assert(sizeof(struct rn_master_counters) % 8 == 0, "per-CPU values are __u64 words");
_Static_assert(sizeof(struct rn_pod_key) == 8, "pod key layout");
_Static_assert(sizeof(struct rn_pod_ip_key) == 20, "pod IP key layout");
_Static_assert(sizeof(struct rn_pod) == 96, "pod layout");
/* the data path checks a slot by comparing a pod's first 8 bytes with the key */
_Static_assert(offsetof(struct rn_pod, mac) == 0 && offsetof(struct rn_pod, master) == 6,
	       "a pod starts with its rn_pod_key");
_Static_assert(sizeof(struct rn_master) == 32, "master layout");

void rn_stats_free(struct rn_stats *s)
{
	free(s->pods);
	memset(s, 0, sizeof(*s));
}

/* Every slot's per-CPU counters in chunks of BPF_MAP_LOOKUP_BATCH (a
 * chunk bounds the buffer on machines with many CPUs), summed per pod. */
static int read_pod_counters(const struct rn_maps *m, struct rn_stats *s,
			     const struct rn_pod_entry *ents, int n, struct rn_error *e)
{
	const size_t words = sizeof(struct rn_pod_counters) / sizeof(__u64);
	const size_t per_slot = sizeof(struct rn_pod_counters) * (size_t)m->ncpus;
	__u32 chunk = 64, keys[64];
	__u64 *buf = malloc(per_slot * chunk);
	struct rn_pod_counters *sum = calloc(m->max_pods, sizeof(*sum));

	if (!buf || !sum) {
		free(buf);
		free(sum);
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	for (__u32 base = 0; base < m->max_pods; base += chunk) {
		__u32 in = base, out, count = m->max_pods - base < chunk ? m->max_pods - base : chunk;

		/* an array's batch token is the next key */
		if (rn_bpf_map_lookup_batch(m->pod_ctr, base ? &in : NULL, &out, keys, buf,
					    &count) && errno != ENOENT) {
			int err = -errno;

			free(buf);
			free(sum);
			return rn_fail(e, err, "read pod counters: %s", strerror(-err));
		}
		for (__u32 k = 0; k < count; k++) {
			__u64 *dst = (__u64 *)&sum[keys[k]];

			for (int cpu = 0; cpu < m->ncpus; cpu++)
				for (size_t w = 0; w < words; w++)
					dst[w] += buf[(k * (size_t)m->ncpus + (size_t)cpu) * words + w];
		}
	}
	for (int i = 0; i < n; i++) {
		struct rn_pod_stats *ps = &s->pods[s->n_pods++];

		ps->ent = ents[i];
		ps->ctr = sum[ents[i].slot];
		ps->has_refused = m->pod_rsn > 0 &&
				  !rn_maps_percpu_sum(m, m->pod_rsn, ents[i].slot, &ps->refused,
						      sizeof(ps->refused));
		for (int j = 0; j < s->n_masters; j++) {
			if (s->masters[j].slot != ps->ent.pod.master)
				continue;
			for (int d = 0; d < RN_DIR_MAX; d++)
				for (int c = 0; c < RN_CLASS_MAX; c++) {
					s->masters[j].total[d][c].packets += ps->ctr.traffic[d][c].packets;
					s->masters[j].total[d][c].bytes += ps->ctr.traffic[d][c].bytes;
				}
		}
	}
	free(buf);
	free(sum);
	return 0;
}

/* Pods that left the master still count in its totals. */
static void add_retired(const struct rn_maps *m, __u32 slot,
			struct rn_traffic total[RN_DIR_MAX][RN_CLASS_MAX])
{
	struct rn_master_retired ret;

	if (rn_bpf_map_lookup(m->mst_ret, &slot, &ret))
		return;
	for (int d = 0; d < RN_DIR_MAX; d++)
		for (int c = 0; c < RN_CLASS_MAX; c++) {
			total[d][c].packets += ret.traffic[d][c].packets;
			total[d][c].bytes += ret.traffic[d][c].bytes;
		}
}

int rn_stats_collect(const struct rn_maps *m, struct rn_stats *s, struct rn_error *e)
{
	struct rn_pod_entry *ents;
	int n, err;

	memset(s, 0, sizeof(*s));
	for (__u32 slot = 0; slot < RN_MAX_MASTERS; slot++) {
		struct rn_master_stats *ms = &s->masters[s->n_masters];

		if (rn_master_get(m, slot, &ms->info) || !(ms->info.flags & RN_MASTER_F_IN_USE))
			continue;
		ms->slot = slot;
		ms->info.ifname[RN_IFNAMSIZ - 1] = '\0';
		if (rn_maps_percpu_sum(m, m->mst_ctr, slot, &ms->ctr, sizeof(ms->ctr)))
			memset(&ms->ctr, 0, sizeof(ms->ctr));
		memcpy(ms->total, ms->ctr.unknown, sizeof(ms->total));
		add_retired(m, slot, ms->total);
		s->n_masters++;
	}
	err = rn_registry_list(m, &ents, &n, e);
	if (err)
		return err;
	s->pods = calloc((size_t)n + 1, sizeof(*s->pods));
	if (!s->pods) {
		free(ents);
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	err = read_pod_counters(m, s, ents, n, e);
	if (err) {
		free(ents);
		return err;
	}
	free(ents);
	return 0;
}

int rn_stats_load(const char *pin_dir, struct rn_stats *s, struct rn_error *e)
{
	struct rn_maps m;
	int err = rn_maps_open(&m, pin_dir, e), lock;

	memset(s, 0, sizeof(*s));
	if (err)
		return err;
	/* Unregistering moves a pod's traffic from its slot into the master's
	 * retired totals and then frees the slot. Read without the lock, a
	 * master's totals (unknown + retired + listed pods) would miss a pod
	 * that left between the retired read and the listing, or count it
	 * twice inside that move: a dip that Prometheus takes for a reset.
	 * Shared, so readers do not wait for each other. */
	lock = rn_pin_lock_registry_shared(pin_dir, e);
	if (lock < 0) {
		rn_maps_close(&m);
		return lock;
	}
	err = rn_stats_collect(&m, s, e);
	rn_pin_unlock(lock);
	rn_maps_close(&m);
	return err;
}

static json_t *traffic_json(const struct rn_traffic *t)
{
	/* direct calls: json_pack parses its format on every call, and this
	 * runs ten times per pod */
	json_t *o = json_object();

	json_object_set_new_nocheck(o, "packets", json_integer((json_int_t)t->packets));
	json_object_set_new_nocheck(o, "bytes", json_integer((json_int_t)t->bytes));
	return o;
}

static json_t *classes_json(const struct rn_traffic t[RN_CLASS_MAX])
{
	json_t *o = json_object();

	for (int c = 0; c < RN_CLASS_MAX; c++)
		json_object_set_new_nocheck(o, rn_class_names[c], traffic_json(&t[c]));
	return o;
}

static struct rn_traffic sum_classes(const struct rn_traffic t[RN_CLASS_MAX])
{
	struct rn_traffic sum = { 0, 0 };

	for (int c = 0; c < RN_CLASS_MAX; c++) {
		sum.packets += t[c].packets;
		sum.bytes += t[c].bytes;
	}
	return sum;
}

static int pod_match(const struct rn_pod_entry *ent, const char *filter)
{
	const char *slash = strchr(filter, '/');

	if (!slash)
		return !strcmp(ent->meta.name, filter);
	return strlen(ent->meta.ns) == (size_t)(slash - filter) &&
	       !strncmp(ent->meta.ns, filter, (size_t)(slash - filter)) &&
	       !strcmp(ent->meta.name, slash + 1);
}

int rn_stats_pod_selected(const struct rn_pod_stats *ps, const char *pod_filter,
			  const char *master_filter)
{
	return (!pod_filter || pod_match(&ps->ent, pod_filter)) &&
	       (!master_filter || !strcmp(ps->ent.master, master_filter));
}

static json_t *pod_json(const struct rn_pod_stats *ps)
{
	const struct rn_pod *p = &ps->ent.pod;
	const struct rn_pod_counters *c = &ps->ctr;
	char mac[RN_MAC_STRLEN], buf[RN_ADDR_STRLEN];
	json_t *ips = json_array(), *rx, *tx, *drops, *viol, *o;

	rn_mac_format(p->mac, mac);
	for (int i = 0; i < p->n_ipv4 && i < RN_POD_MAX_IPV4; i++) {
		struct rn_addr a = { .family = AF_INET };

		memcpy(a.b, &p->ipv4[i], 4);
		json_array_append_new(ips, json_string(rn_addr_format(&a, buf)));
	}
	for (int i = 0; i < p->n_ipv6 && i < RN_POD_MAX_IPV6; i++) {
		struct rn_addr a = { .family = AF_INET6 };

		memcpy(a.b, p->ipv6[i], 16);
		json_array_append_new(ips, json_string(rn_addr_format(&a, buf)));
	}
	rx = classes_json(c->traffic[RN_DIR_RX]);
	json_object_set_new(rx, "ecn_ce_packets", json_integer((json_int_t)c->rx_ecn_ce));
	tx = classes_json(c->traffic[RN_DIR_TX]);
	json_object_set_new(tx, "marked_packets", json_integer((json_int_t)c->tx_marked));
	drops = json_object();
	viol = json_object();
	for (int r = 0; r < RN_VIOLATION_MAX; r++) {
		json_object_set_new(drops, rn_violation_names[r],
				    json_integer((json_int_t)c->drops[r]));
		json_object_set_new(viol, rn_violation_names[r],
				    json_integer((json_int_t)c->violations[r]));
	}
	o = json_object();
	json_object_set_new(o, "namespace", json_string(ps->ent.meta.ns));
	json_object_set_new(o, "pod", json_string(ps->ent.meta.name));
	json_object_set_new(o, "container_id", json_string(ps->ent.meta.container_id));
	json_object_set_new(o, "ifname", json_string(ps->ent.meta.ifname));
	json_object_set_new(o, "master", json_string(ps->ent.master));
	json_object_set_new_nocheck(o, "mac", json_string(mac));
	json_object_set_new_nocheck(o, "ips", ips);
	json_object_set_new_nocheck(o, "rx", rx);
	json_object_set_new_nocheck(o, "tx", tx);
	json_object_set_new_nocheck(o, "drops", drops);
	json_object_set_new_nocheck(o, "policy_violations", viol);
	json_object_set_new(o, "dscp", p->dscp_roce == RN_DSCP_INHERIT ? json_null()
					: json_integer(p->dscp_roce));
	json_object_set_new(o, "keyed_by", json_string(p->flags & RN_POD_F_IP_KEYED ? "ip" : "mac"));
	json_object_set_new(o, "guarded", json_boolean(p->flags & RN_POD_F_GUARDED));
	if (ps->has_refused) {
		json_t *refused = json_object(), *mal = json_object();

		for (int r = 0; r < RN_REASON_MAX; r++)
			json_object_set_new(refused, rn_pod_reason_names[r],
					    json_integer((json_int_t)ps->refused.denied[r]));
		for (int r = 1; r < RN_MALFORMED_MAX; r++)
			json_object_set_new(mal, rn_malformed_names[r],
					    json_integer((json_int_t)ps->refused.malformed[r]));
		json_object_set_new(refused, "malformed_by_reason", mal);
		json_object_set_new(o, "refused", refused);
	}
	return o;
}

static json_t *master_json(const struct rn_master_stats *ms)
{
	const struct rn_master *mi = &ms->info;
	struct rn_traffic urx = sum_classes(ms->ctr.unknown[RN_DIR_RX]);
	struct rn_traffic utx = sum_classes(ms->ctr.unknown[RN_DIR_TX]);
	json_t *malformed = json_object(), *o;
	__u64 mal = 0;

	for (int r = 1; r < RN_MALFORMED_MAX; r++) {
		mal += ms->ctr.malformed[r];
		json_object_set_new(malformed, rn_malformed_names[r],
				    json_integer((json_int_t)ms->ctr.malformed[r]));
	}
	o = json_pack("{s:s,s:i,s:s,s:s,s:s,s:{s:o,s:o},s:I,s:o}",
		      "ifname", mi->ifname, "ifindex", (int)mi->ifindex,
		      "xdp", rn_xdp_state_names[mi->xdp < 3 ? mi->xdp : 0],
		      "tc", rn_tc_state_names[mi->tc < 3 ? mi->tc : 0],
		      "policy", mi->policy < 3 ? rn_policy_names[mi->policy] : "?",
		      "unknown", "rx", traffic_json(&urx), "tx", traffic_json(&utx),
		      "malformed_packets", (json_int_t)mal,
		      "malformed", malformed);
	json_object_set_new(o, "qos", json_pack("{s:i,s:i,s:s}", "roce_dscp", mi->dscp_roce,
						"cnp_dscp", mi->dscp_cnp,
						"ecn", mi->ecn < 3 ? rn_ecn_names[mi->ecn] : "?"));
	json_object_set_new(o, "unknown_by_class",
			    json_pack("{s:o,s:o}", "rx", classes_json(ms->ctr.unknown[RN_DIR_RX]),
				      "tx", classes_json(ms->ctr.unknown[RN_DIR_TX])));
	json_object_set_new(o, "total", json_pack("{s:o,s:o}",
						  "rx", classes_json(ms->total[RN_DIR_RX]),
						  "tx", classes_json(ms->total[RN_DIR_TX])));
	json_object_set_new(o, "unknown_ecn_ce_packets", json_integer((json_int_t)ms->ctr.rx_ecn_ce));
	json_object_set_new(o, "unknown_marked_packets", json_integer((json_int_t)ms->ctr.tx_marked));
	json_object_set_new(o, "mtu", json_integer(mi->mtu));
	return o;
}

static json_t *masters_json(const struct rn_stats *s, const char *master_filter)
{
	json_t *masters = json_array();

	for (int i = 0; i < s->n_masters; i++)
		if (!master_filter || !strcmp(s->masters[i].info.ifname, master_filter))
			json_array_append_new(masters, master_json(&s->masters[i]));
	return masters;
}

json_t *rn_stats_json(const struct rn_stats *s, const char *pod_filter, const char *master_filter)
{
	json_t *pods = json_array();

	for (int i = 0; i < s->n_pods; i++)
		if (rn_stats_pod_selected(&s->pods[i], pod_filter, master_filter))
			json_array_append_new(pods, pod_json(&s->pods[i]));
	return json_pack("{s:o,s:o}", "pods", pods, "masters", masters_json(s, master_filter));
}

/* Into a buffer, then one fwrite: json_dumpf calls fwrite per token. */
static int dump_one(FILE *f, json_t *v, size_t flags)
{
	char small[4096], *buf = small;
	size_t n = json_dumpb(v, small, sizeof(small), flags);
	int err = 0;

	if (n > sizeof(small)) {
		buf = malloc(n);
		if (!buf || json_dumpb(v, buf, n, flags) != n)
			err = -EIO;
	}
	if (!err && (n == 0 || fwrite(buf, 1, n, f) != n))
		err = -EIO;
	if (buf != small)
		free(buf);
	json_decref(v);
	return err;
}

int rn_stats_json_write(FILE *f, const struct rn_stats *s, const char *pod_filter,
			const char *master_filter, size_t json_flags)
{
	int first = 1, err = 0;

	/* the frame is two fixed keys; every value is serialized by jansson */
	fputs("{\"pods\":[", f);
	for (int i = 0; i < s->n_pods && !err; i++) {
		if (!rn_stats_pod_selected(&s->pods[i], pod_filter, master_filter))
			continue;
		if (!first)
			fputc(',', f);
		first = 0;
		err = dump_one(f, pod_json(&s->pods[i]), json_flags);
	}
	fputs("],\"masters\":", f);
	if (!err)
		err = dump_one(f, masters_json(s, master_filter), json_flags);
	fputs("}\n", f);
	return err || ferror(f) ? -EIO : 0;
}
