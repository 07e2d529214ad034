// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "json_fields.h"

static const char *type_name(json_type t)
{
	switch (t) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int rn_json_only_keys(json_t *obj, const char *const allowed[], const char *where,
		      struct rn_error *e)
{
	const char *key;
	json_t *val;

	json_object_foreach(obj, key, val) {
		bool ok = false;

		for (int i = 0; allowed[i]; i++)
			if (!strcmp(key, allowed[i]))
				ok = true;
		if (!ok)
			return rn_fail(e, -EINVAL, "%s: unknown key \"%s\"", where, key);
	}
	return 0;
}

static json_t *present(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return v && !json_is_null(v) ? v : NULL;
}

int rn_json_string(json_t *obj, const char *key, char *out, size_t size,
		   const char *where, struct rn_error *e)
{
	json_t *v = present(obj, key);
	const char *s;

	if (!v)
		return 0;
	if (!json_is_string(v))
		return rn_fail(e, -EINVAL, "%s.%s: expected a string, got %s", where, key,
			       type_name(json_typeof(v)));
	s = json_string_value(v);
	if (strlen(s) >= size)
		return rn_fail(e, -EINVAL, "%s.%s: longer than %zu characters", where, key,
			       size - 1);
	memcpy(out, s, strlen(s) + 1);
	return 0;
}

int rn_json_int(json_t *obj, const char *key, long long min, long long max,
		long long *out, const char *where, struct rn_error *e)
{
	json_t *v = present(obj, key);
	long long n;

	if (!v)
		return 0;
	if (!json_is_integer(v))
		return rn_fail(e, -EINVAL, "%s.%s: expected an integer, got %s", where, key,
			       type_name(json_typeof(v)));
	n = json_integer_value(v);
	if (n < min || n > max)
		return rn_fail(e, -EINVAL, "%s.%s: %lld is outside %lld..%lld", where, key,
			       n, min, max);
	*out = n;
	return 0;
}

int rn_json_bool(json_t *obj, const char *key, bool *out, const char *where,
		 struct rn_error *e)
{
	json_t *v = present(obj, key);

	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return rn_fail(e, -EINVAL, "%s.%s: expected a boolean, got %s", where, key,
			       type_name(json_typeof(v)));
	*out = json_is_true(v);
	return 0;
}

int rn_json_enum(json_t *obj, const char *key, const char *const names[], int n,
		 int *out, const char *where, struct rn_error *e)
{
	json_t *v = present(obj, key);
	char list[256] = "";

	if (!v)
		return 0;
	if (json_is_string(v)) {
		for (int i = 0; i < n; i++) {
			if (!strcmp(json_string_value(v), names[i])) {
				*out = i;
				return 0;
			}
		}
	}
	for (int i = 0; i < n; i++) {
		if (i)
			strncat(list, "|", sizeof(list) - strlen(list) - 1);
		strncat(list, names[i], sizeof(list) - strlen(list) - 1);
	}
	return rn_fail(e, -EINVAL, "%s.%s: expected one of %s", where, key, list);
}

int rn_json_typed(json_t *obj, const char *key, json_type type, json_t **out,
		  const char *where, struct rn_error *e)
{
	json_t *v = present(obj, key);

	*out = NULL;
	if (!v)
		return 0;
	if (json_typeof(v) != type)
		return rn_fail(e, -EINVAL, "%s.%s: expected %s, got %s", where, key,
			       type_name(type), type_name(json_typeof(v)));
	*out = v;
	return 0;
}
