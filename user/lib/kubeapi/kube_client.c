// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kubeapi/kube_conn.h"
#include "read_file.h"

#define KUBE_TIMEOUT_MS 10000
#define KUBE_TOKEN_MAX (64 * 1024)
#define KUBE_ANSWER_MAX (64 << 20)

void rn_kube_pem_free(struct rn_kube_pem *p)
{
	free(p->data);
	p->data = NULL;
}

int rn_kube_open(struct rn_kube **out, const char *kubeconfig, const char *context,
		 struct rn_error *e)
{
	struct rn_kube *k = calloc(1, sizeof(*k));
	char *env = NULL;
	int err;

	*out = NULL;
	if (!k)
		return rn_fail(e, -ENOMEM, "kubernetes: out of memory");
	k->timeout_ms = KUBE_TIMEOUT_MS;
	k->answer_max = KUBE_ANSWER_MAX;
	if (!kubeconfig && getenv("KUBECONFIG") && *getenv("KUBECONFIG")) {
		/* a list as kubectl takes it; the first file holds the context */
		env = strdup(getenv("KUBECONFIG"));
		if (!env) {
			free(k);
			return rn_fail(e, -ENOMEM, "kubernetes: out of memory");
		}
		kubeconfig = strtok(env, ":");
	}
	err = kubeconfig ? rn_kube_load_kubeconfig(k, kubeconfig, context, e)
			 : rn_kube_load_in_cluster(k, e);
	free(env);
	if (err) {
		rn_kube_close(k);
		return err;
	}
	*out = k;
	return 0;
}

void rn_kube_close(struct rn_kube *k)
{
	if (!k)
		return;
	rn_kube_http_close(k);
	if (k->ssl_ctx)
		k->ssl_api->SSL_CTX_free(k->ssl_ctx);
	free(k->token);
	rn_kube_pem_free(&k->ca);
	rn_kube_pem_free(&k->cert);
	rn_kube_pem_free(&k->key);
	free(k);
}

const char *rn_kube_server(const struct rn_kube *k)
{
	return k->server;
}

int rn_kube_token_refresh(struct rn_kube *k, struct rn_error *e)
{
	struct stat st;
	char *tok;
	size_t n;
	int err;

	if (!k->token_file[0])
		return 0;
	if (stat(k->token_file, &st))
		return rn_fail(e, -errno, "kubernetes: token %s: %s", k->token_file, strerror(errno));
	if (k->token && st.st_mtim.tv_sec == k->token_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == k->token_mtime.tv_nsec)
		return 0;
	err = rn_read_file("kubernetes: token", k->token_file, KUBE_TOKEN_MAX, &tok, &n, e);
	if (err)
		return err;
	while (n && (tok[n - 1] == '\n' || tok[n - 1] == '\r' || tok[n - 1] == ' '))
		tok[--n] = '\0';
	if (!n) {
		free(tok);
		return rn_fail(e, -EINVAL, "kubernetes: token %s is empty", k->token_file);
	}
	free(k->token);
	k->token = tok;
	k->token_mtime = st.st_mtim;
	return 0;
}

#define APPLY_TYPE "application/apply-patch+yaml"

/* type: the body's Content-Type, NULL for the method's usual one */
static int request(struct rn_kube *k, const char *method, const char *type, const char *path,
		   const json_t *body, struct rn_kube_reply *r, struct rn_error *e)
{
	struct rn_http_answer ans = { 0 };
	char *text = NULL;
	int err;

	r->status = 0;
	r->body = NULL;
	err = rn_kube_token_refresh(k, e);
	if (err)
		return err;
	if (body && !(text = json_dumps(body, JSON_COMPACT)))
		return rn_fail(e, -ENOMEM, "kubernetes: out of memory");
	if (!type)
		type = strcmp(method, "PATCH") ? "application/json" : "application/merge-patch+json";
	err = rn_kube_http(k, method, path, type, text, &ans, e);
	if (err) {
		rn_fail_wrap(e, "kubernetes: %s %s%s", method, k->server, path);
	} else {
		r->status = ans.status;
		if (ans.len)
			r->body = json_loadb(ans.body, ans.len, 0, NULL);
	}
	rn_http_answer_free(&ans);
	free(text);
	return err;
}

int rn_kube_request(struct rn_kube *k, const char *method, const char *path,
		    const json_t *body, struct rn_kube_reply *r, struct rn_error *e)
{
	return request(k, method, NULL, path, body, r, e);
}

/* JSON is YAML: the apply body goes as the JSON it is */
int rn_kube_apply(struct rn_kube *k, const char *path, const json_t *body,
		  struct rn_kube_reply *r, struct rn_error *e)
{
	return request(k, "PATCH", APPLY_TYPE, path, body, r, e);
}

void rn_kube_reply_free(struct rn_kube_reply *r)
{
	json_decref(r->body);
	r->body = NULL;
}

int rn_kube_check(const struct rn_kube_reply *r, const char *what, struct rn_error *e)
{
	const char *reason = json_string_value(json_object_get(r->body, "reason"));
	const char *msg = json_string_value(json_object_get(r->body, "message"));
	int code;

	if (r->status >= 200 && r->status < 300)
		return 0;
	switch (r->status) {
	case 409:
		code = reason && !strcmp(reason, "AlreadyExists") ? -EEXIST : -ESTALE;
		break;
	case 404:
		code = -ENOENT;
		break;
	case 400:
	case 422:
		code = -EINVAL;
		break;
	case 401:
	case 403:
		code = -EACCES;
		break;
	case 429:
		code = -EAGAIN;
		break;
	default:
		code = r->status >= 500 ? -EAGAIN : -EPROTO;
	}
	return rn_fail(e, code, "%s: %ld %s: %s", what, r->status, reason ? reason : "",
		       msg ? msg : "(no Status in the answer)");
}
