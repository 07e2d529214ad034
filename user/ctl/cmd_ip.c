// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl ip show|release|allocate: single addresses and their owners in
 * the IPAM store.
 *   ip show IP                                   who holds it, or which pool it is free in
 *   ip show --container-id ID --ifname IF        what an attachment holds
 *   ip release IP [--pool NAME]                  release one address whoever holds it
 *   ip release --container-id ID --ifname IF     release what an attachment holds
 *   ip allocate --container-id ID --ifname IF --pool NAME [--pool NAME6]
 *               [--namespace NS] [--pod NAME] [--node NODE] [--master IF]
 * A store that does not answer in time exits with 75 (EX_TEMPFAIL). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ipam/ipam.h"

#define EXIT_TRY_LATER 75
#define MAX_HOLDERS 16

struct ip_args {
	const char *ip, *pool, *container_id, *ifname, *ns, *pod, *node, *master;
	const char *pools[2 * RN_IPAM_MAX_POOLS];
	unsigned int n_pools;
};

static int fail_ipam(const char *verb, const struct rn_error *e)
{
	ctl_fail("ip %s: %s", verb, e->msg);
	return e->code == -EAGAIN ? EXIT_TRY_LATER : 1;
}

/* The arguments the verb's table let through, by name. */
static void get_args(const struct ctl_args *ca, struct ip_args *a)
{
	memset(a, 0, sizeof(*a));
	a->ip = ca->pos;
	a->pool = ctl_arg(ca, "--pool");
	a->container_id = ctl_arg(ca, "--container-id");
	a->ifname = ctl_arg(ca, "--ifname");
	a->ns = ctl_arg(ca, "--namespace");
	a->pod = ctl_arg(ca, "--pod");
	a->node = ctl_arg(ca, "--node");
	a->master = ctl_arg(ca, "--master");
	for (int i = 0; i < ca->n; i++)
		if (!strcmp(ca->v[i].opt->name, "--pool") && a->n_pools < 2 * RN_IPAM_MAX_POOLS)
			a->pools[a->n_pools++] = ca->v[i].val;
}

/* show is a read: it opens the store read-only (nothing created or written) */
static int open_ipam(struct ctl *ctl, const char *verb, bool read_only, struct rn_ipam **ipam)
{
	struct rn_error e = { 0 };
	int err = read_only ? rn_ipam_open_readonly(ipam, &ctl->cfg, &e) :
			      rn_ipam_open(ipam, &ctl->cfg, &e);

	return err ? fail_ipam(verb, &e) : 0;
}

static void print_holders(const struct rn_ipam_allocation *h, int n)
{
	for (int i = 0; i < n; i++) {
		char ip[RN_ADDR_STRLEN], t[RN_IPAM_TIME_STRLEN];

		printf("%s pool %s container %s ifname %s pod %s/%s node %s since %s\n",
		       rn_addr_format(&h[i].addr, ip), h[i].pool, h[i].container_id, h[i].ifname,
		       h[i].pod_namespace, h[i].pod_name, h[i].node,
		       rn_ipam_time_format(h[i].created, t));
	}
}

/* What the nodes published of addr in their blocks (block_publish.h):
 * another node's block allocations are in its own store only. -1 when the
 * config has no block pool of etcd. */
static int published(struct ctl *ctl, const struct rn_addr *addr,
		     struct rn_block_pub_addr **out, struct rn_error *e)
{
	struct rn_ipam_settings st;
	struct rn_pool *pools;
	unsigned int n_pools, blocks = 0;
	int n;

	*out = NULL;
	if (rn_ipam_settings_parse(&st, &ctl->cfg, NULL) || st.store != RN_IPAM_STORE_ETCD ||
	    rn_ipam_config_pools(&ctl->cfg, &pools, &n_pools, NULL))
		return -1;
	for (unsigned int i = 0; i < n_pools; i++)
		blocks += pools[i].block != 0;
	n = blocks ? rn_block_published(&st, NULL, addr, pools, n_pools, out, e) : -1;
	rn_ipam_config_pools_free(pools, n_pools);
	return n;
}

/* Published holders the lookup found already (this node's own, from its
 * store: fresher) are left out. Returns the count left. */
static int drop_known(struct rn_block_pub_addr *pub, int n_pub,
		      const struct rn_ipam_allocation *held, int n)
{
	int k = 0;

	for (int i = 0; i < n_pub; i++) {
		bool known = false;

		for (int j = 0; j < n && !known; j++)
			known = rn_addr_equal(&held[j].addr, &pub[i].a.addr) &&
				!strcmp(held[j].container_id, pub[i].a.container_id) &&
				!strcmp(held[j].ifname, pub[i].a.ifname);
		if (!known)
			pub[k++] = pub[i];
	}
	return n_pub < 0 ? n_pub : k;
}

/* Pools whose usable set contains addr (where it is free, if not held). */
static json_t *pools_containing(struct rn_ipam *ipam, const struct rn_addr *addr)
{
	struct rn_ipam_pool_info *pools;
	struct rn_error e = { 0 };
	json_t *arr = json_array();
	int n = rn_ipam_pool_list(ipam, &pools, &e);

	for (int i = 0; i < n; i++)
		if (rn_pool_usable(&pools[i].pool, addr))
			json_array_append_new(arr, json_string(pools[i].pool.name));
	if (n >= 0)
		rn_ipam_pools_free(pools, n);
	return arr;
}

static int ip_show(struct ctl *ctl, const struct ctl_args *ca)
{
	struct rn_ipam_allocation held[MAX_HOLDERS];
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	struct rn_block_pub_addr *pub = NULL;
	struct rn_addr addr;
	int n, n_pub, rc;

	get_args(ca, &a);
	if (!a.ip == !a.container_id)
		return ctl_usage(ca, "give an IP, or --container-id and --ifname");
	if (a.ip && rn_addr_parse(a.ip, &addr))
		return ctl_usage(ca, "\"%s\" is not an IP address", a.ip);
	if (a.container_id && !a.ifname)
		return ctl_usage(ca, "--ifname is required with --container-id");
	rc = open_ipam(ctl, "show", true, &ipam);
	if (rc)
		return rc;
	n = a.ip ? rn_ipam_lookup_ip(ipam, &addr, held, MAX_HOLDERS, &e) :
		   rn_ipam_lookup_owner(ipam, a.container_id, a.ifname, held, MAX_HOLDERS, &e);
	if (n < 0) {
		rn_ipam_close(ipam);
		return fail_ipam("show", &e);
	}
	if (n > MAX_HOLDERS)
		n = MAX_HOLDERS;
	n_pub = a.ip ? published(ctl, &addr, &pub, &e) : -1;
	if (n_pub < -1) {
		rn_ipam_close(ipam);
		return fail_ipam("show", &e);
	}
	n_pub = drop_known(pub, n_pub, held, n);
	if (ctl->json) {
		json_t *o = json_object(), *arr = json_array();

		for (int i = 0; i < n; i++)
			json_array_append_new(arr, rn_ipam_allocation_to_json(&held[i]));
		if (a.ip) {
			json_object_set_new(o, "ip", json_string(a.ip));
			json_object_set_new(o, "pools", pools_containing(ipam, &addr));
		}
		json_object_set_new(o, "allocations", arr);
		if (n_pub >= 0) {
			json_t *parr = json_array();

			for (int i = 0; i < n_pub; i++)
				json_array_append_new(parr, rn_block_pub_addr_to_json(&pub[i]));
			json_object_set_new(o, "published", parr);
		}
		ctl_print_json(ctl, o);
	} else if (n || n_pub > 0) {
		print_holders(held, n);
		for (int i = 0; i < n_pub; i++) {
			char t[RN_IPAM_TIME_STRLEN];

			print_holders(&pub[i].a, 1);
			printf("  (published by node %s at %s)\n", pub[i].a.node,
			       rn_ipam_time_format(pub[i].at, t));
		}
	} else if (a.ip) {
		json_t *pools = pools_containing(ipam, &addr);

		if (json_array_size(pools)) {
			char *names = json_dumps(pools, JSON_COMPACT);

			printf("%s is free (pool %s)\n", a.ip, names ? names : "?");
			free(names);
		} else {
			printf("%s is in no pool\n", a.ip);
		}
		json_decref(pools);
	} else {
		printf("%s/%s holds no address\n", a.container_id, a.ifname);
	}
	free(pub);
	rn_ipam_close(ipam);
	return 0;
}

/* ip release IP: the one pool holding it, or the one --pool names. */
static int release_ip(struct rn_ipam *ipam, const struct ip_args *a, struct rn_error *e)
{
	struct rn_ipam_allocation held[MAX_HOLDERS];
	struct rn_addr addr;
	const char *pool = a->pool;
	int n;

	if (rn_addr_parse(a->ip, &addr))
		return rn_fail(e, -EINVAL, "\"%s\" is not an IP address", a->ip);
	if (!pool) {
		n = rn_ipam_lookup_ip(ipam, &addr, held, MAX_HOLDERS, e);
		if (n < 0)
			return n;
		if (n == 0)
			return 0;
		if (n > 1)
			return rn_fail(e, -EINVAL, "%s is held in %d pools (\"%s\", \"%s\"...): "
				       "say which with --pool", a->ip, n, held[0].pool,
				       held[1].pool);
		pool = held[0].pool;
		return rn_ipam_release_ip(ipam, pool, &addr, e);
	}
	return rn_ipam_release_ip(ipam, pool, &addr, e);
}

static int ip_release(struct ctl *ctl, const struct ctl_args *ca)
{
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	int rc, n;

	get_args(ca, &a);
	if (!a.ip == !a.container_id || (a.container_id && !a.ifname))
		return ctl_usage(ca, "give an IP [--pool NAME], or --container-id and --ifname");
	rc = open_ipam(ctl, "release", false, &ipam);
	if (rc)
		return rc;
	n = a.ip ? release_ip(ipam, &a, &e) :
		   rn_ipam_release(ipam, a.container_id, a.ifname, &e);
	rn_ipam_close(ipam);
	if (n < 0)
		return fail_ipam("release", &e);
	if (ctl->json)
		ctl_print_json(ctl, json_pack("{s:i}", "released", n));
	else
		printf("released %d address%s\n", n, n == 1 ? "" : "es");
	return 0;
}

/* The pools given with --pool, split by family. */
static int split_pools(struct rn_ipam *ipam, const struct ip_args *a, const char **v4,
		       unsigned int *n4, const char **v6, unsigned int *n6, struct rn_error *e)
{
	*n4 = *n6 = 0;
	for (unsigned int i = 0; i < a->n_pools; i++) {
		/* what the handle knows: no store request for a known pool */
		int fam = rn_ipam_pool_family(ipam, a->pools[i], e);

		if (fam < 0)
			return fam;
		if (fam == AF_INET && *n4 < RN_IPAM_MAX_POOLS)
			v4[(*n4)++] = a->pools[i];
		else if (fam == AF_INET6 && *n6 < RN_IPAM_MAX_POOLS)
			v6[(*n6)++] = a->pools[i];
	}
	return 0;
}

static int ip_allocate(struct ctl *ctl, const struct ctl_args *ca)
{
	const char *v4[RN_IPAM_MAX_POOLS], *v6[RN_IPAM_MAX_POOLS];
	struct rn_ipam_request req = { 0 };
	struct rn_ipam_result res;
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	int rc;

	get_args(ca, &a);
	rc = open_ipam(ctl, "allocate", false, &ipam);
	if (rc)
		return rc;
	req = (struct rn_ipam_request){ .container_id = a.container_id, .ifname = a.ifname,
					.pod_namespace = a.ns, .pod_name = a.pod, .node = a.node,
					.master = a.master, .ipv4_pools = v4, .ipv6_pools = v6 };
	if (split_pools(ipam, &a, v4, &req.n_ipv4_pools, v6, &req.n_ipv6_pools, &e) ||
	    rn_ipam_allocate(ipam, &req, &res, &e)) {
		rn_ipam_close(ipam);
		return fail_ipam("allocate", &e);
	}
	rn_ipam_close(ipam);
	if (ctl->json) {
		json_t *arr = json_array();

		for (unsigned int i = 0; i < res.n; i++) {
			char p[RN_PREFIX_STRLEN], g[RN_ADDR_STRLEN];
			json_t *o = json_pack("{s:s, s:s}", "address",
					      rn_prefix_format(&res.addrs[i].address, p), "pool",
					      res.addrs[i].pool);

			if (res.addrs[i].has_gateway) {
				rn_addr_format(&res.addrs[i].gateway, g);
				json_object_set_new(o, "gateway", json_string(g));
			}
			if (res.addrs[i].vlan)
				json_object_set_new(o, "vlan", json_integer(res.addrs[i].vlan));
			json_array_append_new(arr, o);
		}
		ctl_print_json(ctl, json_pack("{s:o}", "ips", arr));
	} else {
		for (unsigned int i = 0; i < res.n; i++) {
			char p[RN_PREFIX_STRLEN];

			printf("%s pool %s\n", rn_prefix_format(&res.addrs[i].address, p),
			       res.addrs[i].pool);
		}
	}
	return 0;
}

#define IP_OWNER_OPTS                                                                      \
	{ "--container-id", NULL, "ID", "the attachment's container ID" },                  \
	{ "--ifname", NULL, "IF", "the attachment's interface name" }

static const struct ctl_opt show_opts[] = { IP_OWNER_OPTS, { NULL } };

static const struct ctl_opt release_opts[] = {
	IP_OWNER_OPTS,
	{ "--pool", NULL, "NAME", "the pool IP is held in (when it is held in several)" },
	{ NULL },
};

static const struct ctl_opt allocate_opts[] = {
	{ "--container-id", NULL, "ID", "the attachment's container ID", true },
	{ "--ifname", NULL, "IF", "the attachment's interface name", true },
	{ "--pool", NULL, "NAME", "allocate from this pool (repeat for IPv4 and IPv6, or "
	  "fallbacks)", true },
	{ "--namespace", NULL, "NS", "the pod's namespace, recorded with the address" },
	{ "--pod", NULL, "NAME", "the pod's name, recorded with the address" },
	{ "--node", NULL, "NODE", "the node, recorded (default the config's node)" },
	{ "--master", NULL, "IF", "the master, for pools limited to masters" },
	{ NULL },
};

const struct ctl_object ctl_obj_ip = {
	.name = "ip",
	.help = "single addresses and their owners in the IPAM store; exit 75 if the store "
		"is busy",
	.verbs = (const struct ctl_verb[]){
		{ "show", NULL, "[IP]", show_opts, ip_show,
		  "who holds IP (or which pool it is free in), or what an attachment holds" },
		{ "release", NULL, "[IP]", release_opts, ip_release,
		  "release IP whoever holds it, or what an attachment holds" },
		{ "allocate", NULL, NULL, allocate_opts, ip_allocate,
		  "allocate for an attachment, as the CNI plugin does" },
		{ .run = NULL },
	},
};
