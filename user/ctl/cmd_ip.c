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
#include "ipam/ipam_json.h"

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

static int parse_args(struct ctl *ctl, int argc, char **argv, struct ip_args *a)
{
	static const struct {
		const char *opt;
		size_t off;
	} opts[] = {
		{ "--pool", offsetof(struct ip_args, pool) },
		{ "--container-id", offsetof(struct ip_args, container_id) },
		{ "--ifname", offsetof(struct ip_args, ifname) },
		{ "--namespace", offsetof(struct ip_args, ns) },
		{ "--pod", offsetof(struct ip_args, pod) },
		{ "--node", offsetof(struct ip_args, node) },
		{ "--master", offsetof(struct ip_args, master) },
	};

	memset(a, 0, sizeof(*a));
	for (int i = 2; i < argc; i++) {
		bool known = false;

		if (ctl_common_opt(ctl, argv[i]))
			continue;
		if (argv[i][0] != '-') {
			if (a->ip)
				return ctl_fail("ip %s: unexpected argument \"%s\"", argv[1],
						argv[i]);
			a->ip = argv[i];
			continue;
		}
		for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
			if (strcmp(argv[i], opts[k].opt))
				continue;
			if (i + 1 >= argc)
				return ctl_fail("ip %s: %s needs a value", argv[1], argv[i]);
			*(const char **)((char *)a + opts[k].off) = argv[++i];
			if (!strcmp(opts[k].opt, "--pool") && a->n_pools < 2 * RN_IPAM_MAX_POOLS)
				a->pools[a->n_pools++] = argv[i];
			known = true;
		}
		if (!known)
			return ctl_fail("ip %s: unexpected argument \"%s\"", argv[1], argv[i]);
	}
	return 0;
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

static int ip_show(struct ctl *ctl, int argc, char **argv)
{
	struct rn_ipam_allocation held[MAX_HOLDERS];
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	struct rn_addr addr;
	int n, rc;

	if (parse_args(ctl, argc, argv, &a))
		return 1;
	if (!a.ip == !a.container_id)
		return ctl_fail("ip show: give an IP, or --container-id and --ifname");
	if (a.ip && rn_addr_parse(a.ip, &addr))
		return ctl_fail("ip show: \"%s\" is not an IP address", a.ip);
	if (a.container_id && !a.ifname)
		return ctl_fail("ip show: --ifname is required with --container-id");
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
	if (ctl->json) {
		json_t *o = json_object(), *arr = json_array();

		for (int i = 0; i < n; i++)
			json_array_append_new(arr, rn_ipam_allocation_to_json(&held[i]));
		if (a.ip) {
			json_object_set_new(o, "ip", json_string(a.ip));
			json_object_set_new(o, "pools", pools_containing(ipam, &addr));
		}
		json_object_set_new(o, "allocations", arr);
		ctl_print_json(ctl, o);
	} else if (n) {
		print_holders(held, n);
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

static int ip_release(struct ctl *ctl, int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	int rc, n;

	if (parse_args(ctl, argc, argv, &a))
		return 1;
	if (!a.ip == !a.container_id || (a.container_id && !a.ifname))
		return ctl_fail("ip release: give an IP [--pool NAME], or --container-id and "
				"--ifname");
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

static int ip_allocate(struct ctl *ctl, int argc, char **argv)
{
	const char *v4[RN_IPAM_MAX_POOLS], *v6[RN_IPAM_MAX_POOLS];
	struct rn_ipam_request req = { 0 };
	struct rn_ipam_result res;
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct ip_args a;
	int rc;

	if (parse_args(ctl, argc, argv, &a))
		return 1;
	if (a.ip || !a.container_id || !a.ifname || !a.n_pools)
		return ctl_fail("ip allocate: --container-id, --ifname and --pool are required");
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

int cmd_ip(struct ctl *ctl, int argc, char **argv)
{
	if (argc < 2)
		return ctl_fail("ip: show, release or allocate?");
	if (!strcmp(argv[1], "show"))
		return ip_show(ctl, argc, argv);
	if (!strcmp(argv[1], "release"))
		return ip_release(ctl, argc, argv);
	if (!strcmp(argv[1], "allocate"))
		return ip_allocate(ctl, argc, argv);
	return ctl_fail("ip: unknown verb \"%s\" (show, release, allocate)", argv[1]);
}
