// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl pool list|show|add|del|gc|sync|check: IP pools in the IPAM
 * store (the config's "ipam" section says which store). A store that does
 * not answer in time exits with 75 (EX_TEMPFAIL): try again later. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "ipam/ipam.h"

#define EXIT_TRY_LATER 75

static int fail_ipam(const char *verb, const struct rn_error *e)
{
	ctl_fail("pool %s: %s", verb, e->msg);
	return e->code == -EAGAIN ? EXIT_TRY_LATER : 1;
}

static int open_ipam(struct ctl *ctl, const char *verb, struct rn_ipam **ipam)
{
	struct rn_error e = { 0 };

	if (rn_ipam_open(ipam, &ctl->cfg, &e))
		return fail_ipam(verb, &e);
	return 0;
}

/* Read verbs create and write nothing: not the store, not the config's
 * pools (an allocation, `pool sync` or the agent writes those). */
static int open_ipam_readonly(struct ctl *ctl, const char *verb, struct rn_ipam **ipam)
{
	struct rn_error e = { 0 };

	if (rn_ipam_open_readonly(ipam, &ctl->cfg, &e))
		return fail_ipam(verb, &e);
	return 0;
}

static const char *names_text(const char *names, size_t width, unsigned int n, char *buf,
			      size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? "," : "",
					 names + i * width);
	return n ? buf : "*";
}

static int pool_list(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_ipam_pool_info *pools;
	struct rn_ipam *ipam;
	int n, rc;

	(void)a;
	rc = open_ipam_readonly(ctl, "list", &ipam);
	if (rc)
		return rc;
	n = rn_ipam_pool_list(ipam, &pools, &e);
	if (n < 0) {
		rn_ipam_close(ipam);
		return fail_ipam("list", &e);
	}
	if (ctl->json) {
		json_t *arr = json_array();

		for (int i = 0; i < n; i++)
			json_array_append_new(arr, rn_ipam_pool_info_to_json(&pools[i]));
		ctl_print_json(ctl, json_pack("{s:s, s:o}", "store", rn_ipam_store_name(ipam),
					      "pools", arr));
	} else {
		printf("%-20s %-22s %10s %10s %10s %-16s %-12s %s\n", "NAME", "SUBNET", "TOTAL",
		       "ALLOCATED", "FREE", "MASTERS", "NODES", "SOURCE");
		for (int i = 0; i < n; i++) {
			const struct rn_pool *p = &pools[i].pool;
			char pfx[RN_PREFIX_STRLEN], m[256], nd[256];

			printf("%-20s %-22s %10llu %10llu %10llu %-16s %-12s %s\n", p->name,
			       rn_prefix_format(&p->subnet, pfx), pools[i].total,
			       pools[i].allocated, pools[i].total - pools[i].allocated,
			       names_text(p->n_masters ? p->masters[0] : "", RN_IFNAMSIZ,
					  p->n_masters, m, sizeof(m)),
			       names_text(p->n_nodes ? p->nodes[0] : "", RN_POOL_NODE_MAX,
					  p->n_nodes, nd, sizeof(nd)),
			       pools[i].from_config ? "config" : "cli");
		}
	}
	rn_ipam_pools_free(pools, n);
	rn_ipam_close(ipam);
	return 0;
}

/* A pool field as an operator reads it: a string as is, a list joined
 * with ", ", a route as "DST via GW" (no JSON in the human view). */
static void print_value(const json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		fputs(json_string_value(v), stdout);
		break;
	case JSON_INTEGER:
		printf("%lld", (long long)json_integer_value(v));
		break;
	case JSON_ARRAY:
		json_array_foreach(v, i, x) {
			fputs(i ? ", " : "", stdout);
			print_value(x);
		}
		if (!json_array_size(v))
			fputs("-", stdout);
		break;
	case JSON_OBJECT:
		if (json_is_string(json_object_get(v, "dst"))) {
			fputs(json_string_value(json_object_get(v, "dst")), stdout);
			if (json_is_string(json_object_get(v, "gw")))
				printf(" via %s", json_string_value(json_object_get(v, "gw")));
			break;
		}
		i = 0;
		json_object_foreach((json_t *)v, key, x) {
			printf("%s%s ", i++ ? " " : "", key);
			print_value(x);
		}
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		fputs(json_is_true(v) ? "yes" : "no", stdout);
		break;
	default:
		fputs("-", stdout);
	}
}

static void print_pool_human(const struct rn_ipam_pool_info *info)
{
	json_t *o = rn_pool_to_json(&info->pool);
	const char *key;
	json_t *v;

	printf("pool %s (%s, %s)\n", info->pool.name, info->from_config ? "from config" :
	       "added by rdmanetctl", rn_pool_family(&info->pool) == AF_INET ? "IPv4" : "IPv6");
	json_object_foreach(o, key, v) {
		if (!strcmp(key, "name"))
			continue;
		printf("  %-8s ", key);
		print_value(v);
		printf("\n");
	}
	json_decref(o);
	printf("  usage    %llu of %llu allocated, %llu free\n", info->allocated, info->total,
	       info->total - info->allocated);
}

static void print_allocations_human(const struct rn_ipam_allocation *a, int n)
{
	printf("%-40s %-16s %-10s %-32s %-16s %s\n", "ADDRESS", "CONTAINER", "IFNAME", "POD",
	       "NODE", "SINCE");
	for (int i = 0; i < n; i++) {
		char ip[RN_ADDR_STRLEN], t[RN_IPAM_TIME_STRLEN], pod[RN_IPAM_NS_MAX +
									RN_IPAM_POD_MAX + 1];

		snprintf(pod, sizeof(pod), "%s/%s", a[i].pod_namespace, a[i].pod_name);
		printf("%-40s %-16.16s %-10s %-32s %-16s %s\n", rn_addr_format(&a[i].addr, ip),
		       a[i].container_id, a[i].ifname, pod, a[i].node,
		       rn_ipam_time_format(a[i].created, t));
	}
}

/* A block pool of etcd: its blocks, who holds each under which lease, and
 * the addresses this node holds in its own (block_report.h). n is -1 for a
 * pool without blocks. */
static int pool_blocks(struct ctl *ctl, const struct rn_pool *p, struct rn_block_usage **u,
		       struct rn_error *e)
{
	struct rn_ipam_settings st;

	*u = NULL;
	if (!p->block || rn_ipam_settings_parse(&st, &ctl->cfg, NULL) ||
	    st.store != RN_IPAM_STORE_ETCD)
		return -1;
	return rn_block_report(&st, ctl->cfg.node, p->name, u, e);
}

/* "BASE/LEN" of a block */
static const char *block_cidr(const struct rn_block *b, char *out, size_t size)
{
	char ip[RN_ADDR_STRLEN];
	struct rn_addr base;

	rn_addr_from_u128(&base, b->family, b->base);
	snprintf(out, size, "%s/%u", rn_addr_format(&base, ip), b->len);
	return out;
}

static json_t *blocks_json(const struct rn_block_usage *u, int n)
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++) {
		char cidr[RN_ADDR_STRLEN + 8], lease[24];

		snprintf(lease, sizeof(lease), "%llx", (unsigned long long)u[i].b.lease);
		json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:I, s:o}",
			"block", block_cidr(&u[i].b, cidr, sizeof(cidr)), "node", u[i].b.node,
			"lease", lease, "size", (json_int_t)u[i].size,
			"used_here", u[i].used_here < 0 ? json_null() :
				     json_integer(u[i].used_here)));
	}
	return arr;
}

/* "USED HERE": this node's allocations in its own blocks; another node's
 * usage is known only there ("-") */
static void print_blocks_human(const struct rn_block_usage *u, int n)
{
	printf("%-44s %-24s %-16s %s\n", "BLOCK", "NODE", "LEASE", "USED HERE");
	for (int i = 0; i < n; i++) {
		char cidr[RN_ADDR_STRLEN + 8], used[48];

		if (u[i].used_here < 0)
			snprintf(used, sizeof(used), "- of %llu", u[i].size);
		else
			snprintf(used, sizeof(used), "%lld of %llu", u[i].used_here, u[i].size);
		printf("%-44s %-24s %-16llx %s\n", block_cidr(&u[i].b, cidr, sizeof(cidr)),
		       u[i].b.node, (unsigned long long)u[i].b.lease, used);
	}
}

/* The addresses the nodes published of a block pool's blocks
 * (block_publish.h); -1 for a pool without blocks. */
static int pool_published(struct ctl *ctl, const struct rn_pool *p,
			  struct rn_block_pub_addr **out, struct rn_error *e)
{
	struct rn_ipam_settings st;

	*out = NULL;
	if (!p->block || rn_ipam_settings_parse(&st, &ctl->cfg, NULL) ||
	    st.store != RN_IPAM_STORE_ETCD)
		return -1;
	return rn_block_published(&st, p->name, NULL, NULL, 0, out, e);
}

static void print_published_human(const struct rn_block_pub_addr *p, int n)
{
	struct rn_ipam_allocation *a = calloc((size_t)n + 1, sizeof(*a));
	char t[RN_IPAM_TIME_STRLEN];
	long long oldest = 0;

	if (!a)
		return;
	for (int i = 0; i < n; i++) {
		a[i] = p[i].a;
		if (!oldest || p[i].at < oldest)
			oldest = p[i].at;
	}
	printf("published by the blocks' nodes%s%s:\n", n ? ", oldest record of " : "",
	       n ? rn_ipam_time_format(oldest, t) : "");
	print_allocations_human(a, n);
	free(a);
}

static int pool_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_ipam_allocation *allocs;
	struct rn_ipam_pool_info info;
	const char *name = a->pos;
	struct rn_block_usage *blocks = NULL;
	struct rn_block_pub_addr *pub = NULL;
	struct rn_ipam *ipam;
	int n, n_blocks, n_pub = -1, rc;

	if (!name)
		return pool_list(ctl, a);
	rc = open_ipam_readonly(ctl, "show", &ipam);
	if (rc)
		return rc;
	if (rn_ipam_pool_get(ipam, name, &info, &e) ||
	    (n = rn_ipam_allocations(ipam, name, &allocs, &e)) < 0) {
		rn_pool_free(&info.pool);
		rn_ipam_close(ipam);
		return fail_ipam("show", &e);
	}
	n_blocks = pool_blocks(ctl, &info.pool, &blocks, &e);
	if (n_blocks >= 0)
		n_pub = pool_published(ctl, &info.pool, &pub, &e);
	if (n_blocks < -1 || n_pub < -1) {
		free(blocks);
		free(allocs);
		rn_pool_free(&info.pool);
		rn_ipam_close(ipam);
		return fail_ipam("show", &e);
	}
	if (ctl->json) {
		json_t *o = rn_ipam_pool_info_to_json(&info), *arr = json_array();

		for (int i = 0; i < n; i++)
			json_array_append_new(arr, rn_ipam_allocation_to_json(&allocs[i]));
		json_object_set_new(o, "allocations", arr);
		if (n_blocks >= 0)
			json_object_set_new(o, "blocks", blocks_json(blocks, n_blocks));
		if (n_pub >= 0) {
			json_t *parr = json_array();

			for (int i = 0; i < n_pub; i++)
				json_array_append_new(parr, rn_block_pub_addr_to_json(&pub[i]));
			json_object_set_new(o, "published", parr);
		}
		ctl_print_json(ctl, o);
	} else {
		print_pool_human(&info);
		printf("\n");
		print_allocations_human(allocs, n);
		if (n_blocks >= 0) {
			printf("\n");
			print_blocks_human(blocks, n_blocks);
		}
		if (n_pub >= 0) {
			printf("\n");
			print_published_human(pub, n_pub);
		}
	}
	free(pub);
	free(blocks);
	free(allocs);
	rn_pool_free(&info.pool);
	rn_ipam_close(ipam);
	return 0;
}

static int append_string(json_t *obj, const char *key, const char *v)
{
	json_t *arr = json_object_get(obj, key);

	if (!arr) {
		arr = json_array();
		json_object_set_new(obj, key, arr);
	}
	return json_array_append_new(arr, json_string(v));
}

/* --route DST or DST,GW */
static int add_route(json_t *obj, const char *v)
{
	const char *comma = strchr(v, ',');
	json_t *r = json_object(), *arr = json_object_get(obj, "routes");

	if (comma) {
		json_object_set_new(r, "dst", json_stringn(v, (size_t)(comma - v)));
		json_object_set_new(r, "gw", json_string(comma + 1));
	} else {
		json_object_set_new(r, "dst", json_string(v));
	}
	if (!arr) {
		arr = json_array();
		json_object_set_new(obj, "routes", arr);
	}
	return json_array_append_new(arr, r);
}

/* A JSON file argument ("-": stdin). */
static json_t *load_json_arg(const char *path, struct rn_error *e)
{
	json_error_t jerr;
	json_t *v;

	if (strcmp(path, "-") && ctl_file_problem(path, e))
		return NULL;
	v = !strcmp(path, "-") ? json_loadf(stdin, JSON_REJECT_DUPLICATES, &jerr) :
				 json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (!v && jerr.line < 0)
		rn_fail(e, -EINVAL, "%s: %s", path, jerr.text);
	else if (!v)
		rn_fail(e, -EINVAL, "%s: line %d column %d: %s", path, jerr.line, jerr.column,
			jerr.text);
	return v;
}

/* The pool as JSON, from --file or from flags, so both go through the one
 * validation the config file gets. NULL after a usage error (*rc 2) or a
 * file that does not parse (*rc 1). */
static json_t *pool_args(const struct ctl_args *a, int *rc)
{
	const char *file = ctl_arg(a, "--file");
	struct rn_error e = { 0 };
	json_t *obj;

	*rc = CTL_EXIT_USAGE;
	if (file) {
		if (a->n != 1 || a->pos) {
			ctl_usage(a, "--file FILE takes no other option");
			return NULL;
		}
		obj = load_json_arg(file, &e);
		if (!obj) {
			*rc = ctl_fail("pool add: %s", e.msg);
			return NULL;
		}
		return obj;
	}
	obj = json_object();
	if (a->pos)
		json_object_set_new(obj, "name", json_string(a->pos));
	for (int i = 0; i < a->n; i++) {
		const char *o = a->v[i].opt->name, *v = a->v[i].val;

		if (!strcmp(o, "--subnet") || !strcmp(o, "--gateway")) {
			json_object_set_new(obj, o + 2, json_string(v));
		} else if (!strcmp(o, "--route")) {
			add_route(obj, v);
		} else if (!strcmp(o, "--vlan") || !strcmp(o, "--block")) {
			char *end;
			long n = strtol(v, &end, 10);

			if (!*v || *end) {
				ctl_usage(a, "%s: \"%s\" is not a number", o, v);
				json_decref(obj);
				return NULL;
			}
			json_object_set_new(obj, o + 2, json_integer(n));
		} else {
			/* --range, --exclude, --master, --node: lists */
			static const char *const keys[][2] = {
				{ "--range", "ips" }, { "--exclude", "exclude" },
				{ "--master", "masters" }, { "--node", "nodes" },
			};

			for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (!strcmp(o, keys[k][0]))
					append_string(obj, keys[k][1], v);
		}
	}
	return obj;
}

static int pool_add(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	struct rn_pool p;
	int rc;
	json_t *obj = pool_args(a, &rc);

	if (!obj)
		return rc;
	if (rn_pool_from_json(&p, obj, "pool add", &e)) {
		json_decref(obj);
		return ctl_fail("%s", e.msg);
	}
	json_decref(obj);
	rc = open_ipam(ctl, "add", &ipam);
	if (rc) {
		rn_pool_free(&p);
		return rc;
	}
	if (rn_ipam_pool_add(ipam, &p, &e))
		rc = fail_ipam("add", &e);
	else if (!ctl->json)
		printf("pool %s added (%llu usable addresses)\n", p.name, rn_u128_sat64(p.size));
	rn_pool_free(&p);
	rn_ipam_close(ipam);
	return rc;
}

static bool declared_in_config(const struct ctl *ctl, const char *name)
{
	size_t i;
	json_t *p;

	json_array_foreach(ctl->cfg.pools, i, p)
		if (!strcmp(json_string_value(json_object_get(p, "name")) ?: "", name))
			return true;
	return false;
}

static int pool_del(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	const char *name = a->pos;
	struct rn_ipam *ipam;
	bool force = ctl_flag(a, "--force");
	int rc, dropped;

	if (!name)
		return ctl_usage(a, "which pool? (pool del NAME [--force])");
	if (declared_in_config(ctl, name))
		return ctl_fail("pool del: pool \"%s\" is declared in the config file; remove it "
				"there first (a sync would bring it back)", name);
	rc = open_ipam(ctl, "del", &ipam);
	if (rc)
		return rc;
	dropped = rn_ipam_pool_del(ipam, name, force, &e);
	rn_ipam_close(ipam);
	if (dropped < 0)
		return fail_ipam("del", &e);
	if (!ctl->json)
		printf("pool %s deleted%s\n", name, dropped ? " with its allocations" : "");
	return 0;
}

/* pool gc --valid FILE [--node NODE | --all-nodes] [--dry-run]: the valid
 * list is one node's, so only that node's allocations (the config's node
 * by default) are collected unless --all-nodes says the list covers the
 * whole store. */
static int pool_gc(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_ipam_gc_scope scope = { 0 };
	struct rn_error e = { 0 };
	struct rn_ipam_owner *valid;
	const char *file = ctl_arg(a, "--valid");
	bool dry_run = ctl_flag(a, "--dry-run");
	struct rn_ipam *ipam;
	size_t n_valid;
	json_t *doc;
	int rc, released;

	scope.all_nodes = ctl_flag(a, "--all-nodes");
	scope.node = ctl_arg(a, "--node");
	if (scope.node && !scope.node[0])
		return ctl_usage(a, "--node: an empty node name");
	if (scope.node && scope.all_nodes)
		return ctl_usage(a, "--node and --all-nodes exclude each other");
	doc = load_json_arg(file, &e);
	if (!doc)
		return ctl_fail("pool gc: %s", e.msg);
	if (rn_ipam_owners_from_json(doc, &valid, &n_valid, &e)) {
		json_decref(doc);
		return ctl_fail("pool gc: %s: %s", file, e.msg);
	}
	rc = dry_run ? open_ipam_readonly(ctl, "gc", &ipam) : open_ipam(ctl, "gc", &ipam);
	if (!rc) {
		const char *node = scope.all_nodes ? NULL : scope.node ? scope.node :
				   ctl->cfg.node;

		released = rn_ipam_gc_scoped(ipam, &scope, valid, n_valid, dry_run, &e);
		rn_ipam_close(ipam);
		if (released < 0)
			rc = fail_ipam("gc", &e);
		else if (ctl->json)
			ctl_print_json(ctl, json_pack("{s:i, s:b, s:s*, s:b}", "released", released,
						      "dry_run", dry_run, "node", node,
						      "all_nodes", scope.all_nodes));
		else
			printf("%s %d address%s (%s%s)\n", dry_run ? "would release" : "released",
			       released, released == 1 ? "" : "es",
			       node ? "allocations of node " : "allocations of every node",
			       node ? node : "");
	}
	free(valid);
	json_decref(doc);
	return rc;
}

static int pool_sync(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	int rc, written;

	(void)a;
	rc = open_ipam(ctl, "sync", &ipam);
	if (rc)
		return rc;
	written = rn_ipam_sync(ipam, &e);
	rn_ipam_close(ipam);
	if (written < 0)
		return fail_ipam("sync", &e);
	if (!ctl->json)
		printf("%d pool%s written to the store\n", written, written == 1 ? "" : "s");
	return 0;
}

static int pool_check(struct ctl *ctl, const struct ctl_args *a)
{
	static char report[64 * 1024];
	struct rn_error e = { 0 };
	struct rn_ipam *ipam;
	int rc, problems;

	(void)a;
	rc = open_ipam_readonly(ctl, "check", &ipam);
	if (rc)
		return rc;
	problems = rn_ipam_check(ipam, report, sizeof(report), &e);
	rn_ipam_close(ipam);
	if (problems < 0)
		return fail_ipam("check", &e);
	if (ctl->json)
		ctl_print_json(ctl, json_pack("{s:i, s:s}", "problems", problems, "report",
					      report));
	else
		printf("%s%d problem%s\n", report, problems, problems == 1 ? "" : "s");
	return problems ? ctl_fail("pool check: the store has %d problem%s", problems,
				   problems == 1 ? "" : "s") : 0;
}

static const struct ctl_opt add_opts[] = {
	{ "--subnet", NULL, "CIDR", "the pool's subnet (required unless --file)" },
	{ "--range", "--ips", "RANGE", "usable addresses: CIDR or FIRST-LAST (repeatable; "
	  "default the subnet)" },
	{ "--exclude", NULL, "RANGE", "addresses never handed out (repeatable)" },
	{ "--gateway", NULL, "ADDR", "the gateway given with each address" },
	{ "--route", NULL, "DST[,GW]", "a route given with each address (repeatable)" },
	{ "--master", NULL, "IF", "only for pods on this master (repeatable; default any)" },
	{ "--node", NULL, "NODE", "only on this node (repeatable; default any)" },
	{ "--vlan", NULL, "ID", "the VLAN of the pool's addresses" },
	{ "--block", NULL, "BITS", "per-node block size (prefix length) for etcd stores" },
	{ "--file", NULL, "FILE", "the pool as JSON, as in the config's \"pools\" (- for "
	  "stdin); no other option" },
	{ NULL },
};

static const struct ctl_opt del_opts[] = {
	{ "--force", "-f", NULL, "delete a pool that still has allocations, with them" },
	{ NULL },
};

static const struct ctl_opt gc_opts[] = {
	{ "--valid", NULL, "FILE", "JSON list of {\"containerID\", \"ifname\"} that stay "
	  "(- for stdin)", true },
	{ "--node", NULL, "NODE", "collect this node's allocations (default the config's node)" },
	{ "--all-nodes", NULL, NULL, "the list covers every node: collect in the whole store" },
	{ "--dry-run", NULL, NULL, "say what would be released, release nothing" },
	{ NULL },
};

const struct ctl_object ctl_obj_pool = {
	.name = "pool",
	.help = "IP pools in the IPAM store (the config's \"ipam\" section says which); "
		"exit 75 if the store is busy",
	.default_verb = "list",
	.verbs = (const struct ctl_verb[]){
		{ "list", NULL, NULL, NULL, pool_list, "every pool with its usage" },
		{ "show", NULL, "[NAME]", NULL, pool_show,
		  "one pool and its allocations (without NAME: list)" },
		{ "add", NULL, "NAME", add_opts, pool_add, "add a pool to the store" },
		{ "del", "delete", "NAME", del_opts, pool_del,
		  "delete a pool added by rdmanetctl" },
		{ "gc", NULL, NULL, gc_opts, pool_gc,
		  "release allocations whose owner is not in the valid list" },
		{ "sync", NULL, NULL, NULL, pool_sync, "write the config's pools to the store" },
		{ "check", NULL, NULL, NULL, pool_check,
		  "check the store's consistency; exit 1 on a problem" },
		{ .run = NULL },
	},
};
