// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanet: the CNI plugin for shared-mode RoCE attachments. A runtime
 * execs it with CNI_* in the environment and the network configuration on
 * stdin; it answers with one JSON document on stdout (a result, a version
 * list or an error object) and logs on stderr (RDMANET_CNI_LOG=debug|info|
 * warn|error, default warn). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cni_io.h"
#include "cni_version.h"
#include "log.h"
#include "version.h"

static const char *env_get(const char *name)
{
	return getenv(name);
}

static void log_setup(void)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	const char *v = getenv("RDMANET_CNI_LOG");
	enum rn_log_level level = RN_LOG_WARN;

	for (int i = 0; v && i < 4; i++)
		if (!strcmp(v, names[i]))
			level = (enum rn_log_level)i;
	rn_log_init("rdmanet", level);
}

/* The error object speaks the config's version when there is one to read. */
static const char *error_version(const char *text, size_t len, json_t **keep)
{
	json_t *o = json_loadb(text, len, 0, NULL);
	const char *v = json_string_value(json_object_get(o, "cniVersion"));

	*keep = o;
	return v ? v : CNI_VERSION_LATEST;
}

static int fail(const struct cni_err *err, const char *text, size_t len)
{
	json_t *keep = NULL;
	const char *v = error_version(text ? text : "", text ? len : 0, &keep);

	rn_err("%s", err->msg);
	cni_print(cni_err_json(err, v));
	json_decref(keep);
	return 1;
}

static int version(const char *text, size_t len)
{
	json_t *keep = NULL;
	const char *v = error_version(text, len, &keep);

	cni_print(cni_version_result(v));
	json_decref(keep);
	return 0;
}

static int run(struct cni_req *r)
{
	json_t *result = NULL;

	switch (r->env.cmd) {
	case CNI_CMD_ADD:
		if (cni_cmd_add(r, &result))
			return -1;
		if (cni_print(result))
			return cni_fail(&r->err, CNI_ERR_IO, "stdout: write failed");
		return 0;
	case CNI_CMD_DEL:
		return cni_cmd_del(r);
	case CNI_CMD_CHECK:
		return cni_cmd_check(r);
	case CNI_CMD_GC:
		return cni_cmd_gc(r);
	case CNI_CMD_STATUS:
		return cni_cmd_status(r);
	default:
		return cni_fail(&r->err, CNI_ERR_ENV, "CNI_COMMAND: %s", r->env.command);
	}
}

/* Run by hand (no CNI_COMMAND), the plugin says what it is, as the
 * reference plugins do, without reading stdin. */
static bool about(void)
{
	const char *cmd = getenv("CNI_COMMAND");

	if (cmd && *cmd)
		return false;
	fprintf(stderr, "CNI rdmanet plugin %s (commit %s)\n"
		"CNI protocol versions supported:", rn_version, rn_commit);
	for (int v = 0; v < CNI_N_VERSIONS; v++)
		fprintf(stderr, "%s %s", v ? "," : "", cni_version_names[v]);
	fputc('\n', stderr);
	return true;
}

int main(void)
{
	static struct cni_req r;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (about())
		return 0;
	log_setup();
	if (cni_read_all(stdin, &text, &len, &r.err))
		return fail(&r.err, NULL, 0);
	if (cni_env_read(&r.env, env_get, &r.err)) {
		rc = fail(&r.err, text, len);
		goto out;
	}
	if (r.env.cmd == CNI_CMD_VERSION) {
		rc = version(text, len);
		goto out;
	}
	r.stdin_text = text;
	r.stdin_len = len;
	if (cni_netconf_parse(&r.conf, text, len, &r.err) || run(&r)) {
		rc = fail(&r.err, text, len);
		goto out;
	}
	rc = 0;
out:
	cni_netconf_free(&r.conf);
	free(text);
	return rc;
}
