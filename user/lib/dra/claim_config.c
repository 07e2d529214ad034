// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A claim's opaque device configuration. The scheduler copies into
 * status.allocation.devices.config the config of each request's
 * DeviceClass (source "FromClass") and the claim's spec.devices.config
 * ("FromClaim"): resource.k8s.io/v1 DeviceAllocationConfiguration,
 *   { "source": "FromClass" | "FromClaim",
 *     "requests": [ "nic", "nic/sub" ],   empty or absent: every request
 *     "opaque": { "driver": "...", "parameters": { ... } } }
 * for every driver of the claim. rdmanet reads the entries of its own
 * driver; their parameters are its NetworkConfig (dra.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dra/claim_config.h"
#include "json_fields.h"

/* resource.k8s.io/v1 DeviceRequestsMaxSize: requests an entry may name */
#define MAX_REQUESTS 32

static const char *const modes[] = { "macvlan", "ipvlan" };
static const char *const ipvlan_modes[] = { "l2", "l3", "l3s" };

static int pool_list(json_t *ippools, const char *family, char (*out)[RN_DRA_POOL_LEN], int *n,
		     const char *where, struct rn_error *e)
{
	json_t *list = json_object_get(ippools, family), *v;
	size_t i;

	*n = 0;
	if (!list)
		return 0;
	if (!json_is_array(list))
		return rn_fail(e, -EINVAL, "%s.ippools.%s: expected an array of pool names", where,
			       family);
	if (json_array_size(list) > RN_DRA_MAX_POOLS)
		return rn_fail(e, -EINVAL, "%s.ippools.%s: more than %d pools", where, family,
			       RN_DRA_MAX_POOLS);
	json_array_foreach(list, i, v) {
		if (!json_is_string(v) || !json_string_length(v) ||
		    json_string_length(v) >= RN_DRA_POOL_LEN)
			return rn_fail(e, -EINVAL, "%s.ippools.%s[%zu]: expected a pool name (1..%d "
				       "characters)", where, family, i, RN_DRA_POOL_LEN - 1);
		snprintf(out[(*n)++], RN_DRA_POOL_LEN, "%s", json_string_value(v));
	}
	return 0;
}

static int pools_from_json(json_t *o, struct rn_dra_netconfig *out, const char *where,
			   struct rn_error *e)
{
	static const char *const keys[] = { "ipv4", "ipv6", NULL };
	char at[256];
	json_t *p;

	snprintf(at, sizeof(at), "%s.ippools", where);
	if (rn_json_typed(o, "ippools", JSON_OBJECT, &p, where, e))
		return -EINVAL;
	if (!p)
		return 0;
	if (rn_json_only_keys(p, keys, at, e) ||
	    pool_list(p, "ipv4", out->ipv4_pools, &out->n_ipv4_pools, where, e) ||
	    pool_list(p, "ipv6", out->ipv6_pools, &out->n_ipv6_pools, where, e))
		return -EINVAL;
	if (!out->n_ipv4_pools && !out->n_ipv6_pools)
		return rn_fail(e, -EINVAL, "%s: lists no pool", at);
	out->has_pools = true;
	return 0;
}

/* apiVersion and kind: what the parameters say they are */
static int identity_check(json_t *o, const char *where, struct rn_error *e)
{
	const char *keys[] = { "apiVersion", "kind" };
	const char *want[] = { RN_DRA_PARAMS_API_VERSION, RN_DRA_PARAMS_KIND };

	for (int i = 0; i < 2; i++) {
		json_t *v = json_object_get(o, keys[i]);

		if (!json_is_string(v) || strcmp(json_string_value(v), want[i]))
			return rn_fail(e, -EINVAL, "%s.%s: %s \"%s\"", where, keys[i],
				       v ? "expected" : "missing, expected", want[i]);
	}
	return 0;
}

int dra_netconfig_from_json(json_t *o, bool identity, struct rn_dra_netconfig *out,
			    const char *where, struct rn_error *e)
{
	static const char *const keys[] = { "mode", "ipvlanMode", "ippools", "dscp",
					     "apiVersion", "kind", NULL };
	/* a record's "config": the same keys, no identity */
	static const char *const record_keys[] = { "mode", "ipvlanMode", "ippools", "dscp",
						   NULL };
	int mode = -1, ipvlan = -1;
	long long dscp = -1;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(o, identity ? keys : record_keys, where, e))
		return -EINVAL;
	if (identity && identity_check(o, where, e))
		return -EINVAL;
	if (rn_json_enum(o, "mode", modes, 2, &mode, where, e) ||
	    rn_json_enum(o, "ipvlanMode", ipvlan_modes, 3, &ipvlan, where, e) ||
	    rn_json_int(o, "dscp", 0, 63, &dscp, where, e) || pools_from_json(o, out, where, e))
		return -EINVAL;
	if (mode >= 0)
		snprintf(out->mode, sizeof(out->mode), "%s", modes[mode]);
	if (ipvlan >= 0)
		snprintf(out->ipvlan_mode, sizeof(out->ipvlan_mode), "%s", ipvlan_modes[ipvlan]);
	out->has_dscp = dscp >= 0;
	out->dscp = out->has_dscp ? (int)dscp : 0;
	return 0;
}

static json_t *pools_json(const char (*pools)[RN_DRA_POOL_LEN], int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(pools[i]));
	return a;
}

json_t *dra_netconfig_to_json(const struct rn_dra_netconfig *c)
{
	json_t *o = json_object();

	if (c->mode[0])
		json_object_set_new(o, "mode", json_string(c->mode));
	if (c->ipvlan_mode[0])
		json_object_set_new(o, "ipvlanMode", json_string(c->ipvlan_mode));
	if (c->has_pools) {
		json_t *p = json_object();

		if (c->n_ipv4_pools)
			json_object_set_new(p, "ipv4", pools_json(c->ipv4_pools, c->n_ipv4_pools));
		if (c->n_ipv6_pools)
			json_object_set_new(p, "ipv6", pools_json(c->ipv6_pools, c->n_ipv6_pools));
		json_object_set_new(o, "ippools", p);
	}
	if (c->has_dscp)
		json_object_set_new(o, "dscp", json_integer(c->dscp));
	if (!json_object_size(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* "nic" names request nic and its subrequests ("nic/a"); "nic/a" that one */
static bool names_request(const char *ref, const char *request)
{
	size_t n = strlen(ref);

	return !strcmp(ref, request) ||
	       (!strchr(ref, '/') && !strncmp(ref, request, n) && request[n] == '/');
}

/* which of out's results the entry's "requests" name (none: all) */
static int requests_mask(json_t *list, const struct rn_dra_claim *out, unsigned int *mask,
			 const char *where, struct rn_error *e)
{
	json_t *v;
	size_t i;

	*mask = 0;
	if (list && !json_is_array(list))
		return rn_fail(e, -EINVAL, "%s.requests: expected an array of request names", where);
	if (json_array_size(list) > MAX_REQUESTS)
		return rn_fail(e, -EINVAL, "%s.requests: more than %d", where, MAX_REQUESTS);
	if (!json_array_size(list)) {
		*mask = out->n_results >= 32 ? ~0u : (1u << out->n_results) - 1;
		return 0;
	}
	json_array_foreach(list, i, v) {
		if (!json_is_string(v) || !json_string_length(v))
			return rn_fail(e, -EINVAL, "%s.requests[%zu]: expected a request name",
				       where, i);
		for (int r = 0; r < out->n_results; r++)
			if (names_request(json_string_value(v), out->results[r].request))
				*mask |= 1u << r;
	}
	return 0;
}

static int entry_from_json(json_t *o, struct rn_dra_claim *out, struct rn_dra_claim_config *x,
			   const char *where, struct rn_error *e)
{
	static const char *const keys[] = { "source", "requests", "opaque", NULL };
	static const char *const opaque_keys[] = { "driver", "parameters", NULL };
	static const char *const sources[] = { "FromClass", "FromClaim" };
	char at[128];
	json_t *opaque, *params;
	struct rn_error pe = { 0 };
	int source = -1;

	if (!json_is_object(o))
		return rn_fail(e, -EINVAL, "%s: expected an object", where);
	if (rn_json_only_keys(o, keys, where, e) ||
	    rn_json_enum(o, "source", sources, 2, &source, where, e))
		return -EINVAL;
	if (source < 0)
		return rn_fail(e, -EINVAL, "%s.source: missing (FromClass or FromClaim)", where);
	x->from_class = source == 0;
	if (requests_mask(json_object_get(o, "requests"), out, &x->results, where, e))
		return -EINVAL;
	/* opaque is the only kind of configuration resource.k8s.io has */
	snprintf(at, sizeof(at), "%s.opaque", where);
	if (rn_json_typed(o, "opaque", JSON_OBJECT, &opaque, where, e))
		return -EINVAL;
	if (!opaque)
		return rn_fail(e, -EINVAL, "%s: missing", at);
	if (rn_json_only_keys(opaque, opaque_keys, at, e) ||
	    rn_json_string(opaque, "driver", x->driver, sizeof(x->driver), at, e))
		return -EINVAL;
	if (!x->driver[0])
		return rn_fail(e, -EINVAL, "%s.driver: missing", at);
	params = json_object_get(opaque, "parameters");
	if (!json_is_object(params))
		return rn_fail(e, -EINVAL, "%s.parameters: %s", at, params ? "expected an object" :
			       "missing");
	snprintf(at, sizeof(at), "%s.opaque.parameters", where);
	if (dra_netconfig_from_json(params, true, &x->params, at, &pe))
		snprintf(x->error, sizeof(x->error), "%.255s", pe.msg);
	return 0;
}

int dra_claim_configs_from_json(json_t *list, struct rn_dra_claim *out, struct rn_error *e)
{
	const char *path = "status.allocation.devices.config";
	json_t *v;
	size_t i;

	if (!list)
		return 0;
	if (!json_is_array(list))
		return rn_fail(e, -EINVAL, "%s: expected an array", path);
	if (json_array_size(list) > RN_DRA_MAX_CONFIGS)
		return rn_fail(e, -EINVAL, "%s: more than %d", path, RN_DRA_MAX_CONFIGS);
	json_array_foreach(list, i, v) {
		char where[64];

		snprintf(where, sizeof(where), "%s[%zu]", path, i);
		if (entry_from_json(v, out, &out->configs[out->n_configs++], where, e))
			return -EINVAL;
	}
	return 0;
}

static void merge(struct rn_dra_netconfig *to, const struct rn_dra_netconfig *from)
{
	if (from->mode[0])
		memcpy(to->mode, from->mode, sizeof(to->mode));
	if (from->ipvlan_mode[0])
		memcpy(to->ipvlan_mode, from->ipvlan_mode, sizeof(to->ipvlan_mode));
	if (from->has_pools) {
		to->has_pools = true;
		memcpy(to->ipv4_pools, from->ipv4_pools, sizeof(to->ipv4_pools));
		memcpy(to->ipv6_pools, from->ipv6_pools, sizeof(to->ipv6_pools));
		to->n_ipv4_pools = from->n_ipv4_pools;
		to->n_ipv6_pools = from->n_ipv6_pools;
	}
	if (from->has_dscp) {
		to->has_dscp = true;
		to->dscp = from->dscp;
	}
}

/* Precedence as resource.k8s.io defines it for drivers: the class's config
 * first, then the claim's ("Configs coming directly from the resource claim
 * take precedence over configs coming from the device class. Moreover,
 * configs found later in the list of configs attached to its source take
 * precedence over configs found earlier", kubernetes-sigs/dra-example-driver,
 * GetOpaqueDeviceConfigs). The example driver applies the winning entry
 * whole; rdmanet merges key by key, so a class can fix the DSCP while a
 * claim names its pools: a key given later wins, "ippools" as a whole. */
int rn_dra_claim_config(const struct rn_dra_claim *c, int result, const char *driver,
			struct rn_dra_netconfig *out, struct rn_error *e)
{
	memset(out, 0, sizeof(*out));
	/* an entry of this driver that is not a NetworkConfig fails the claim,
	 * whichever requests it names */
	for (int i = 0; i < c->n_configs; i++)
		if (!strcmp(c->configs[i].driver, driver) && c->configs[i].error[0])
			return rn_fail(e, -EINVAL, "%s (a %s entry of driver %s)",
				       c->configs[i].error,
				       c->configs[i].from_class ? "FromClass" : "FromClaim", driver);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < c->n_configs; i++) {
			const struct rn_dra_claim_config *x = &c->configs[i];

			if (x->from_class == (pass == 0) && !strcmp(x->driver, driver) &&
			    (x->results & (1u << result)))
				merge(out, &x->params);
		}
	return 0;
}
