// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "result.h"

static json_t *str_addr(const struct rn_addr *a)
{
	char buf[RN_ADDR_STRLEN];

	return json_string(rn_addr_format(a, buf));
}

static json_t *str_prefix(const struct rn_prefix *p)
{
	char buf[RN_PREFIX_STRLEN];

	return json_string(rn_prefix_format(p, buf));
}

static json_t *interface_json(const struct cni_netconf *c, const struct cni_attachment *a)
{
	json_t *o = json_object();
	char mac[RN_MAC_STRLEN];

	rn_mac_format(a->mac, mac);
	json_object_set_new(o, "name", json_string(a->ifname));
	json_object_set_new(o, "mac", json_string(mac));
	if (c->version >= CNI_V110 && a->mtu)
		json_object_set_new(o, "mtu", json_integer(a->mtu));
	json_object_set_new(o, "sandbox", json_string(a->sandbox));
	return o;
}

static json_t *ip_json(const struct cni_netconf *c, const struct rn_ipam_address *ad, size_t iface)
{
	json_t *o = json_object();

	if (c->version == CNI_V040)
		json_object_set_new(o, "version",
				    json_string(ad->address.addr.family == AF_INET ? "4" : "6"));
	json_object_set_new(o, "interface", json_integer((json_int_t)iface));
	json_object_set_new(o, "address", str_prefix(&ad->address));
	if (ad->has_gateway)
		json_object_set_new(o, "gateway", str_addr(&ad->gateway));
	return o;
}

static json_t *route_json(const struct cni_att_route *r, bool with_table)
{
	json_t *o = json_object();

	json_object_set_new(o, "dst", str_prefix(&r->dst));
	if (r->has_gw)
		json_object_set_new(o, "gw", str_addr(&r->gw));
	if (with_table && r->table)
		json_object_set_new(o, "table", json_integer(r->table));
	if (with_table && r->link_scope)
		json_object_set_new(o, "scope", json_integer(253));	/* RT_SCOPE_LINK */
	return o;
}

/* The array under key, created if the prevResult had none. */
static json_t *array_of(json_t *res, const char *key, struct cni_err *err)
{
	json_t *v = json_object_get(res, key);

	if (!v || json_is_null(v)) {
		v = json_array();
		json_object_set_new(res, key, v);
	}
	if (!json_is_array(v)) {
		cni_fail(err, CNI_ERR_CONFIG, "config: prevResult.%s: expected an array", key);
		return NULL;
	}
	return v;
}

json_t *cni_result_build(const struct cni_netconf *c, const struct cni_attachment *a,
			 struct cni_err *err)
{
	json_t *res, *ifs, *ips, *routes;
	bool tables = c->version >= CNI_V110;
	size_t idx;

	res = c->prev_result ? json_deep_copy(c->prev_result) : json_object();
	if (!res) {
		cni_fail(err, RN_CNI_ERR_INTERNAL, "out of memory");
		return NULL;
	}
	json_object_set_new(res, "cniVersion", json_string(c->version_str));
	ifs = array_of(res, "interfaces", err);
	ips = ifs ? array_of(res, "ips", err) : NULL;
	routes = ips ? array_of(res, "routes", err) : NULL;
	if (!routes) {
		json_decref(res);
		return NULL;
	}
	idx = json_array_size(ifs);
	json_array_append_new(ifs, interface_json(c, a));
	for (unsigned int i = 0; i < a->n_addrs; i++)
		json_array_append_new(ips, ip_json(c, &a->addrs[i], idx));
	for (unsigned int i = 0; i < a->n_routes; i++)
		if (tables || !a->routes[i].table)
			json_array_append_new(routes, route_json(&a->routes[i], tables));
	/* like the reference plugins: no routes, no key (unless prevResult had it) */
	if (!json_array_size(routes) && !json_object_get(c->prev_result, "routes"))
		json_object_del(res, "routes");
	if (!json_object_get(res, "dns"))
		json_object_set_new(res, "dns", json_object());
	return res;
}
