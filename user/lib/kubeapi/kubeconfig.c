// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A kubeconfig file, read as kubectl reads it: the context (given, or
 * current-context) names a cluster and a user; relative file paths are
 * relative to the kubeconfig's directory; inline *-data is base64. Exec
 * and auth-provider credential plugins are not run: refused by name. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"
#include "kubeapi/kube_conn.h"
#include "kubeapi/yaml_json.h"
#include "read_file.h"

#define KUBECONFIG_MAX (1 << 20)

/* the "name"d entry of a list such as clusters:, its inner object */
static json_t *named(json_t *root, const char *list, const char *inner, const char *name)
{
	json_t *arr = json_object_get(root, list), *item;
	size_t i;

	json_array_foreach(arr, i, item) {
		const char *n = json_string_value(json_object_get(item, "name"));

		if (n && !strcmp(n, name))
			return json_object_get(item, inner);
	}
	return NULL;
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s && *s ? s : NULL;
}

/* a file path from the kubeconfig: absolute as is, relative to its dir */
static int set_path(char *dst, size_t size, const char *dir, const char *p, const char *what,
		    struct rn_error *e)
{
	int n = p[0] == '/' ? snprintf(dst, size, "%s", p) : snprintf(dst, size, "%s/%s", dir, p);

	if (n < 0 || (size_t)n >= size)
		return rn_fail(e, -ENAMETOOLONG, "kubeconfig: %s path too long", what);
	return 0;
}

/* field (a file) or field-data (base64) into pem */
static int set_pem(struct rn_kube_pem *pem, json_t *obj, const char *field, const char *dir,
		   struct rn_error *e)
{
	char data_key[64];
	const char *file = str(obj, field), *data;

	snprintf(data_key, sizeof(data_key), "%s-data", field);
	data = str(obj, data_key);
	if (data) {
		pem->data = rn_base64_decode(data, &pem->len);
		if (!pem->data)
			return rn_fail(e, -EINVAL, "kubeconfig: %s is not valid base64", data_key);
		return 0;
	}
	return file ? set_path(pem->file, sizeof(pem->file), dir, file, field, e) : 0;
}

static int load_cluster(struct rn_kube *k, json_t *cluster, const char *name, const char *dir,
			struct rn_error *e)
{
	const char *server = str(cluster, "server"), *insecure;
	size_t n;

	if (!server)
		return rn_fail(e, -EINVAL, "kubeconfig: cluster \"%s\" has no server", name);
	n = strlen(server);
	while (n && server[n - 1] == '/')
		n--;
	if (strncmp(server, "https://", 8) && strncmp(server, "http://", 7))
		return rn_fail(e, -EINVAL, "kubeconfig: cluster \"%s\": server \"%s\" is not an http(s) URL",
			       name, server);
	if (n >= sizeof(k->server))
		return rn_fail(e, -ENAMETOOLONG, "kubeconfig: cluster \"%s\": server URL too long", name);
	memcpy(k->server, server, n);
	k->server[n] = '\0';
	insecure = str(cluster, "insecure-skip-tls-verify");
	k->insecure = insecure && !strcmp(insecure, "true");
	return set_pem(&k->ca, cluster, "certificate-authority", dir, e);
}

static int load_user(struct rn_kube *k, json_t *user, const char *name, const char *dir,
		     struct rn_error *e)
{
	const char *token = str(user, "token"), *token_file = str(user, "tokenFile");
	int err;

	if (json_object_get(user, "exec") || json_object_get(user, "auth-provider"))
		return rn_fail(e, -ENOTSUP,
			       "kubeconfig: user \"%s\" needs a credential plugin (exec/auth-provider), which rdmanet does not run: give it a token, a tokenFile or a client certificate",
			       name);
	if (str(user, "username") || str(user, "password"))
		return rn_fail(e, -ENOTSUP,
			       "kubeconfig: user \"%s\" uses basic authentication, which Kubernetes removed: give it a token or a client certificate",
			       name);
	err = set_pem(&k->cert, user, "client-certificate", dir, e);
	if (!err)
		err = set_pem(&k->key, user, "client-key", dir, e);
	if (err)
		return err;
	if (!(k->cert.file[0] || k->cert.data) != !(k->key.file[0] || k->key.data))
		return rn_fail(e, -EINVAL,
			       "kubeconfig: user \"%s\" has a client certificate without its key, or a key without its certificate",
			       name);
	if (token) {
		k->token = strdup(token);
		return k->token ? 0 : rn_fail(e, -ENOMEM, "kubeconfig: out of memory");
	}
	if (token_file) {
		err = set_path(k->token_file, sizeof(k->token_file), dir, token_file, "tokenFile", e);
		return err ? err : rn_kube_token_refresh(k, e);
	}
	return 0;
}

int rn_kube_parse_kubeconfig(struct rn_kube *k, const char *path, const char *text, size_t len,
			     const char *context, struct rn_error *e)
{
	char *dircopy = NULL, what[PATH_MAX + 16];
	const char *cluster_name, *user_name, *dir;
	json_t *root, *ctx, *cluster, *user;
	int err;

	snprintf(what, sizeof(what), "kubeconfig %s", path);
	root = rn_yaml_to_json(what, text, len, e);
	if (!root)
		return e ? e->code : -EINVAL;
	if (!json_is_object(root)) {
		err = rn_fail(e, -EINVAL, "kubeconfig %s: not a mapping", path);
		goto out;
	}
	if (!context)
		context = str(root, "current-context");
	if (!context) {
		err = rn_fail(e, -EINVAL, "kubeconfig %s: no current-context, and no context given", path);
		goto out;
	}
	ctx = named(root, "contexts", "context", context);
	if (!json_is_object(ctx)) {
		err = rn_fail(e, -ENOENT, "kubeconfig %s: no context \"%s\"", path, context);
		goto out;
	}
	cluster_name = str(ctx, "cluster");
	user_name = str(ctx, "user");
	cluster = cluster_name ? named(root, "clusters", "cluster", cluster_name) : NULL;
	if (!json_is_object(cluster)) {
		err = rn_fail(e, -ENOENT, "kubeconfig %s: context \"%s\" names no cluster that exists (\"%s\")",
			      path, context, cluster_name ? cluster_name : "");
		goto out;
	}
	user = user_name ? named(root, "users", "user", user_name) : NULL;
	if (user_name && !json_is_object(user)) {
		err = rn_fail(e, -ENOENT, "kubeconfig %s: context \"%s\" names user \"%s\", which does not exist",
			      path, context, user_name);
		goto out;
	}
	dircopy = strdup(path);
	if (!dircopy) {
		err = rn_fail(e, -ENOMEM, "kubeconfig: out of memory");
		goto out;
	}
	dir = dirname(dircopy);
	err = load_cluster(k, cluster, cluster_name, dir, e);
	if (!err && user)
		err = load_user(k, user, user_name, dir, e);
out:
	free(dircopy);
	json_decref(root);
	return err;
}

int rn_kube_load_kubeconfig(struct rn_kube *k, const char *path, const char *context,
			    struct rn_error *e)
{
	char *text;
	size_t len;
	int err;

	err = rn_read_file("kubeconfig", path, KUBECONFIG_MAX, &text, &len, e);
	if (err)
		return err;
	err = rn_kube_parse_kubeconfig(k, path, text, len, context, e);
	free(text);
	return err;
}
