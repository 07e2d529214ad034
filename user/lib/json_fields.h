/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Typed, validated reads of JSON object fields (jansson), with errors that
 * name the field: "config: masters[0].policy: expected one of off|monitor|enforce". */
#ifndef RDMANET_JSON_FIELDS_H
#define RDMANET_JSON_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "error.h"

/* Fails on the first key of obj not in the NULL-terminated allowed list. */
int rn_json_only_keys(json_t *obj, const char *const allowed[], const char *where,
		      struct rn_error *e);

/* Each getter leaves *out untouched when the key is absent (the default),
 * and fails when it is present with the wrong type or out of range. */
int rn_json_string(json_t *obj, const char *key, char *out, size_t size,
		   const char *where, struct rn_error *e);
int rn_json_int(json_t *obj, const char *key, long long min, long long max,
		long long *out, const char *where, struct rn_error *e);
int rn_json_bool(json_t *obj, const char *key, bool *out, const char *where,
		 struct rn_error *e);
/* A string that must be one of names[0..n-1]; *out is the index. */
int rn_json_enum(json_t *obj, const char *key, const char *const names[], int n,
		 int *out, const char *where, struct rn_error *e);
/* The value under key if it is of the wanted type (JSON_OBJECT, JSON_ARRAY),
 * NULL if absent; fails on a wrong type. */
int rn_json_typed(json_t *obj, const char *key, json_type type, json_t **out,
		  const char *where, struct rn_error *e);

#endif
