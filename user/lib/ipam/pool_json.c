// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A pool from and to its JSON form, with validation whose messages name
 * the field and the value at fault. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_fields.h"
#include "ipam/pool.h"
#include "ipam/pool_set.h"

#define WHERE_MAX 160
#define AT_MAX (WHERE_MAX + 48)	/* WHERE_MAX plus ".key[index]" */

static int parse_name(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e)
{
	if (rn_json_string(obj, "name", p->name, sizeof(p->name), where, e))
		return -EINVAL;
	if (!p->name[0])
		return rn_fail(e, -EINVAL, "%s.name: required", where);
	for (const char *c = p->name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return rn_fail(e, -EINVAL, "%s.name: \"%s\": only letters, digits, "
				       "'-', '_' and '.' are allowed", where, p->name);
	return 0;
}

static int parse_subnet(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e)
{
	char s[RN_PREFIX_STRLEN + 8] = "", canon[RN_PREFIX_STRLEN];
	struct rn_prefix loose;

	if (rn_json_string(obj, "subnet", s, sizeof(s), where, e))
		return -EINVAL;
	if (!s[0])
		return rn_fail(e, -EINVAL, "%s.subnet: required", where);
	if (rn_prefix_parse(s, &loose, false))
		return rn_fail(e, -EINVAL, "%s.subnet: \"%s\" is not a CIDR prefix", where, s);
	if (rn_prefix_parse(s, &p->subnet, true)) {
		unsigned int bits = loose.addr.family == AF_INET ? 32 : 128;
		rn_u128 mask = loose.len ? ~(rn_u128)0 << (bits - loose.len) : 0;

		rn_addr_from_u128(&loose.addr, loose.addr.family,
				  rn_addr_to_u128(&loose.addr) & mask);
		return rn_fail(e, -EINVAL, "%s.subnet: \"%s\" has host bits set (did you mean %s?)",
			       where, s, rn_prefix_format(&loose, canon));
	}
	return 0;
}

/* An optional array of at most max entries: *arr NULL when absent or empty. */
static int optional_array(json_t *obj, const char *key, size_t max, json_t **arr,
			  const char *where, struct rn_error *e)
{
	if (rn_json_typed(obj, key, JSON_ARRAY, arr, where, e))
		return -EINVAL;
	if (*arr && !json_array_size(*arr))
		*arr = NULL;
	if (*arr && json_array_size(*arr) > max)
		return rn_fail(e, -EINVAL, "%s.%s: more than %zu entries", where, key, max);
	return 0;
}

/* "a-b" or "a", both inside the subnet, a <= b. */
static int parse_range(const struct rn_pool *p, const char *s, struct rn_pool_range *r,
		       const char *where, struct rn_error *e)
{
	const char *dash = strchr(s, '-');
	char first[RN_ADDR_STRLEN];

	if (dash) {
		if ((size_t)(dash - s) >= sizeof(first))
			return rn_fail(e, -EINVAL, "%s: \"%s\" is not an address or a range "
				       "FIRST-LAST", where, s);
		memcpy(first, s, (size_t)(dash - s));
		first[dash - s] = '\0';
		if (rn_addr_parse(first, &r->first) || rn_addr_parse(dash + 1, &r->last))
			return rn_fail(e, -EINVAL, "%s: \"%s\" is not an address or a range "
				       "FIRST-LAST", where, s);
	} else {
		if (rn_addr_parse(s, &r->first))
			return rn_fail(e, -EINVAL, "%s: \"%s\" is not an address or a range "
				       "FIRST-LAST", where, s);
		r->last = r->first;
	}
	if (r->first.family != rn_pool_family(p) || r->last.family != rn_pool_family(p))
		return rn_fail(e, -EINVAL, "%s: \"%s\" is not an %s address", where, s,
			       rn_pool_family(p) == AF_INET ? "IPv4" : "IPv6");
	if (!rn_prefix_contains(&p->subnet, &r->first) || !rn_prefix_contains(&p->subnet, &r->last))
		return rn_fail(e, -EINVAL, "%s: \"%s\" is outside the subnet", where, s);
	if (rn_addr_to_u128(&r->first) > rn_addr_to_u128(&r->last))
		return rn_fail(e, -EINVAL, "%s: \"%s\": the first address is after the last", where,
			       s);
	return 0;
}

static int parse_ranges(const struct rn_pool *p, json_t *obj, const char *key,
			struct rn_pool_range **out, unsigned int *n, const char *where,
			struct rn_error *e)
{
	char at[AT_MAX];
	json_t *arr, *v;
	size_t i;

	if (optional_array(obj, key, RN_POOL_MAX_RANGES, &arr, where, e))
		return -EINVAL;
	if (!arr)
		return 0;
	*out = calloc(json_array_size(arr), sizeof(**out));
	if (!*out)
		return rn_fail(e, -ENOMEM, "%s.%s: out of memory", where, key);
	json_array_foreach(arr, i, v) {
		snprintf(at, sizeof(at), "%s.%s[%zu]", where, key, i);
		if (!json_is_string(v))
			return rn_fail(e, -EINVAL, "%s: expected a string", at);
		if (parse_range(p, json_string_value(v), &(*out)[i], at, e))
			return -EINVAL;
		(*n)++;
	}
	return 0;
}

static int parse_gateway(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e)
{
	char s[RN_ADDR_STRLEN + 8] = "";

	if (rn_json_string(obj, "gateway", s, sizeof(s), where, e))
		return -EINVAL;
	if (!s[0])
		return 0;
	if (rn_addr_parse(s, &p->gateway))
		return rn_fail(e, -EINVAL, "%s.gateway: \"%s\" is not an IP address", where, s);
	if (p->gateway.family != rn_pool_family(p))
		return rn_fail(e, -EINVAL, "%s.gateway: \"%s\" is not an %s address", where, s,
			       rn_pool_family(p) == AF_INET ? "IPv4" : "IPv6");
	if (!rn_prefix_contains(&p->subnet, &p->gateway))
		return rn_fail(e, -EINVAL, "%s.gateway: \"%s\" is outside the subnet", where, s);
	p->has_gateway = true;
	return 0;
}

static int parse_route(const struct rn_pool *p, json_t *r, struct rn_pool_route *out,
		       const char *at, struct rn_error *e)
{
	static const char *const keys[] = { "dst", "gw", NULL };
	char dst[RN_PREFIX_STRLEN + 8] = "", gw[RN_ADDR_STRLEN + 8] = "";

	if (!json_is_object(r))
		return rn_fail(e, -EINVAL, "%s: expected an object", at);
	if (rn_json_only_keys(r, keys, at, e) ||
	    rn_json_string(r, "dst", dst, sizeof(dst), at, e) ||
	    rn_json_string(r, "gw", gw, sizeof(gw), at, e))
		return -EINVAL;
	if (!dst[0])
		return rn_fail(e, -EINVAL, "%s.dst: required", at);
	if (rn_prefix_parse(dst, &out->dst, true))
		return rn_fail(e, -EINVAL, "%s.dst: \"%s\" is not a CIDR prefix without host bits",
			       at, dst);
	if (out->dst.addr.family != rn_pool_family(p))
		return rn_fail(e, -EINVAL, "%s.dst: \"%s\" is not of the pool's address family",
			       at, dst);
	if (!gw[0])
		return 0;
	if (rn_addr_parse(gw, &out->gw) || out->gw.family != rn_pool_family(p))
		return rn_fail(e, -EINVAL, "%s.gw: \"%s\" is not an %s address", at, gw,
			       rn_pool_family(p) == AF_INET ? "IPv4" : "IPv6");
	out->has_gw = true;
	return 0;
}

static int parse_routes(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e)
{
	char at[AT_MAX];
	json_t *arr, *r;
	size_t i;

	if (optional_array(obj, "routes", RN_POOL_MAX_ROUTES, &arr, where, e))
		return -EINVAL;
	json_array_foreach(arr, i, r) {
		snprintf(at, sizeof(at), "%s.routes[%zu]", where, i);
		if (parse_route(p, r, &p->routes[i], at, e))
			return -EINVAL;
		p->n_routes++;
	}
	return 0;
}

/* A list of unique non-empty strings each shorter than width. */
static int parse_names(json_t *obj, const char *key, size_t width, size_t max, char **out,
		       unsigned int *n, const char *where, struct rn_error *e)
{
	json_t *arr, *v;
	size_t i;

	if (optional_array(obj, key, max, &arr, where, e))
		return -EINVAL;
	if (!arr)
		return 0;
	*out = calloc(json_array_size(arr), width);
	if (!*out)
		return rn_fail(e, -ENOMEM, "%s.%s: out of memory", where, key);
	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);

		if (!json_is_string(v))
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: expected a string", where, key, i);
		if (!s[0] || strlen(s) >= width)
			return rn_fail(e, -EINVAL, "%s.%s[%zu]: \"%s\": must be 1 to %zu "
				       "characters", where, key, i, s, width - 1);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(*out + j * width, s))
				return rn_fail(e, -EINVAL, "%s.%s[%zu]: \"%s\" listed twice", where,
					       key, i, s);
		strcpy(*out + i * width, s);
		(*n)++;
	}
	return 0;
}

static int range_cmp_first(const void *a, const void *b)
{
	rn_u128 x = rn_addr_to_u128(&((const struct rn_pool_range *)a)->first);
	rn_u128 y = rn_addr_to_u128(&((const struct rn_pool_range *)b)->first);

	return x < y ? -1 : x > y;
}

static const char *range_text(const struct rn_pool_range *r, char *buf, size_t size)
{
	char a[RN_ADDR_STRLEN], b[RN_ADDR_STRLEN];

	rn_addr_format(&r->first, a);
	if (rn_addr_equal(&r->first, &r->last))
		snprintf(buf, size, "%s", a);
	else
		snprintf(buf, size, "%s-%s", a, rn_addr_format(&r->last, b));
	return buf;
}

/* Ranges must not overlap one another: counts and reports stay exact. */
static int check_ranges_disjoint(const struct rn_pool *p, const char *where, struct rn_error *e)
{
	char x[2 * RN_ADDR_STRLEN + 2], y[2 * RN_ADDR_STRLEN + 2];
	struct rn_pool_range *sorted;
	int err = 0;

	if (p->n_ranges < 2)
		return 0;
	sorted = malloc(p->n_ranges * sizeof(*sorted));
	if (!sorted)
		return rn_fail(e, -ENOMEM, "%s: out of memory", where);
	memcpy(sorted, p->ranges, p->n_ranges * sizeof(*sorted));
	qsort(sorted, p->n_ranges, sizeof(*sorted), range_cmp_first);
	for (unsigned int i = 1; i < p->n_ranges && !err; i++)
		if (rn_addr_to_u128(&sorted[i].first) <= rn_addr_to_u128(&sorted[i - 1].last))
			err = rn_fail(e, -EINVAL, "%s.ips: \"%s\" overlaps \"%s\"", where,
				      range_text(&sorted[i], x, sizeof(x)),
				      range_text(&sorted[i - 1], y, sizeof(y)));
	free(sorted);
	return err;
}

/* Addresses a subnet never hands out: IPv4 network and broadcast (wider
 * than /31, RFC 3021), IPv6 subnet-router anycast (wider than /127). */
static unsigned int reserved_holes(const struct rn_pool *p, struct rn_pool_seg *h)
{
	bool v4 = rn_pool_family(p) == AF_INET;
	unsigned int bits = v4 ? 32 : 128, n = 0;
	rn_u128 net = rn_addr_to_u128(&p->subnet.addr);
	rn_u128 hostmask = p->subnet.len ? ((rn_u128)1 << (bits - p->subnet.len)) - 1 :
					   (v4 ? 0xffffffffu : ~(rn_u128)0);

	if (p->subnet.len >= bits - 1)
		return 0;
	h[n++] = (struct rn_pool_seg){ net, net };
	if (v4)
		h[n++] = (struct rn_pool_seg){ net | hostmask, net | hostmask };
	return n;
}

static int compute_usable(struct rn_pool *p, const char *where, struct rn_error *e)
{
	unsigned int n_holes = 0, bits = rn_pool_family(p) == AF_INET ? 32 : 128;
	struct rn_pool_seg *holes;
	char s[RN_PREFIX_STRLEN];

	p->n_segs = p->n_ranges ? p->n_ranges : 1;
	p->segs = calloc(p->n_segs, sizeof(*p->segs));
	holes = calloc(p->n_excludes + 3, sizeof(*holes));
	if (!p->segs || !holes) {
		free(holes);
		return rn_fail(e, -ENOMEM, "%s: out of memory", where);
	}
	if (!p->n_ranges) {
		rn_u128 net = rn_addr_to_u128(&p->subnet.addr);
		rn_u128 hostmask = p->subnet.len == 0 ?
			(bits == 32 ? 0xffffffffu : ~(rn_u128)0) :
			((rn_u128)1 << (bits - p->subnet.len)) - 1;

		p->segs[0] = (struct rn_pool_seg){ net, net | hostmask };
	}
	for (unsigned int i = 0; i < p->n_ranges; i++)
		p->segs[i] = (struct rn_pool_seg){ rn_addr_to_u128(&p->ranges[i].first),
						   rn_addr_to_u128(&p->ranges[i].last) };
	p->n_segs = rn_seg_merge(p->segs, p->n_segs);
	for (unsigned int i = 0; i < p->n_excludes; i++)
		holes[n_holes++] = (struct rn_pool_seg){ rn_addr_to_u128(&p->excludes[i].first),
							 rn_addr_to_u128(&p->excludes[i].last) };
	if (p->has_gateway) {
		rn_u128 g = rn_addr_to_u128(&p->gateway);

		holes[n_holes++] = (struct rn_pool_seg){ g, g };
	}
	n_holes += reserved_holes(p, holes + n_holes);
	if (rn_seg_subtract(&p->segs, &p->n_segs, holes, n_holes)) {
		free(holes);
		return rn_fail(e, -ENOMEM, "%s: out of memory", where);
	}
	free(holes);
	p->size = rn_seg_size(p->segs, p->n_segs);
	if (!p->n_segs)
		return rn_fail(e, -EINVAL, "%s: no usable address in %s (ranges minus excludes, "
			       "gateway and reserved addresses is empty)", where,
			       rn_prefix_format(&p->subnet, s));
	return 0;
}

static int check_gateway(const struct rn_pool *p, const char *where, struct rn_error *e)
{
	struct rn_pool_seg reserved[2];
	unsigned int n = reserved_holes(p, reserved);
	rn_u128 g = rn_addr_to_u128(&p->gateway);
	char s[RN_ADDR_STRLEN];

	if (!p->has_gateway)
		return 0;
	for (unsigned int i = 0; i < n; i++)
		if (g == reserved[i].lo)
			return rn_fail(e, -EINVAL, "%s.gateway: \"%s\" is the subnet's %s address",
				       where, rn_addr_format(&p->gateway, s),
				       i == 0 ? "network" : "broadcast");
	return 0;
}

int rn_pool_from_json(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e)
{
	static const char *const keys[] = { "name", "subnet", "ips", "exclude", "gateway",
					    "routes", "vlan", "masters", "nodes", "block", NULL };
	char at[WHERE_MAX], *masters = NULL, *nodes = NULL;
	long long vlan = 0, block = 0;
	int err;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(obj))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(obj, keys, where, e) || parse_name(p, obj, where, e))
		goto fail;
	/* name the pool in every later message */
	snprintf(at, sizeof(at), "%s (\"%s\")", where, p->name);
	err = parse_subnet(p, obj, at, e) ||
	      parse_ranges(p, obj, "ips", &p->ranges, &p->n_ranges, at, e) ||
	      parse_ranges(p, obj, "exclude", &p->excludes, &p->n_excludes, at, e) ||
	      parse_gateway(p, obj, at, e) ||
	      parse_routes(p, obj, at, e) ||
	      rn_json_int(obj, "vlan", 0, 4094, &vlan, at, e) ||
	      rn_json_int(obj, "block", 0, 128, &block, at, e) ||
	      parse_names(obj, "masters", RN_IFNAMSIZ, RN_POOL_MAX_MASTERS, &masters,
			  &p->n_masters, at, e) ||
	      parse_names(obj, "nodes", RN_POOL_NODE_MAX, RN_POOL_MAX_NODES, &nodes,
			  &p->n_nodes, at, e);
	p->masters = (char (*)[RN_IFNAMSIZ])masters;
	p->nodes = (char (*)[RN_POOL_NODE_MAX])nodes;
	if (!err && block && (block < p->subnet.len ||
			      block > (p->subnet.addr.family == AF_INET ? 32 : 128)))
		err = rn_fail(e, -EINVAL, "%s.block: /%lld is not a prefix length within the "
			      "subnet (/%u..%u)", at, block, p->subnet.len,
			      p->subnet.addr.family == AF_INET ? 32 : 128);
	err = err ||
	      check_ranges_disjoint(p, at, e) ||
	      check_gateway(p, at, e) ||
	      compute_usable(p, at, e);
	if (err)
		goto fail;
	p->vlan = (unsigned int)vlan;
	p->block = (unsigned int)block;
	return 0;
fail:
	rn_pool_free(p);
	return e && e->code ? e->code : -EINVAL;
}

int rn_pool_from_text(struct rn_pool *p, const char *json_text, const char *where,
		      struct rn_error *e)
{
	json_error_t jerr;
	json_t *obj = json_loads(json_text, JSON_REJECT_DUPLICATES, &jerr);
	int err;

	if (!obj) {
		memset(p, 0, sizeof(*p));
		return rn_fail(e, -EINVAL, "%s: line %d column %d: %s", where, jerr.line,
			       jerr.column, jerr.text);
	}
	err = rn_pool_from_json(p, obj, where, e);
	json_decref(obj);
	return err;
}

static json_t *ranges_json(const struct rn_pool_range *r, unsigned int n)
{
	char buf[2 * RN_ADDR_STRLEN + 2];
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(arr, json_string(range_text(&r[i], buf, sizeof(buf))));
	return arr;
}

static json_t *names_json(const char *names, size_t width, unsigned int n)
{
	json_t *arr = json_array();

	for (unsigned int i = 0; i < n; i++)
		json_array_append_new(arr, json_string(names + i * width));
	return arr;
}

json_t *rn_pool_to_json(const struct rn_pool *p)
{
	char pfx[RN_PREFIX_STRLEN], a[RN_ADDR_STRLEN];
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(p->name));
	json_object_set_new(o, "subnet", json_string(rn_prefix_format(&p->subnet, pfx)));
	if (p->n_ranges)
		json_object_set_new(o, "ips", ranges_json(p->ranges, p->n_ranges));
	if (p->n_excludes)
		json_object_set_new(o, "exclude", ranges_json(p->excludes, p->n_excludes));
	if (p->has_gateway)
		json_object_set_new(o, "gateway", json_string(rn_addr_format(&p->gateway, a)));
	if (p->n_routes) {
		json_t *routes = json_array();

		for (unsigned int i = 0; i < p->n_routes; i++) {
			const struct rn_pool_route *rt = &p->routes[i];
			json_t *r = json_object();

			json_object_set_new(r, "dst", json_string(rn_prefix_format(&rt->dst, pfx)));
			if (rt->has_gw)
				json_object_set_new(r, "gw",
						    json_string(rn_addr_format(&rt->gw, a)));
			json_array_append_new(routes, r);
		}
		json_object_set_new(o, "routes", routes);
	}
	if (p->vlan)
		json_object_set_new(o, "vlan", json_integer(p->vlan));
	if (p->n_masters)
		json_object_set_new(o, "masters", names_json(p->masters[0], RN_IFNAMSIZ,
							     p->n_masters));
	if (p->n_nodes)
		json_object_set_new(o, "nodes", names_json(p->nodes[0], RN_POOL_NODE_MAX,
							   p->n_nodes));
	if (p->block)
		json_object_set_new(o, "block", json_integer(p->block));
	return o;
}

char *rn_pool_to_text(const struct rn_pool *p)
{
	json_t *o = rn_pool_to_json(p);
	char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);

	json_decref(o);
	return s;
}

bool rn_pool_equal(const struct rn_pool *a, const struct rn_pool *b)
{
	char *x = rn_pool_to_text(a), *y = rn_pool_to_text(b);
	bool eq = x && y && !strcmp(x, y);

	free(x);
	free(y);
	return eq;
}

int rn_pool_copy(struct rn_pool *dst, const struct rn_pool *src)
{
	json_t *o = rn_pool_to_json(src);
	int err = rn_pool_from_json(dst, o, "pool", NULL);

	json_decref(o);
	return err;
}

void rn_pool_free(struct rn_pool *p)
{
	free(p->ranges);
	free(p->excludes);
	free(p->masters);
	free(p->nodes);
	free(p->segs);
	memset(p, 0, sizeof(*p));
}
