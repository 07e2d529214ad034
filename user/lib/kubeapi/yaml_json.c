// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <yaml.h>

#include "kubeapi/yaml_json.h"

/* deep and large enough for any kubeconfig; they bound the recursion and
 * the expansion of aliases (one node referenced from many places: the
 * "billion laughs") on hostile input */
#define YAML_DEPTH_MAX 32
#define YAML_NODES_MAX 100000

static json_t *node_to_json(yaml_document_t *doc, yaml_node_t *node, int depth, size_t *budget)
{
	json_t *v = NULL;

	if (!node || depth > YAML_DEPTH_MAX || !*budget)
		return NULL;
	--*budget;
	switch (node->type) {
	case YAML_SCALAR_NODE:
		return json_stringn((const char *)node->data.scalar.value, node->data.scalar.length);
	case YAML_SEQUENCE_NODE:
		v = json_array();
		for (yaml_node_item_t *i = node->data.sequence.items.start;
		     v && i < node->data.sequence.items.top; i++) {
			json_t *item = node_to_json(doc, yaml_document_get_node(doc, *i), depth + 1, budget);

			if (!item || json_array_append_new(v, item)) {
				json_decref(v);
				return NULL;
			}
		}
		return v;
	case YAML_MAPPING_NODE:
		v = json_object();
		for (yaml_node_pair_t *p = node->data.mapping.pairs.start;
		     v && p < node->data.mapping.pairs.top; p++) {
			yaml_node_t *key = yaml_document_get_node(doc, p->key);
			json_t *val;

			if (!key || key->type != YAML_SCALAR_NODE) {
				json_decref(v);
				return NULL;
			}
			val = node_to_json(doc, yaml_document_get_node(doc, p->value), depth + 1, budget);
			if (!val || json_object_setn_new(v, (const char *)key->data.scalar.value,
							 key->data.scalar.length, val)) {
				json_decref(v);
				return NULL;
			}
		}
		return v;
	default:
		return NULL;
	}
}

json_t *rn_yaml_to_json(const char *what, const char *text, size_t len, struct rn_error *e)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	size_t budget = YAML_NODES_MAX;
	json_t *v = NULL;

	if (!yaml_parser_initialize(&parser)) {
		rn_fail(e, -ENOMEM, "%s: out of memory", what);
		return NULL;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		if (parser.context)
			rn_fail(e, -EINVAL, "%s: line %zu column %zu: %s (%s at line %zu)", what,
				parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				parser.problem ? parser.problem : "not YAML", parser.context,
				parser.context_mark.line + 1);
		else
			rn_fail(e, -EINVAL, "%s: line %zu column %zu: %s", what,
				parser.problem_mark.line + 1, parser.problem_mark.column + 1,
				parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return NULL;
	}
	if (!yaml_document_get_root_node(&doc))
		rn_fail(e, -EINVAL, "%s: empty", what);
	else if (!(v = node_to_json(&doc, yaml_document_get_root_node(&doc), 0, &budget)))
		rn_fail(e, -EINVAL,
			"%s: nested deeper than %d levels, more than %d values (aliases expanded), or a key that is not a scalar",
			what, YAML_DEPTH_MAX, YAML_NODES_MAX);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return v;
}
