// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <linux/if_link.h>

#include "config.h"
#include "dns_name.h"
#include "json_fields.h"
#include "netconf.h"

const char *const cni_mode_names[3] = { "macvlan", "ipvlan", "sriov" };
const char *const cni_macvlan_mode_names[3] = { "bridge", "private", "vepa" };
const char *const cni_ipvlan_mode_names[3] = { "l2", "l3", "l3s" };
static const int macvlan_modes[3] = { MACVLAN_MODE_BRIDGE, MACVLAN_MODE_PRIVATE,
				      MACVLAN_MODE_VEPA };
const int cni_ipvlan_modes[3] = { IPVLAN_MODE_L2, IPVLAN_MODE_L3, IPVLAN_MODE_L3S };

const char *cni_submode_name(const struct cni_netconf *c)
{
	for (int i = 0; i < 3; i++) {
		if (c->mode == CNI_MODE_MACVLAN && macvlan_modes[i] == c->macvlan_mode)
			return cni_macvlan_mode_names[i];
		if (c->mode == CNI_MODE_IPVLAN && cni_ipvlan_modes[i] == c->ipvlan_mode)
			return cni_ipvlan_mode_names[i];
	}
	return "?";
}

static int bad(struct cni_err *err, const struct rn_error *e)
{
	return cni_fail(err, CNI_ERR_CONFIG, "%s", e->msg);
}

static int check_name(const char *name, struct cni_err *err)
{
	if (!name[0])
		return cni_fail(err, CNI_ERR_CONFIG, "config: name: required");
	if (!isalnum((unsigned char)name[0]))
		return cni_fail(err, CNI_ERR_CONFIG, "config: name: \"%s\" must start with a "
				"letter or digit", name);
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '.' && *p != '-')
			return cni_fail(err, CNI_ERR_CONFIG, "config: name: \"%s\" may hold only "
					"letters, digits, '_', '.' and '-'", name);
	return 0;
}

static int parse_version(struct cni_netconf *c, struct cni_err *err)
{
	json_t *v = json_object_get(c->root, "cniVersion");
	char list[64];

	if (!v)
		return cni_fail(err, CNI_ERR_CONFIG, "config: cniVersion: required");
	if (!json_is_string(v))
		return cni_fail(err, CNI_ERR_CONFIG, "config: cniVersion: expected a string");
	c->version_str = json_string_value(v);
	if (!cni_version_parse(c->version_str, &c->version))
		return 0;
	snprintf(list, sizeof(list), "%s, %s, %s", cni_version_names[0], cni_version_names[1],
		 cni_version_names[2]);
	return cni_fail(err, CNI_ERR_VERSION, "config: cniVersion \"%s\" is not supported "
			"(supported: %s)", c->version_str, list);
}

static int parse_pool_list(json_t *ippools, const char *key, const char **out,
			   unsigned int *n, struct cni_err *err)
{
	json_t *list = json_object_get(ippools, key), *v;
	size_t i;

	if (!list || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return cni_fail(err, CNI_ERR_CONFIG, "config: ippools.%s: expected an array of "
				"pool names", key);
	if (json_array_size(list) > RN_IPAM_MAX_POOLS)
		return cni_fail(err, CNI_ERR_CONFIG, "config: ippools.%s: more than %d pools",
				key, RN_IPAM_MAX_POOLS);
	json_array_foreach(list, i, v) {
		if (!json_is_string(v) || !json_string_length(v) ||
		    json_string_length(v) >= RN_POOL_NAME_MAX)
			return cni_fail(err, CNI_ERR_CONFIG, "config: ippools.%s[%zu]: expected a "
					"pool name (1..%d characters)", key, i,
					RN_POOL_NAME_MAX - 1);
		out[(*n)++] = json_string_value(v);
	}
	return 0;
}

static int parse_ippools(struct cni_netconf *c, struct cni_err *err)
{
	static const char *const keys[] = { "ipv4", "ipv6", NULL };
	struct rn_error e = { 0 };
	json_t *p;

	if (rn_json_typed(c->root, "ippools", JSON_OBJECT, &p, "config", &e))
		return bad(err, &e);
	/* with "dra" the pod's claim may name them (dra_claim.c checks) */
	if (!p && json_object_get(c->root, "dra"))
		return 0;
	if (!p)
		return cni_fail(err, CNI_ERR_CONFIG, "config: ippools: required (e.g. "
				"{\"ipv4\": [\"rail1-v4\"]})");
	if (rn_json_only_keys(p, keys, "config: ippools", &e))
		return bad(err, &e);
	if (parse_pool_list(p, "ipv4", c->ipv4_pools, &c->n_ipv4_pools, err) ||
	    parse_pool_list(p, "ipv6", c->ipv6_pools, &c->n_ipv6_pools, err))
		return -1;
	if (!c->n_ipv4_pools && !c->n_ipv6_pools)
		return cni_fail(err, CNI_ERR_CONFIG, "config: ippools: lists no pool");
	return 0;
}

static int parse_routes(struct cni_netconf *c, struct cni_err *err)
{
	static const char *const keys[] = { "dst", "gw", NULL };
	struct rn_error e = { 0 };
	json_t *list, *r;
	size_t i;

	if (rn_json_typed(c->root, "routes", JSON_ARRAY, &list, "config", &e))
		return bad(err, &e);
	if (json_array_size(list) > CNI_MAX_ROUTES)
		return cni_fail(err, CNI_ERR_CONFIG, "config: routes: more than %d",
				CNI_MAX_ROUTES);
	json_array_foreach(list, i, r) {
		struct cni_route *rt = &c->routes[c->n_routes];
		char where[48], dst[RN_PREFIX_STRLEN] = "", gw[RN_ADDR_STRLEN] = "";

		snprintf(where, sizeof(where), "config: routes[%zu]", i);
		if (!json_is_object(r))
			return cni_fail(err, CNI_ERR_CONFIG, "%s: expected an object", where);
		if (rn_json_only_keys(r, keys, where, &e) ||
		    rn_json_string(r, "dst", dst, sizeof(dst), where, &e) ||
		    rn_json_string(r, "gw", gw, sizeof(gw), where, &e))
			return bad(err, &e);
		if (rn_prefix_parse(dst, &rt->dst, true))
			return cni_fail(err, CNI_ERR_CONFIG, "%s.dst: \"%s\" is not a prefix with "
					"its host bits zero", where, dst);
		if (gw[0]) {
			if (rn_addr_parse(gw, &rt->gw))
				return cni_fail(err, CNI_ERR_CONFIG, "%s.gw: \"%s\" is not an IP "
						"address", where, gw);
			if (rt->gw.family != rt->dst.addr.family)
				return cni_fail(err, CNI_ERR_CONFIG, "%s: dst and gw are of "
						"different address families", where);
			rt->has_gw = true;
		}
		c->n_routes++;
	}
	return 0;
}

/* true | false | { "enabled": ..., "timeoutMs": ..., "probes": ... } */
static int parse_probe(json_t *root, const char *key, struct cni_probe_opts *o,
		       struct cni_err *err)
{
	static const char *const keys[] = { "enabled", "timeoutMs", "probes", NULL };
	json_t *v = json_object_get(root, key);
	struct rn_error e = { 0 };
	char where[48];
	long long n;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_boolean(v)) {
		o->enabled = json_is_true(v);
		return 0;
	}
	snprintf(where, sizeof(where), "config: %s", key);
	if (!json_is_object(v))
		return cni_fail(err, CNI_ERR_CONFIG, "%s: expected a boolean or an object", where);
	if (rn_json_only_keys(v, keys, where, &e) ||
	    rn_json_bool(v, "enabled", &o->enabled, where, &e))
		return bad(err, &e);
	n = o->timeout_ms;
	if (rn_json_int(v, "timeoutMs", 1, 60000, &n, where, &e))
		return bad(err, &e);
	o->timeout_ms = (unsigned int)n;
	n = o->probes;
	if (rn_json_int(v, "probes", 1, 20, &n, where, &e))
		return bad(err, &e);
	o->probes = (unsigned int)n;
	return 0;
}

static int parse_policy(struct cni_netconf *c, struct cni_err *err)
{
	static const char *const keys[] = { "enabled", "tableBase", "rulePriority", NULL };
	json_t *v = json_object_get(c->root, "policyRouting");
	struct rn_error e = { 0 };
	long long n;

	if (!v || json_is_null(v))
		return 0;
	if (json_is_boolean(v)) {
		c->policy.enabled = json_is_true(v);
		return 0;
	}
	if (!json_is_object(v))
		return cni_fail(err, CNI_ERR_CONFIG, "config: policyRouting: expected a boolean "
				"or an object");
	if (rn_json_only_keys(v, keys, "config: policyRouting", &e) ||
	    rn_json_bool(v, "enabled", &c->policy.enabled, "config: policyRouting", &e))
		return bad(err, &e);
	n = c->policy.table_base;
	if (rn_json_int(v, "tableBase", 1, 0x7fff0000LL, &n, "config: policyRouting", &e))
		return bad(err, &e);
	if (n >= 253 && n <= 255)
		return cni_fail(err, CNI_ERR_CONFIG, "config: policyRouting.tableBase: %lld is "
				"the default, main or local table", n);
	c->policy.table_base = (uint32_t)n;
	n = c->policy.rule_priority;
	if (rn_json_int(v, "rulePriority", 1, 32765, &n, "config: policyRouting", &e))
		return bad(err, &e);
	c->policy.rule_priority = (uint32_t)n;
	return 0;
}

static int parse_path(json_t *root, const char *key, char *out, size_t size,
		      struct cni_err *err)
{
	struct rn_error e = { 0 };
	char tmp[PATH_MAX] = "";

	if (rn_json_string(root, key, tmp, sizeof(tmp) < size ? sizeof(tmp) : size, "config", &e))
		return bad(err, &e);
	if (!tmp[0])
		return 0;
	if (tmp[0] != '/')
		return cni_fail(err, CNI_ERR_CONFIG, "config: %s: \"%s\" is not an absolute path",
				key, tmp);
	snprintf(out, size, "%s", tmp);
	return 0;
}

static void defaults(struct cni_netconf *c)
{
	c->mode = CNI_MODE_MACVLAN;
	c->macvlan_mode = MACVLAN_MODE_BRIDGE;
	c->ipvlan_mode = IPVLAN_MODE_L2;
	c->policy = (struct cni_policy_opts){ true, CNI_DEFAULT_TABLE_BASE,
					      CNI_DEFAULT_RULE_PRIORITY };
	/* a gateway answers ARP/NDP at once; the wait only matters when it is dead */
	c->gateway_check = (struct cni_probe_opts){ true, 1000, 3 };
	/* silence is the good answer here, so this wait is paid by every ADD: RoCE
	 * fabrics answer ARP in microseconds, two probes allow one loss */
	c->conflict_check = (struct cni_probe_opts){ true, 50, 2 };
	c->dscp = -1;
	snprintf(c->config_file, sizeof(c->config_file), "%s", RN_DEFAULT_CONFIG);
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", RN_DEFAULT_CNI_STATE_DIR);
}

static int onoff(json_t *root, const char *key, bool *has, int *out, struct cni_err *err)
{
	json_t *v = json_object_get(root, key);
	const char *s = json_string_value(v);

	if (!v)
		return 0;
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
	} else if (s && (!strcmp(s, "on") || !strcmp(s, "off"))) {
		*out = !strcmp(s, "on");
	} else {
		return cni_fail(err, CNI_ERR_CONFIG, "config: %s: expected \"on\" or \"off\"", key);
	}
	*has = true;
	return 0;
}

/* The device the delegate is for. Multus sets the top-level "deviceID"
 * and "pciBusID" (both the device plugin's ID; pciBusID since Multus 4) in
 * every delegate whose NetworkAttachmentDefinition carries a
 * k8s.v1.cni.cncf.io/resourceName annotation, whatever its plugin or mode:
 * a shared-mode network annotated for the RDMA shared device plugin gets
 * them too, so every mode accepts them. Only mode "sriov" uses them (the
 * VF); runtimeConfig.deviceID is read where neither is set. */
static int parse_device_id(struct cni_netconf *c, struct cni_err *err)
{
	static const char *const keys[] = { "deviceID", "pciBusID" };
	json_t *rc = json_object_get(c->root, "runtimeConfig");
	char ids[2][sizeof(c->device_id)] = { "", "" };
	struct rn_error e = { 0 };

	for (int i = 0; i < 2; i++) {
		json_t *v = json_object_get(c->root, keys[i]);

		if (v && !json_is_string(v))
			return cni_fail(err, CNI_ERR_CONFIG, "config: %s: must be a string", keys[i]);
		if (c->mode == CNI_MODE_SRIOV &&
		    rn_json_string(c->root, keys[i], ids[i], sizeof(ids[i]), "config", &e))
			return bad(err, &e);
	}
	if (c->mode != CNI_MODE_SRIOV)
		return 0;
	if (ids[0][0] && ids[1][0] && strcmp(ids[0], ids[1]))
		return cni_fail(err, CNI_ERR_CONFIG, "config: deviceID \"%s\" and pciBusID \"%s\" "
				"name different devices", ids[0], ids[1]);
	snprintf(c->device_id, sizeof(c->device_id), "%s", ids[0][0] ? ids[0] : ids[1]);
	if (!c->device_id[0] && json_is_object(rc) &&
	    rn_json_string(rc, "deviceID", c->device_id, sizeof(c->device_id),
			   "config: runtimeConfig", &e))
		return bad(err, &e);
	return 0;
}

/* sriov-cni's VF keys. Only mode sriov may carry them: elsewhere they
 * would be silently ignored. */
static const char *const vf_keys[] = { "vlan", "vlanQoS", "vlanProto", "mac", "spoofchk",
				       "trust", "link_state", "min_tx_rate", "max_tx_rate", NULL };

static int refuse_vf_keys(const struct cni_netconf *c, struct cni_err *err)
{
	for (int i = 0; vf_keys[i]; i++)
		if (json_object_get(c->root, vf_keys[i]))
			return cni_fail(err, CNI_ERR_CONFIG, "config: %s: only for mode \"sriov\"",
					vf_keys[i]);
	return 0;
}

/* "vlan", "vlanQoS" (needs vlan) and "vlanProto" (802.1Q, the default, or 802.1ad). */
static int parse_vf_vlan(struct cni_netconf *c, struct cni_err *err)
{
	struct rn_error e = { 0 };
	char buf[32] = "";
	long long n = -1;

	if (rn_json_int(c->root, "vlan", 0, 4095, &n, "config", &e))
		return bad(err, &e);
	if (n >= 0) {
		c->has_vlan = true;
		c->vlan = (unsigned int)n;
	}
	n = 0;
	if (rn_json_int(c->root, "vlanQoS", 0, 7, &n, "config", &e))
		return bad(err, &e);
	c->vlan_qos = (unsigned int)n;
	c->vlan_proto = 0x8100;
	if (rn_json_string(c->root, "vlanProto", buf, sizeof(buf), "config", &e))
		return bad(err, &e);
	if (buf[0] && strcmp(buf, "802.1Q") && strcmp(buf, "802.1q") && strcmp(buf, "802.1ad") &&
	    strcmp(buf, "802.1AD"))
		return cni_fail(err, CNI_ERR_CONFIG, "config: vlanProto: expected \"802.1Q\" or "
				"\"802.1ad\"");
	if (buf[0] && strcasecmp(buf, "802.1ad") == 0)
		c->vlan_proto = 0x88a8;
	if ((c->vlan_qos || buf[0]) && !c->has_vlan)
		return cni_fail(err, CNI_ERR_CONFIG, "config: vlanQoS/vlanProto: need \"vlan\"");
	return 0;
}

/* "mac": a unicast MAC address. */
static int parse_vf_mac(struct cni_netconf *c, struct cni_err *err)
{
	struct rn_error e = { 0 };
	char buf[32] = "";
	unsigned int b[6];
	char tail;

	if (rn_json_string(c->root, "mac", buf, sizeof(buf), "config", &e))
		return bad(err, &e);
	if (!buf[0])
		return 0;
	if (sscanf(buf, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6 || (b[0] & 1))
		return cni_fail(err, CNI_ERR_CONFIG, "config: mac: \"%s\" is not a unicast MAC "
				"address", buf);
	for (int i = 0; i < 6; i++)
		c->vf_mac[i] = (uint8_t)b[i];
	c->has_mac = true;
	return 0;
}

/* "link_state": auto, enable or disable (IFLA_VF_LINK_STATE_*). */
static int parse_vf_link_state(struct cni_netconf *c, struct cni_err *err)
{
	struct rn_error e = { 0 };
	char buf[32] = "";

	if (rn_json_string(c->root, "link_state", buf, sizeof(buf), "config", &e))
		return bad(err, &e);
	if (!buf[0])
		return 0;
	if (!strcmp(buf, "auto"))
		c->link_state = 0;
	else if (!strcmp(buf, "enable"))
		c->link_state = 1;
	else if (!strcmp(buf, "disable"))
		c->link_state = 2;
	else
		return cni_fail(err, CNI_ERR_CONFIG, "config: link_state: expected auto, enable or "
				"disable");
	c->has_link_state = true;
	return 0;
}

/* "min_tx_rate" and "max_tx_rate" (Mbit/s), min not above a set max. */
static int parse_vf_rates(struct cni_netconf *c, struct cni_err *err)
{
	struct rn_error e = { 0 };
	long long n = -1;

	if (rn_json_int(c->root, "min_tx_rate", 0, 1000000, &n, "config", &e))
		return bad(err, &e);
	if (n >= 0) {
		c->has_rate = true;
		c->min_tx_rate = (unsigned int)n;
	}
	n = -1;
	if (rn_json_int(c->root, "max_tx_rate", 0, 1000000, &n, "config", &e))
		return bad(err, &e);
	if (n >= 0) {
		c->has_rate = true;
		c->max_tx_rate = (unsigned int)n;
	}
	if (c->max_tx_rate && c->min_tx_rate > c->max_tx_rate)
		return cni_fail(err, CNI_ERR_CONFIG, "config: min_tx_rate %u is above max_tx_rate "
				"%u", c->min_tx_rate, c->max_tx_rate);
	return 0;
}

static int parse_sriov(struct cni_netconf *c, struct cni_err *err)
{
	if (parse_device_id(c, err))
		return err->code;
	if (c->mode != CNI_MODE_SRIOV)
		return refuse_vf_keys(c, err);
	if (c->master[0])
		return cni_fail(err, CNI_ERR_CONFIG, "config: master: not for mode \"sriov\" (the "
				"VF's PF is its master)");
	if (parse_vf_vlan(c, err) || parse_vf_mac(c, err) ||
	    onoff(c->root, "spoofchk", &c->has_spoofchk, &c->spoofchk, err) ||
	    onoff(c->root, "trust", &c->has_trust, &c->trust, err) ||
	    parse_vf_link_state(c, err) || parse_vf_rates(c, err))
		return -1;
	return 0;
}

/* "<request>" or "<request>/<subrequest>" (a prioritized list's choice), as
 * the allocation results name it */
static bool request_valid(const char *s)
{
	const char *slash = strchr(s, '/');

	if (!slash)
		return rn_dns_label(s, strlen(s));
	return rn_dns_label(s, (size_t)(slash - s)) &&
	       rn_dns_label(slash + 1, strlen(slash + 1));
}

/* "dra": { "request": "<request>" } (dra_claim.h) */
static int parse_dra(struct cni_netconf *c, struct cni_err *err)
{
	static const char *const keys[] = { "request", NULL };
	json_t *d = json_object_get(c->root, "dra");
	struct rn_error e = { 0 };

	c->dra_request[0] = '\0';
	if (!d)
		return 0;
	if (!json_is_object(d))
		return cni_fail(err, CNI_ERR_CONFIG, "config: dra: expected an object "
				"({\"request\": \"<the claim's request>\"})");
	if (rn_json_only_keys(d, keys, "config: dra", &e) ||
	    rn_json_string(d, "request", c->dra_request, sizeof(c->dra_request), "config: dra",
			   &e))
		return cni_fail(err, CNI_ERR_CONFIG, "%s", e.msg);
	if (!c->dra_request[0])
		return cni_fail(err, CNI_ERR_CONFIG, "config: dra.request: required (the name of "
				"the pod's claim request whose device to attach)");
	if (!request_valid(c->dra_request))
		return cni_fail(err, CNI_ERR_CONFIG, "config: dra.request: \"%s\" is not a request "
				"name (a DNS label, or <request>/<subrequest>)", c->dra_request);
	return 0;
}

static int parse_fields(struct cni_netconf *c, struct cni_err *err)
{
	struct rn_error e = { 0 };
	long long n;
	int v;

	if (parse_version(c, err))
		return -1;
	if (rn_json_string(c->root, "name", c->name, sizeof(c->name), "config", &e))
		return bad(err, &e);
	if (check_name(c->name, err))
		return -1;
	v = c->mode;
	if (rn_json_enum(c->root, "mode", cni_mode_names, 3, &v, "config", &e))
		return bad(err, &e);
	c->mode = v;
	if (rn_json_string(c->root, "master", c->master, sizeof(c->master), "config", &e))
		return bad(err, &e);
	v = 0;
	if (rn_json_enum(c->root, "macvlanMode", cni_macvlan_mode_names, 3, &v, "config", &e))
		return bad(err, &e);
	c->macvlan_mode = macvlan_modes[v];
	v = 0;
	if (rn_json_enum(c->root, "ipvlanMode", cni_ipvlan_mode_names, 3, &v, "config", &e))
		return bad(err, &e);
	c->ipvlan_mode = cni_ipvlan_modes[v];
	n = 0;
	if (rn_json_int(c->root, "mtu", 0, 65535, &n, "config", &e))
		return bad(err, &e);
	if (n && n < 68)
		return cni_fail(err, CNI_ERR_CONFIG, "config: mtu: %lld is below 68", n);
	c->mtu = (unsigned int)n;
	n = -1;
	if (rn_json_int(c->root, "dscp", 0, 63, &n, "config", &e))
		return bad(err, &e);
	c->dscp = (int)n;
	if (parse_ippools(c, err) || parse_routes(c, err) || parse_policy(c, err) ||
	    parse_probe(c->root, "gatewayCheck", &c->gateway_check, err) ||
	    parse_probe(c->root, "ipConflictCheck", &c->conflict_check, err) ||
	    parse_path(c->root, "configFile", c->nad_config_file, sizeof(c->nad_config_file),
		       err) ||
	    parse_path(c->root, "stateDir", c->nad_state_dir, sizeof(c->nad_state_dir), err))
		return -1;
	if (parse_sriov(c, err) || parse_dra(c, err))
		return -1;
	c->prev_result = json_object_get(c->root, "prevResult");
	if (c->prev_result && json_is_null(c->prev_result))
		c->prev_result = NULL;
	if (c->prev_result && !json_is_object(c->prev_result))
		return cni_fail(err, CNI_ERR_CONFIG, "config: prevResult: expected an object");
	/* the spec's name since 1.1.0; drafts and early runtimes used the other */
	c->valid_attachments = json_object_get(c->root, "cni.dev/valid-attachments");
	if (!c->valid_attachments)
		c->valid_attachments = json_object_get(c->root, "cni.dev/attachments");
	if (c->valid_attachments && !json_is_array(c->valid_attachments))
		return cni_fail(err, CNI_ERR_CONFIG, "config: cni.dev/valid-attachments: expected "
				"an array");
	return 0;
}

int cni_netconf_parse(struct cni_netconf *c, const char *text, size_t len,
		      struct cni_err *err)
{
	json_error_t jerr;

	memset(c, 0, sizeof(*c));
	defaults(c);
	c->root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!c->root)
		return cni_fail(err, CNI_ERR_DECODE, "config: not valid JSON: line %d column %d: "
				"%s", jerr.line, jerr.column, jerr.text);
	if (!json_is_object(c->root))
		return cni_fail(err, CNI_ERR_DECODE, "config: expected a JSON object");
	return parse_fields(c, err);
}

void cni_netconf_free(struct cni_netconf *c)
{
	json_decref(c->root);
	c->root = NULL;
}
