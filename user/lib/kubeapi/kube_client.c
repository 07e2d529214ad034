// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "curl_lazy.h"
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
	k->ans.max = KUBE_ANSWER_MAX;
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
	const struct rn_curl_api *api;

	if (!k)
		return;
	api = k->api;
	if (api && k->curl)
		api->easy_cleanup(k->curl);
	free(k->token);
	rn_kube_pem_free(&k->ca);
	rn_kube_pem_free(&k->cert);
	rn_kube_pem_free(&k->key);
	free(k->ans.buf);
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

static void set_pem(const struct rn_curl_api *api, CURL *c, const struct rn_kube_pem *p,
		    CURLoption file_opt, CURLoption blob_opt)
{
	if (p->data) {
		struct curl_blob blob = { .data = p->data, .len = p->len, .flags = CURL_BLOB_COPY };

		api->easy_setopt(c, blob_opt, &blob);
	} else if (p->file[0]) {
		api->easy_setopt(c, file_opt, p->file);
	}
}

static int connect_lazy(struct rn_kube *k, struct rn_error *e)
{
	const struct rn_curl_api *api;
	CURL *c;

	if (k->curl)
		return 0;
	api = rn_curl(e);
	if (!api)
		return rn_fail_wrap(e, "kubernetes");
	c = api->easy_init();
	if (!c)
		return rn_fail(e, -ENOMEM, "kubernetes: out of memory");
	k->api = api;
	k->curl = c;
	api->easy_setopt(c, CURLOPT_WRITEFUNCTION, rn_curl_answer_write);
	api->easy_setopt(c, CURLOPT_WRITEDATA, &k->ans);
	api->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	api->easy_setopt(c, CURLOPT_ERRORBUFFER, k->curl_error);
	api->easy_setopt(c, CURLOPT_TIMEOUT_MS, k->timeout_ms);
	api->easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, k->timeout_ms);
	set_pem(api, c, &k->ca, CURLOPT_CAINFO, CURLOPT_CAINFO_BLOB);
	set_pem(api, c, &k->cert, CURLOPT_SSLCERT, CURLOPT_SSLCERT_BLOB);
	set_pem(api, c, &k->key, CURLOPT_SSLKEY, CURLOPT_SSLKEY_BLOB);
	if (k->insecure) {
		api->easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		api->easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return 0;
}

static int curl_errno(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
		return -ECONNREFUSED;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CIPHER:
		return -EPROTO;
	case CURLE_WRITE_ERROR:
		return -EFBIG;
	default:
		return -EIO;
	}
}

#define APPLY_TYPE "application/apply-patch+yaml"

static struct curl_slist *headers(const struct rn_curl_api *api, const struct rn_kube *k,
				  const char *method, const char *type)
{
	struct curl_slist *h = api->slist_append(NULL, "Accept: application/json");
	char auth[64 + KUBE_TOKEN_MAX], ct[64];

	/* "Expect: 100-continue" on larger bodies would cost a round trip */
	if (h)
		h = api->slist_append(h, "Expect:");
	snprintf(ct, sizeof(ct), "Content-Type: %s", type ? type :
		 strcmp(method, "PATCH") ? "application/json" : "application/merge-patch+json");
	if (h)
		h = api->slist_append(h, ct);
	if (h && k->token) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", k->token);
		h = api->slist_append(h, auth);
	}
	return h;
}

/* type: the body's Content-Type, NULL for the method's usual one */
static int request(struct rn_kube *k, const char *method, const char *type, const char *path,
		   const json_t *body, struct rn_kube_reply *r, struct rn_error *e)
{
	const struct rn_curl_api *api;
	struct curl_slist *h = NULL;
	char *text = NULL, *url = NULL;
	CURLcode rc;
	int err;

	r->status = 0;
	r->body = NULL;
	err = connect_lazy(k, e);
	if (!err)
		err = rn_kube_token_refresh(k, e);
	if (err)
		return err;
	api = k->api;
	if (body && !(text = json_dumps(body, JSON_COMPACT)))
		return rn_fail(e, -ENOMEM, "kubernetes: out of memory");
	h = headers(api, k, method, type);
	if (!h || asprintf(&url, "%s%s", k->server, path) < 0) {
		url = NULL;
		err = rn_fail(e, -ENOMEM, "kubernetes: out of memory");
		goto out;
	}
	k->ans.len = 0;
	k->ans.overflow = false;
	k->curl_error[0] = '\0';
	api->easy_setopt(k->curl, CURLOPT_URL, url);
	api->easy_setopt(k->curl, CURLOPT_HTTPHEADER, h);
	if (text) {
		api->easy_setopt(k->curl, CURLOPT_POSTFIELDS, text);
		api->easy_setopt(k->curl, CURLOPT_POSTFIELDSIZE, (long)strlen(text));
	} else {
		api->easy_setopt(k->curl, CURLOPT_HTTPGET, 1L);
	}
	api->easy_setopt(k->curl, CURLOPT_CUSTOMREQUEST, strcmp(method, "GET") ? method : NULL);
	rc = api->easy_perform(k->curl);
	if (rc != CURLE_OK) {
		err = rn_fail(e, curl_errno(rc), "kubernetes: %s %s: %s", method, url,
			      k->curl_error[0] ? k->curl_error : api->easy_strerror(rc));
		goto out;
	}
	api->easy_getinfo(k->curl, CURLINFO_RESPONSE_CODE, &r->status);
	if (k->ans.len)
		r->body = json_loadb(k->ans.buf, k->ans.len, 0, NULL);
out:
	/* the handle keeps pointers to these until the next request sets new ones */
	api->easy_setopt(k->curl, CURLOPT_HTTPHEADER, NULL);
	api->easy_setopt(k->curl, CURLOPT_POSTFIELDS, NULL);
	api->slist_free_all(h);
	free(url);
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
