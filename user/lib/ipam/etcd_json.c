// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON forms of etcd v3 gateway requests and answers. The gateway speaks
 * protobuf's JSON mapping: bytes fields are base64, int64 fields are
 * strings, and fields holding their default value (false, 0, empty) are
 * left out, so "succeeded" is absent when a transaction failed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "ipam/etcd_client.h"

static json_t *b64(const char *s)
{
	char *enc = rn_base64_encode(s, strlen(s));
	json_t *v = json_string(enc ? enc : "");

	free(enc);
	return v;
}

static json_t *int64s(long long v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", v);
	return json_string(buf);
}

static json_t *compare(const char *key, const char *target, const char *field, long long rev,
		       const char *result)
{
	json_t *c = json_object();

	json_object_set_new(c, "key", b64(key));
	json_object_set_new(c, "target", json_string(target));
	json_object_set_new(c, "result", json_string(result));
	json_object_set_new(c, field, int64s(rev));
	return c;
}

json_t *rn_etcd_cmp_create(const char *key, long long rev)
{
	return compare(key, "CREATE", "create_revision", rev, "EQUAL");
}

json_t *rn_etcd_cmp_mod(const char *key, long long rev)
{
	return compare(key, "MOD", "mod_revision", rev, "EQUAL");
}

json_t *rn_etcd_cmp_mod_range_less(const char *key, const char *range_end, long long rev)
{
	json_t *c = compare(key, "MOD", "mod_revision", rev, "LESS");

	json_object_set_new(c, "range_end", b64(range_end));
	return c;
}

static json_t *range_request(const char *key, const char *range_end, long long limit,
			     bool keys_only, bool count_only)
{
	json_t *r = json_object();

	json_object_set_new(r, "key", b64(key));
	if (range_end)
		json_object_set_new(r, "range_end", b64(range_end));
	if (limit)
		json_object_set_new(r, "limit", int64s(limit));
	if (keys_only)
		json_object_set_new(r, "keys_only", json_true());
	if (count_only)
		json_object_set_new(r, "count_only", json_true());
	return r;
}

json_t *rn_etcd_op_range(const char *key, const char *range_end, long long limit,
			 bool keys_only, bool count_only)
{
	return json_pack("{s:o}", "request_range",
			 range_request(key, range_end, limit, keys_only, count_only));
}

json_t *rn_etcd_op_put(const char *key, const char *value)
{
	return json_pack("{s:{s:o, s:o}}", "request_put", "key", b64(key), "value", b64(value));
}

json_t *rn_etcd_op_put_lease(const char *key, const char *value, long long lease)
{
	char id[24];

	snprintf(id, sizeof(id), "%lld", lease);
	return json_pack("{s:{s:o, s:o, s:s}}", "request_put", "key", b64(key), "value",
			 b64(value), "lease", id);
}

long long rn_etcd_int64(json_t *v)
{
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_string(v))
		return strtoll(json_string_value(v), NULL, 10);
	return 0;
}

json_t *rn_etcd_op_delete(const char *key, const char *range_end)
{
	json_t *d = json_object();

	json_object_set_new(d, "key", b64(key));
	if (range_end)
		json_object_set_new(d, "range_end", b64(range_end));
	return json_pack("{s:o}", "request_delete_range", d);
}

json_t *rn_etcd_range_body(const char *key, const char *range_end, long long limit,
			   bool keys_only, bool count_only)
{
	return range_request(key, range_end, limit, keys_only, count_only);
}

char *rn_etcd_prefix_end(const char *prefix)
{
	char *end = strdup(prefix);
	size_t n = strlen(prefix);

	/* prefixes here end in '/': bumping the last byte never overflows */
	if (end && n)
		end[n - 1]++;
	return end;
}

/* int64 fields come as strings; accept integers too. Absent: 0. */
static int get_int64(json_t *obj, const char *key, long long *out)
{
	json_t *v = json_object_get(obj, key);
	char *end;

	*out = 0;
	if (!v)
		return 0;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (!json_is_string(v) || !json_string_length(v))
		return -EINVAL;
	errno = 0;
	*out = strtoll(json_string_value(v), &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int get_bytes(json_t *obj, const char *key, char **out, size_t *len)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	*len = 0;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return -EINVAL;
	*out = rn_base64_decode(json_string_value(v), len);
	return *out ? 0 : -EINVAL;
}

void rn_etcd_range_free(struct rn_etcd_range *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->kvs[i].key);
		free(r->kvs[i].value);
	}
	free(r->kvs);
	memset(r, 0, sizeof(*r));
}

int rn_etcd_parse_range(json_t *resp, struct rn_etcd_range *out, struct rn_error *e)
{
	json_t *kvs = json_object_get(resp, "kvs"), *kv;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!json_is_object(resp))
		return rn_fail(e, -EIO, "etcd: range answer is not an object");
	if (get_int64(resp, "count", &out->count) ||
	    get_int64(json_object_get(resp, "header"), "revision", &out->revision))
		return rn_fail(e, -EIO, "etcd: range answer: malformed count or revision");
	out->more = json_is_true(json_object_get(resp, "more"));
	if (!kvs)
		return 0;
	if (!json_is_array(kvs))
		return rn_fail(e, -EIO, "etcd: range answer: kvs is not an array");
	out->kvs = calloc(json_array_size(kvs) + 1, sizeof(*out->kvs));
	if (!out->kvs)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	json_array_foreach(kvs, i, kv) {
		struct rn_etcd_kv *k = &out->kvs[i];

		if (!json_is_object(kv) || get_bytes(kv, "key", &k->key, &k->key_len) || !k->key ||
		    get_bytes(kv, "value", &k->value, &k->value_len) ||
		    get_int64(kv, "create_revision", &k->create_revision) ||
		    get_int64(kv, "mod_revision", &k->mod_revision)) {
			out->n = i + 1;
			rn_etcd_range_free(out);
			return rn_fail(e, -EIO, "etcd: range answer: malformed kvs[%zu]", i);
		}
		out->n = i + 1;
	}
	return 0;
}

int rn_etcd_parse_txn(json_t *resp, bool *succeeded, struct rn_etcd_range *results,
		      size_t n_results, struct rn_error *e)
{
	json_t *responses = json_object_get(resp, "responses"), *r;
	size_t i;

	for (i = 0; i < n_results; i++)
		memset(&results[i], 0, sizeof(results[i]));
	if (!json_is_object(resp))
		return rn_fail(e, -EIO, "etcd: txn answer is not an object");
	*succeeded = json_is_true(json_object_get(resp, "succeeded"));
	if (responses && !json_is_array(responses))
		return rn_fail(e, -EIO, "etcd: txn answer: responses is not an array");
	json_array_foreach(responses, i, r) {
		json_t *range = json_object_get(r, "response_range");

		if (i >= n_results || !range)
			continue;
		if (rn_etcd_parse_range(range, &results[i], e)) {
			for (size_t j = 0; j < i; j++)
				rn_etcd_range_free(&results[j]);
			return e ? e->code : -EIO;
		}
	}
	return 0;
}

long long rn_etcd_header_revision(json_t *resp)
{
	long long rev;

	return get_int64(json_object_get(resp, "header"), "revision", &rev) ? 0 : rev;
}

bool rn_etcd_error_is_transient(json_t *resp)
{
	static const char *const transient[] = { "leader", "timed out", "timeout",
						 "too many requests", "stopped", "unhealthy",
						 "unavailable", "not capable", NULL };
	const char *msg = json_string_value(json_object_get(resp, "error"));
	json_int_t code = json_integer_value(json_object_get(resp, "code"));

	/* gRPC codes: 4 deadline exceeded, 8 resource exhausted, 14 unavailable */
	if (code == 4 || code == 8 || code == 14)
		return true;
	for (int i = 0; msg && transient[i]; i++)
		if (strstr(msg, transient[i]))
			return true;
	return false;
}
