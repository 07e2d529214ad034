/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to kubeapi/: a YAML document (a kubeconfig; JSON is YAML too) as
 * a jansson value. Mappings become objects, sequences arrays, every scalar
 * a string: the reader of each field decides what it means. */
#ifndef RDMANET_KUBEAPI_YAML_JSON_H
#define RDMANET_KUBEAPI_YAML_JSON_H

#include <stddef.h>
#include <jansson.h>

#include "error.h"

/* The first document of text; NULL with e set ("what: line L column C:
 * problem") on a syntax error, an empty text, or past the bounds on depth
 * and size (aliases count once per use). */
json_t *rn_yaml_to_json(const char *what, const char *text, size_t len, struct rn_error *e);

#endif
