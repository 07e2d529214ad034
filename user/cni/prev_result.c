// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "prev_result.h"

#define WHERE "config: prevResult"

static int str_field(json_t *o, const char *key, const char **out, const char *where,
		     struct cni_err *err)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return cni_fail(err, CNI_ERR_CONFIG, "%s.%s: expected a string", where, key);
	*out = json_string_value(v);
	return 0;
}

static json_t *array_field(json_t *o, const char *key, size_t max, struct cni_err *err)
{
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return json_array();	/* an empty stand-in: the caller decrefs */
	if (!json_is_array(v)) {
		cni_fail(err, CNI_ERR_CONFIG, WHERE ".%s: expected an array", key);
		return NULL;
	}
	if (json_array_size(v) > max) {
		cni_fail(err, CNI_ERR_CONFIG, WHERE ".%s: more than %zu entries", key, max);
		return NULL;
	}
	return json_incref(v);
}

static int parse_if(json_t *o, struct cni_prev_if *f, const char *where, struct cni_err *err)
{
	const char *name, *mac, *sandbox;

	if (!json_is_object(o))
		return cni_fail(err, CNI_ERR_CONFIG, "%s: expected an object", where);
	if (str_field(o, "name", &name, where, err) || str_field(o, "mac", &mac, where, err) ||
	    str_field(o, "sandbox", &sandbox, where, err))
		return -1;
	if (!name || !name[0] || strlen(name) >= sizeof(f->name))
		return cni_fail(err, CNI_ERR_CONFIG, "%s.name: expected an interface name", where);
	strcpy(f->name, name);
	if (mac && mac[0]) {
		if (rn_mac_parse(mac, f->mac))
			return cni_fail(err, CNI_ERR_CONFIG, "%s.mac: \"%s\" is not a MAC address",
					where, mac);
		f->has_mac = true;
	}
	if (sandbox && strlen(sandbox) >= sizeof(f->sandbox))
		return cni_fail(err, CNI_ERR_CONFIG, "%s.sandbox: path too long", where);
	snprintf(f->sandbox, sizeof(f->sandbox), "%s", sandbox ? sandbox : "");
	return 0;
}

static int parse_gw(json_t *o, const char *key, bool *has, struct rn_addr *gw, int family,
		    const char *where, struct cni_err *err)
{
	const char *s;

	if (str_field(o, key, &s, where, err))
		return -1;
	*has = s && s[0];
	if (!*has)
		return 0;
	if (rn_addr_parse(s, gw) || gw->family != family)
		return cni_fail(err, CNI_ERR_CONFIG, "%s.%s: \"%s\" is not an address of the "
				"entry's family", where, key, s);
	return 0;
}

static int parse_ip(json_t *o, struct cni_prev_ip *ip, unsigned int n_ifs, const char *where,
		    struct cni_err *err)
{
	const char *addr;
	json_t *idx;

	if (!json_is_object(o))
		return cni_fail(err, CNI_ERR_CONFIG, "%s: expected an object", where);
	if (str_field(o, "address", &addr, where, err))
		return -1;
	if (!addr || rn_prefix_parse(addr, &ip->address, false))
		return cni_fail(err, CNI_ERR_CONFIG, "%s.address: expected an address in CIDR "
				"notation", where);
	if (parse_gw(o, "gateway", &ip->has_gw, &ip->gw, ip->address.addr.family, where, err))
		return -1;
	ip->iface = -1;
	idx = json_object_get(o, "interface");
	if (idx && !json_is_null(idx)) {
		if (!json_is_integer(idx) || json_integer_value(idx) < 0 ||
		    json_integer_value(idx) >= (json_int_t)n_ifs)
			return cni_fail(err, CNI_ERR_CONFIG, "%s.interface: expected an index into "
					"interfaces (0..%u)", where, n_ifs ? n_ifs - 1 : 0);
		ip->iface = (int)json_integer_value(idx);
	}
	return 0;
}

static int parse_route(json_t *o, struct cni_prev_route *r, const char *where,
		       struct cni_err *err)
{
	const char *dst;
	json_t *t;

	if (!json_is_object(o))
		return cni_fail(err, CNI_ERR_CONFIG, "%s: expected an object", where);
	if (str_field(o, "dst", &dst, where, err))
		return -1;
	if (!dst || rn_prefix_parse(dst, &r->dst, false))
		return cni_fail(err, CNI_ERR_CONFIG, "%s.dst: expected a prefix in CIDR notation",
				where);
	if (parse_gw(o, "gw", &r->has_gw, &r->gw, r->dst.addr.family, where, err))
		return -1;
	t = json_object_get(o, "table");
	if (t && !json_is_null(t)) {
		if (!json_is_integer(t) || json_integer_value(t) < 0 ||
		    json_integer_value(t) > 0xffffffffLL)
			return cni_fail(err, CNI_ERR_CONFIG, "%s.table: expected a table number",
					where);
		r->table = (uint32_t)json_integer_value(t);
	}
	return 0;
}

int cni_prev_parse(json_t *obj, struct cni_prev *p, struct cni_err *err)
{
	json_t *ifs = NULL, *ips = NULL, *routes = NULL, *v;
	char where[64];
	size_t i;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(obj))
		return cni_fail(err, CNI_ERR_CONFIG, WHERE ": expected an object");
	ifs = array_field(obj, "interfaces", CNI_PREV_MAX_IFS, err);
	ips = ifs ? array_field(obj, "ips", CNI_PREV_MAX_IPS, err) : NULL;
	routes = ips ? array_field(obj, "routes", CNI_PREV_MAX_ROUTES, err) : NULL;
	if (!routes)
		goto out;
	json_array_foreach(ifs, i, v) {
		snprintf(where, sizeof(where), WHERE ".interfaces[%zu]", i);
		if (parse_if(v, &p->ifs[p->n_ifs], where, err))
			goto out;
		p->n_ifs++;
	}
	json_array_foreach(ips, i, v) {
		snprintf(where, sizeof(where), WHERE ".ips[%zu]", i);
		if (parse_ip(v, &p->ips[p->n_ips], p->n_ifs, where, err))
			goto out;
		p->n_ips++;
	}
	json_array_foreach(routes, i, v) {
		snprintf(where, sizeof(where), WHERE ".routes[%zu]", i);
		if (parse_route(v, &p->routes[p->n_routes], where, err))
			goto out;
		p->n_routes++;
	}
	rc = 0;
out:
	json_decref(ifs);
	json_decref(ips);
	json_decref(routes);
	return rc;
}

int cni_prev_find_if(const struct cni_prev *p, const char *ifname, const char *sandbox)
{
	for (unsigned int i = 0; i < p->n_ifs; i++)
		if (!strcmp(p->ifs[i].name, ifname) &&
		    (!sandbox || !strcmp(p->ifs[i].sandbox, sandbox)))
			return (int)i;
	return -1;
}
