// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>

#include "config.h"
#include "json_fields.h"
#include "maps/map_sizes.h"

const char *const rn_policy_names[3] = { "off", "monitor", "enforce" };
const char *const rn_ecn_names[3] = { "off", "ect0", "ect1" };
const char *const rn_xdp_mode_names[4] = { "auto", "native", "skb", "off" };
const char *const rn_tc_mode_names[3] = { "auto", "tcx", "clsact" };
const char *const rn_deployment_names[2] = { "node", "cluster" };

void rn_config_defaults(struct rn_config *c)
{
	const char *env = getenv(RN_NODE_NAME_ENV);

	memset(c, 0, sizeof(*c));
	if (env && env[0] && strlen(env) < sizeof(c->node)) {
		snprintf(c->node, sizeof(c->node), "%s", env);
		c->node_source = RN_NODE_ENV;
	} else if (gethostname(c->node, sizeof(c->node) - 1)) {
		strcpy(c->node, "localhost");
	}
	c->default_policy = RN_POLICY_MONITOR;
	c->qos.roce_dscp = RN_DEFAULT_ROCE_DSCP;
	c->qos.cnp_dscp = RN_DEFAULT_CNP_DSCP;
	c->qos.ecn = RN_ECN_ECT0;
	snprintf(c->textfile.dir, sizeof(c->textfile.dir), "%s", RN_DEFAULT_TEXTFILE_DIR);
	c->textfile.interval_s = 15;
	snprintf(c->bpf.pin_dir, sizeof(c->bpf.pin_dir), "%s", RN_DEFAULT_PIN_DIR);
	c->bpf.max_pods = RN_DEFAULT_MAX_PODS;
	snprintf(c->cni.state_dir, sizeof(c->cni.state_dir), "%s", RN_DEFAULT_CNI_STATE_DIR);
	c->cni.allowed_dscp = 1ULL << c->qos.roce_dscp;
}

void rn_config_free(struct rn_config *c)
{
	free(c->masters);
	json_decref(c->root);
	rn_config_defaults(c);
}

static int parse_masters(struct rn_config *c, json_t *arr, struct rn_error *e)
{
	static const char *const keys[] = { "ifname", "policy", "xdp_mode", "tc_mode", NULL };
	size_t i;
	json_t *m;

	if (json_array_size(arr) > RN_MAX_MASTERS)
		return rn_fail(e, -EINVAL, "config: masters: more than %d entries", RN_MAX_MASTERS);
	c->masters = calloc(json_array_size(arr) + 1, sizeof(*c->masters));
	if (!c->masters)
		return rn_fail(e, -ENOMEM, "config: out of memory");
	json_array_foreach(arr, i, m) {
		struct rn_master_config *mc = &c->masters[i];
		char where[48];
		int v;

		snprintf(where, sizeof(where), "config: masters[%zu]", i);
		if (!json_is_object(m))
			return rn_fail(e, -EINVAL, "%s: expected an object", where);
		if (rn_json_only_keys(m, keys, where, e) ||
		    rn_json_string(m, "ifname", mc->ifname, sizeof(mc->ifname), where, e))
			return -EINVAL;
		if (!mc->ifname[0])
			return rn_fail(e, -EINVAL, "%s.ifname: required", where);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(c->masters[j].ifname, mc->ifname))
				return rn_fail(e, -EINVAL, "%s.ifname: \"%s\" listed twice", where,
					       mc->ifname);
		v = c->default_policy;
		if (rn_json_enum(m, "policy", rn_policy_names, 3, &v, where, e))
			return -EINVAL;
		mc->policy = v;
		v = RN_XDP_MODE_AUTO;
		if (rn_json_enum(m, "xdp_mode", rn_xdp_mode_names, 4, &v, where, e))
			return -EINVAL;
		mc->xdp_mode = v;
		v = RN_TC_MODE_AUTO;
		if (rn_json_enum(m, "tc_mode", rn_tc_mode_names, 3, &v, where, e))
			return -EINVAL;
		mc->tc_mode = v;
		c->n_masters++;
	}
	return 0;
}

static int parse_qos(struct rn_config *c, json_t *q, struct rn_error *e)
{
	static const char *const keys[] = { "roce_dscp", "cnp_dscp", "ecn", NULL };
	long long v;
	int ecn = c->qos.ecn;

	if (rn_json_only_keys(q, keys, "config: qos", e))
		return -EINVAL;
	v = c->qos.roce_dscp;
	if (rn_json_int(q, "roce_dscp", 0, RN_DSCP_MAX, &v, "config: qos", e))
		return -EINVAL;
	c->qos.roce_dscp = (int)v;
	v = c->qos.cnp_dscp;
	if (rn_json_int(q, "cnp_dscp", 0, RN_DSCP_MAX, &v, "config: qos", e))
		return -EINVAL;
	c->qos.cnp_dscp = (int)v;
	if (rn_json_enum(q, "ecn", rn_ecn_names, 3, &ecn, "config: qos", e))
		return -EINVAL;
	c->qos.ecn = ecn;
	return 0;
}

static int parse_textfile(struct rn_config *c, json_t *t, struct rn_error *e)
{
	static const char *const keys[] = { "dir", "interval_s", NULL };
	long long v = c->textfile.interval_s;

	if (rn_json_only_keys(t, keys, "config: textfile", e) ||
	    rn_json_string(t, "dir", c->textfile.dir, sizeof(c->textfile.dir),
			   "config: textfile", e) ||
	    rn_json_int(t, "interval_s", 0, 86400, &v, "config: textfile", e))
		return -EINVAL;
	c->textfile.interval_s = (int)v;
	return 0;
}

static int parse_bpf(struct rn_config *c, json_t *b, struct rn_error *e)
{
	static const char *const keys[] = { "pin_dir", "max_pods", NULL };
	long long v = c->bpf.max_pods;

	if (rn_json_only_keys(b, keys, "config: bpf", e) ||
	    rn_json_string(b, "pin_dir", c->bpf.pin_dir, sizeof(c->bpf.pin_dir),
			   "config: bpf", e) ||
	    rn_json_int(b, "max_pods", 16, RN_MAX_PODS_LIMIT, &v, "config: bpf", e))
		return -EINVAL;
	if (c->bpf.pin_dir[0] != '/')
		return rn_fail(e, -EINVAL, "config: bpf.pin_dir: must be an absolute path");
	c->bpf.max_pods = (unsigned int)v;
	return 0;
}

/* A network may carry data in the classes listed here; CNP's class is
 * never one of them (congestion notifications would queue behind data, or
 * data would be taken for them). */
static int parse_cni(struct rn_config *c, json_t *n, struct rn_error *e)
{
	static const char *const keys[] = { "state_dir", "allowed_dscp", NULL };
	json_t *list, *v;
	size_t i;

	if (n && (rn_json_only_keys(n, keys, "config: cni", e) ||
		  rn_json_string(n, "state_dir", c->cni.state_dir, sizeof(c->cni.state_dir),
				 "config: cni", e) ||
		  rn_json_typed(n, "allowed_dscp", JSON_ARRAY, &list, "config: cni", e)))
		return -EINVAL;
	if (c->cni.state_dir[0] != '/')
		return rn_fail(e, -EINVAL, "config: cni.state_dir: must be an absolute path");
	if (!n || !list) {
		c->cni.allowed_dscp = 1ULL << c->qos.roce_dscp;
		return 0;
	}
	c->cni.allowed_dscp = 0;
	json_array_foreach(list, i, v) {
		long long d = json_integer_value(v);

		if (!json_is_integer(v) || d < 0 || d > RN_DSCP_MAX)
			return rn_fail(e, -EINVAL, "config: cni.allowed_dscp[%zu]: expected a DSCP "
				       "value 0..%d", i, RN_DSCP_MAX);
		if (d == c->qos.cnp_dscp)
			return rn_fail(e, -EINVAL, "config: cni.allowed_dscp[%zu]: %lld is the CNP "
				       "class (qos.cnp_dscp): networks may not send data in it",
				       i, d);
		c->cni.allowed_dscp |= 1ULL << d;
	}
	return 0;
}

const char *rn_dscp_set_format(uint64_t mask, char *buf, size_t size)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int d = 0; d <= RN_DSCP_MAX && off < size; d++)
		if (mask & (1ULL << d))
			off += (size_t)snprintf(buf + off, size - off, "%s%d", off ? ", " : "", d);
	if (!mask)
		snprintf(buf, size, "none");
	return buf;
}

/* The core's own keys; every other top-level key is a module's section
 * (rn_config_sections). */
static const char *const core_keys[] = { "node", "masters", "default_policy", "qos",
					 "textfile", "bpf", "cni", "deployment", NULL };

static const struct rn_config_section *section(const char *key)
{
	for (const struct rn_config_section *s = rn_config_sections; s->key || s->check; s++)
		if (s->key && !strcmp(s->key, key))
			return s;
	return NULL;
}

static int only_known_keys(json_t *root, struct rn_error *e)
{
	const char *key;
	json_t *val;

	json_object_foreach(root, key, val) {
		bool ok = section(key) != NULL;

		for (int i = 0; !ok && core_keys[i]; i++)
			ok = !strcmp(key, core_keys[i]);
		if (!ok)
			return rn_fail(e, -EINVAL, "config: unknown key \"%s\"", key);
	}
	return 0;
}

/* Each section's JSON type, then (after the core's keys are parsed: a
 * check may read them) each section's check, in table order. */
static int sections_typed(struct rn_config *c, json_t *root, struct rn_error *e)
{
	for (const struct rn_config_section *s = rn_config_sections; s->key || s->check; s++) {
		json_t *v, **slot = s->field ? (json_t **)((char *)c + s->field) : &v;

		if (s->key && rn_json_typed(root, s->key, s->type, slot, "config", e))
			return -EINVAL;
	}
	return 0;
}

static int sections_checked(const struct rn_config *c, struct rn_error *e)
{
	for (const struct rn_config_section *s = rn_config_sections; s->key || s->check; s++)
		if (s->check && s->check(c, e))
			return -EINVAL;
	return 0;
}

json_t *rn_config_section(const struct rn_config *c, const char *key)
{
	json_t *v = c->root ? json_object_get(c->root, key) : NULL;

	return v && !json_is_null(v) ? v : NULL;
}

int rn_config_from_json(struct rn_config *c, json_t *root, struct rn_error *e)
{
	json_t *masters, *qos, *textfile, *bpf, *cni;
	int pol, deployment = 0, err;

	rn_config_defaults(c);
	if (!json_is_object(root))
		return rn_fail(e, -EINVAL, "config: expected a JSON object at the top level");
	pol = c->default_policy;
	if (only_known_keys(root, e) ||
	    rn_json_string(root, "node", c->node, sizeof(c->node), "config", e) ||
	    rn_json_enum(root, "default_policy", rn_policy_names, 3, &pol, "config", e) ||
	    rn_json_enum(root, "deployment", rn_deployment_names, 2, &deployment, "config", e) ||
	    rn_json_typed(root, "masters", JSON_ARRAY, &masters, "config", e) ||
	    rn_json_typed(root, "qos", JSON_OBJECT, &qos, "config", e) ||
	    rn_json_typed(root, "textfile", JSON_OBJECT, &textfile, "config", e) ||
	    rn_json_typed(root, "bpf", JSON_OBJECT, &bpf, "config", e) ||
	    rn_json_typed(root, "cni", JSON_OBJECT, &cni, "config", e) ||
	    sections_typed(c, root, e))
		goto fail;
	c->default_policy = pol;
	c->cluster = deployment == 1;
	if (json_object_get(root, "node"))
		c->node_source = RN_NODE_CONFIG;
	err = (masters && parse_masters(c, masters, e)) ||
	      (qos && parse_qos(c, qos, e)) ||
	      (textfile && parse_textfile(c, textfile, e)) ||
	      (bpf && parse_bpf(c, bpf, e)) || parse_cni(c, cni, e);
	if (err)
		goto fail;
	/* the checks may ask rn_config_section(), which reads the root */
	c->root = json_incref(root);
	if (sections_checked(c, e)) {
		json_decref(c->root);
		goto fail;
	}
	return 0;
fail:
	free(c->masters);
	rn_config_defaults(c);
	return e ? e->code : -EINVAL;
}

int rn_config_parse(struct rn_config *c, const char *text, struct rn_error *e)
{
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	int err;

	if (!root) {
		rn_config_defaults(c);
		return rn_fail(e, -EINVAL, "config: line %d column %d: %s", jerr.line,
			       jerr.column, jerr.text);
	}
	err = rn_config_from_json(c, root, e);
	json_decref(root);
	return err;
}

int rn_config_load(struct rn_config *c, const char *path, struct rn_error *e)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int err;

	if (!root) {
		rn_config_defaults(c);
		if (jerr.line < 1)
			return rn_fail(e, -ENOENT, "%s: %s", path, jerr.text);
		return rn_fail(e, -EINVAL, "%s: line %d column %d: %s", path, jerr.line,
			       jerr.column, jerr.text);
	}
	err = rn_config_from_json(c, root, e);
	json_decref(root);
	if (err)
		rn_fail_wrap(e, "%s", path);
	return err;
}

const struct rn_master_config *rn_config_master(const struct rn_config *c, const char *ifname)
{
	for (int i = 0; i < c->n_masters; i++)
		if (!strcmp(c->masters[i].ifname, ifname))
			return &c->masters[i];
	return NULL;
}
