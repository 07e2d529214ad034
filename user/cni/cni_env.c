// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cni_env.h"

static const struct {
	const char *name;
	enum cni_cmd cmd;
} commands[] = {
	{ "ADD", CNI_CMD_ADD }, { "DEL", CNI_CMD_DEL }, { "CHECK", CNI_CMD_CHECK },
	{ "VERSION", CNI_CMD_VERSION }, { "STATUS", CNI_CMD_STATUS }, { "GC", CNI_CMD_GC },
};

int cni_check_container_id(const char *id, const char *what, struct cni_err *err)
{
	size_t n = strlen(id);

	if (!n)
		return cni_fail(err, CNI_ERR_ENV, "%s: must not be empty", what);
	if (n >= RN_CONTAINER_ID_LEN)
		return cni_fail(err, CNI_ERR_ENV, "%s: longer than %d characters", what,
				RN_CONTAINER_ID_LEN - 1);
	if (!isalnum((unsigned char)id[0]))
		return cni_fail(err, CNI_ERR_ENV, "%s: \"%s\" must start with a letter or digit",
				what, id);
	for (size_t i = 1; i < n; i++) {
		unsigned char c = (unsigned char)id[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-')
			return cni_fail(err, CNI_ERR_ENV, "%s: \"%s\" has a character other than "
					"letters, digits, '_', '.' and '-'", what, id);
	}
	return 0;
}

int cni_check_ifname(const char *name, const char *what, struct cni_err *err)
{
	size_t n = strlen(name);

	if (!n)
		return cni_fail(err, CNI_ERR_ENV, "%s: must not be empty", what);
	if (n >= RN_IFNAMSIZ)
		return cni_fail(err, CNI_ERR_ENV, "%s: \"%s\" is longer than %d characters", what,
				name, RN_IFNAMSIZ - 1);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return cni_fail(err, CNI_ERR_ENV, "%s: \"%s\" is not an interface name", what,
				name);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '/' || c == ':' || isspace(c) || !isprint(c))
			return cni_fail(err, CNI_ERR_ENV, "%s: \"%s\" contains '/', ':', "
					"whitespace or a control character", what, name);
	}
	return 0;
}

static int copy_value(char *dst, size_t size, const char *v, size_t len, const char *key,
		      struct cni_err *err)
{
	if (len >= size)
		return cni_fail(err, CNI_ERR_ENV, "CNI_ARGS: %s is longer than %zu characters",
				key, size - 1);
	memcpy(dst, v, len);
	dst[len] = '\0';
	return 0;
}

int cni_args_parse(const char *args, struct cni_env *env, struct cni_err *err)
{
	const char *p = args;

	while (p && *p) {
		const char *end = strchr(p, ';'), *eq;
		size_t len = end ? (size_t)(end - p) : strlen(p), klen;

		eq = memchr(p, '=', len);
		if (len && !eq)
			return cni_fail(err, CNI_ERR_ENV, "CNI_ARGS: \"%.*s\" is not KEY=VALUE",
					(int)len, p);
		if (len) {
			klen = (size_t)(eq - p);
			if (!klen)
				return cni_fail(err, CNI_ERR_ENV, "CNI_ARGS: \"%.*s\" has no key",
						(int)len, p);
			if (klen == 17 && !strncmp(p, "K8S_POD_NAMESPACE", klen) &&
			    copy_value(env->pod_namespace, sizeof(env->pod_namespace), eq + 1,
				       len - klen - 1, "K8S_POD_NAMESPACE", err))
				return -1;
			if (klen == 12 && !strncmp(p, "K8S_POD_NAME", klen) &&
			    copy_value(env->pod_name, sizeof(env->pod_name), eq + 1,
				       len - klen - 1, "K8S_POD_NAME", err))
				return -1;
			if (klen == 11 && !strncmp(p, "K8S_POD_UID", klen) &&
			    copy_value(env->pod_uid, sizeof(env->pod_uid), eq + 1,
				       len - klen - 1, "K8S_POD_UID", err))
				return -1;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

static int need(const char *(*get)(const char *), const char *name, char *out, size_t size,
		struct cni_err *err)
{
	const char *v = get(name);

	if (!v || !*v)
		return cni_fail(err, CNI_ERR_ENV, "%s: required for this command but not set",
				name);
	if (strlen(v) >= size)
		return cni_fail(err, CNI_ERR_ENV, "%s: longer than %zu characters", name, size - 1);
	memcpy(out, v, strlen(v) + 1);
	return 0;
}

static int check_netns(const char *path, struct cni_err *err)
{
	if (path[0] != '/')
		return cni_fail(err, CNI_ERR_ENV, "CNI_NETNS: \"%s\" is not an absolute path",
				path);
	return 0;
}

int cni_env_read(struct cni_env *env, const char *(*get)(const char *), struct cni_err *err)
{
	const char *cmd = get("CNI_COMMAND"), *netns;
	bool known = false;

	memset(env, 0, sizeof(*env));
	if (!cmd || !*cmd)
		return cni_fail(err, CNI_ERR_ENV, "CNI_COMMAND: not set");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(cmd, commands[i].name)) {
			env->cmd = commands[i].cmd;
			known = true;
		}
	}
	if (!known)
		return cni_fail(err, CNI_ERR_ENV, "CNI_COMMAND: \"%s\" is not one of ADD, DEL, "
				"CHECK, VERSION, STATUS, GC", cmd);
	env->command = cmd;
	env->path = get("CNI_PATH");
	if (env->cmd == CNI_CMD_VERSION)
		return 0;
	/* the node config, as the runtime's environment names it */
	if (get("RDMANET_CONFIG") && *get("RDMANET_CONFIG")) {
		if (need(get, "RDMANET_CONFIG", env->node_config, sizeof(env->node_config), err))
			return -1;
		if (env->node_config[0] != '/')
			return cni_fail(err, CNI_ERR_ENV, "RDMANET_CONFIG: \"%s\" is not an absolute "
					"path", env->node_config);
	}
	if (env->cmd == CNI_CMD_STATUS)
		return 0;
	if (env->cmd == CNI_CMD_GC) {
		if (!env->path || !*env->path)
			return cni_fail(err, CNI_ERR_ENV, "CNI_PATH: required for GC but not set");
		return 0;
	}
	if (need(get, "CNI_CONTAINERID", env->container_id, sizeof(env->container_id), err) ||
	    cni_check_container_id(env->container_id, "CNI_CONTAINERID", err) ||
	    need(get, "CNI_IFNAME", env->ifname, sizeof(env->ifname), err) ||
	    cni_check_ifname(env->ifname, "CNI_IFNAME", err))
		return -1;
	netns = get("CNI_NETNS");
	if (env->cmd == CNI_CMD_DEL) {
		/* DEL may come without a netns (the pod is gone): clean up what we can */
		if (netns && *netns) {
			if (strlen(netns) >= sizeof(env->netns))
				return cni_fail(err, CNI_ERR_ENV, "CNI_NETNS: path too long");
			strcpy(env->netns, netns);
			if (check_netns(env->netns, err))
				return -1;
		}
	} else if (need(get, "CNI_NETNS", env->netns, sizeof(env->netns), err) ||
		   check_netns(env->netns, err)) {
		return -1;
	}
	return cni_args_parse(get("CNI_ARGS"), env, err);
}
