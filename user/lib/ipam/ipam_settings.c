// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_fields.h"
#include "ipam/ipam_settings.h"

static const char *const store_names[] = { "sqlite", "etcd" };

static int parse_endpoints(struct rn_ipam_settings *s, json_t *ipam, struct rn_error *e)
{
	json_t *arr, *v;
	size_t i;

	if (rn_json_typed(ipam, "endpoints", JSON_ARRAY, &arr, "config: ipam", e))
		return -EINVAL;
	if (!arr)
		return 0;
	if (json_array_size(arr) > RN_IPAM_MAX_ENDPOINTS)
		return rn_fail(e, -EINVAL, "config: ipam.endpoints: more than %d entries",
			       RN_IPAM_MAX_ENDPOINTS);
	json_array_foreach(arr, i, v) {
		const char *url = json_string_value(v);

		if (!url)
			return rn_fail(e, -EINVAL, "config: ipam.endpoints[%zu]: expected a string",
				       i);
		if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8))
			return rn_fail(e, -EINVAL, "config: ipam.endpoints[%zu]: \"%s\": expected "
				       "http://HOST:PORT or https://HOST:PORT", i, url);
		if (strlen(url) >= RN_IPAM_URL_MAX - 16)
			return rn_fail(e, -EINVAL, "config: ipam.endpoints[%zu]: longer than %d "
				       "characters", i, RN_IPAM_URL_MAX - 17);
		snprintf(s->endpoints[i], sizeof(s->endpoints[i]), "%s", url);
		/* the gateway paths are appended: no trailing slash */
		while (strlen(s->endpoints[i]) > 8 && s->endpoints[i][strlen(s->endpoints[i]) - 1]
		       == '/')
			s->endpoints[i][strlen(s->endpoints[i]) - 1] = '\0';
		s->n_endpoints++;
	}
	return 0;
}

static int parse_tls(struct rn_ipam_settings *s, json_t *ipam, struct rn_error *e)
{
	static const char *const keys[] = { "ca_file", "cert_file", "key_file", NULL };
	const char *w = "config: ipam.tls";
	json_t *tls;

	if (rn_json_typed(ipam, "tls", JSON_OBJECT, &tls, "config: ipam", e))
		return -EINVAL;
	if (!tls)
		return 0;
	if (rn_json_only_keys(tls, keys, w, e) ||
	    rn_json_string(tls, "ca_file", s->tls.ca_file, sizeof(s->tls.ca_file), w, e) ||
	    rn_json_string(tls, "cert_file", s->tls.cert_file, sizeof(s->tls.cert_file), w, e) ||
	    rn_json_string(tls, "key_file", s->tls.key_file, sizeof(s->tls.key_file), w, e))
		return -EINVAL;
	if (!s->tls.cert_file[0] != !s->tls.key_file[0])
		return rn_fail(e, -EINVAL, "%s: cert_file and key_file go together", w);
	return 0;
}

static int parse_precheck(struct rn_ipam_settings *s, json_t *ipam, struct rn_error *e)
{
	static const char *const keys[] = { "max_age_s", "per_pool", NULL };
	const char *w = "config: ipam.precheck";
	long long age = s->precheck_max_age_s, per = s->precheck_per_pool;
	json_t *pc;

	if (rn_json_typed(ipam, "precheck", JSON_OBJECT, &pc, "config: ipam", e))
		return -EINVAL;
	if (!pc)
		return 0;
	if (rn_json_only_keys(pc, keys, w, e) ||
	    rn_json_int(pc, "max_age_s", 1, 3600, &age, w, e) ||
	    rn_json_int(pc, "per_pool", 0, RN_IPAM_MAX_PRECHECK_PER_POOL, &per, w, e))
		return -EINVAL;
	s->precheck_max_age_s = age;
	s->precheck_per_pool = (unsigned int)per;
	return 0;
}

int rn_ipam_settings_parse(struct rn_ipam_settings *s, const struct rn_config *c,
			   struct rn_error *e)
{
	static const char *const keys[] = { "store", "path", "endpoints", "prefix", "timeout_s",
					    "tls", "block_lease_s", "precheck", NULL };
	const char *w = "config: ipam";
	json_t *ipam = c->ipam;
	long long timeout_s = RN_IPAM_DEFAULT_TIMEOUT_S;
	long long lease_s = RN_IPAM_DEFAULT_BLOCK_LEASE_S;
	int store = RN_IPAM_STORE_SQLITE;

	memset(s, 0, sizeof(*s));
	snprintf(s->path, sizeof(s->path), "%s", RN_DEFAULT_IPAM_DB);
	snprintf(s->prefix, sizeof(s->prefix), "%s", RN_IPAM_DEFAULT_PREFIX);
	s->timeout_ms = RN_IPAM_DEFAULT_TIMEOUT_S * 1000;
	s->block_lease_s = lease_s;
	s->precheck_max_age_s = RN_IPAM_DEFAULT_PRECHECK_AGE_S;
	s->precheck_per_pool = RN_IPAM_DEFAULT_PRECHECK_PER_POOL;
	if (!ipam)
		return 0;
	if (rn_json_only_keys(ipam, keys, w, e) ||
	    rn_json_enum(ipam, "store", store_names, 2, &store, w, e) ||
	    rn_json_string(ipam, "path", s->path, sizeof(s->path), w, e) ||
	    rn_json_string(ipam, "prefix", s->prefix, sizeof(s->prefix), w, e) ||
	    rn_json_int(ipam, "timeout_s", 1, 600, &timeout_s, w, e) ||
	    rn_json_int(ipam, "block_lease_s", 2, 86400, &lease_s, w, e) ||
	    parse_endpoints(s, ipam, e) || parse_tls(s, ipam, e) || parse_precheck(s, ipam, e))
		return -EINVAL;
	s->store = store;
	s->timeout_ms = (unsigned int)timeout_s * 1000;
	s->block_lease_s = lease_s;
	/* with etcd: the node-local store of block pools */
	if (s->path[0] != '/')
		return rn_fail(e, -EINVAL, "%s.path: \"%s\": must be an absolute path", w, s->path);
	if (s->prefix[0] != '/')
		return rn_fail(e, -EINVAL, "%s.prefix: \"%s\": must start with '/'", w, s->prefix);
	/* the etcd store's keys hold no byte below 0x21 (see etcd_keys.h) */
	for (const char *p = s->prefix; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f)
			return rn_fail(e, -EINVAL, "%s.prefix: only printable characters without "
				       "spaces are allowed", w);
	if (s->store == RN_IPAM_STORE_ETCD && !s->n_endpoints)
		return rn_fail(e, -EINVAL, "%s.endpoints: required with store \"etcd\"", w);
	return 0;
}

void rn_ipam_config_pools_free(struct rn_pool *pools, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rn_pool_free(&pools[i]);
	free(pools);
}

int rn_ipam_config_pools(const struct rn_config *c, struct rn_pool **out, unsigned int *n,
			 struct rn_error *e)
{
	size_t count = json_array_size(c->pools);
	struct rn_pool *pools;
	char where[48];
	json_t *v;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!count)
		return 0;
	pools = calloc(count, sizeof(*pools));
	if (!pools)
		return rn_fail(e, -ENOMEM, "config: pools: out of memory");
	json_array_foreach(c->pools, i, v) {
		snprintf(where, sizeof(where), "config: pools[%zu]", i);
		if (rn_pool_from_json(&pools[i], v, where, e))
			goto fail;
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(pools[j].name, pools[i].name)) {
				rn_fail(e, -EINVAL, "%s.name: \"%s\" is also pools[%zu]", where,
					pools[i].name, j);
				goto fail_i;
			}
			if (rn_pool_check_overlap(&pools[i], &pools[j], e)) {
				rn_fail_wrap(e, "config: pools[%zu]", i);
				goto fail_i;
			}
		}
	}
	*out = pools;
	*n = (unsigned int)count;
	return 0;
fail_i:
	i++;
fail:
	rn_ipam_config_pools_free(pools, (unsigned int)i);
	return e ? e->code : -EINVAL;
}
