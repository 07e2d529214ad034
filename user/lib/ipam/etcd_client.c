// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* HTTP side of the etcd client: one libcurl handle (keep-alive), endpoint
 * failover, per-try timeouts inside the operation's deadline. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "curl_lazy.h"
#include "ipam/etcd_client.h"
#include "ipam/etcd_keys.h"
#include "ipam/store.h"
#include "monotonic.h"

#define MAX_ANSWER (64u << 20)	/* a range of every allocation stays well below */
#define MIN_TRY_MS 500		/* a healthy cluster answers in milliseconds */
#define ROUND_PAUSE_MS 50	/* after every endpoint failed once */

struct rn_etcd {
	const struct rn_ipam_settings *st;
	const struct rn_curl_api *api;
	CURL *curl;
	struct curl_slist *headers;
	unsigned int current;		/* endpoint that answered last */
	long long deadline;		/* monotonic ms */
	struct rn_curl_answer ans;
	char last_error[384];
	bool other_error;		/* last_error is not a timeout (this call) */
	char curl_error[CURL_ERROR_SIZE];	/* libcurl's detail of the last failure */
	long long requests, keys;	/* rn_etcd_counts */
};

int rn_etcd_open(struct rn_etcd **out, const struct rn_ipam_settings *st, struct rn_error *e)
{
	struct rn_etcd *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	c->st = st;
	c->ans.max = MAX_ANSWER;
	c->current = (unsigned int)rand() % (st->n_endpoints ? st->n_endpoints : 1);
	rn_etcd_deadline(c);
	*out = c;
	return 0;
}

/* libcurl is loaded at the first request, not at the open: a node whose
 * ADDs are served from its blocks (block_alloc.h) never pays for it. */
static int connect_lazy(struct rn_etcd *c, struct rn_error *e)
{
	const struct rn_curl_api *api;
	const struct rn_ipam_settings *st = c->st;

	if (c->api)
		return 0;
	api = rn_curl(e);
	if (!api)
		return e ? rn_fail_wrap(e, "etcd") : -ENOENT;
	c->api = api;
	c->curl = api->easy_init();
	/* "Expect: 100-continue" on larger bodies would cost a round trip */
	c->headers = api->slist_append(NULL, "Content-Type: application/json");
	c->headers = api->slist_append(c->headers, "Expect:");
	if (!c->curl || !c->headers)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	api->easy_setopt(c->curl, CURLOPT_HTTPHEADER, c->headers);
	api->easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, rn_curl_answer_write);
	api->easy_setopt(c->curl, CURLOPT_WRITEDATA, &c->ans);
	api->easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	api->easy_setopt(c->curl, CURLOPT_TCP_NODELAY, 1L);
	api->easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	api->easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_error);
	if (st->tls.ca_file[0])
		api->easy_setopt(c->curl, CURLOPT_CAINFO, st->tls.ca_file);
	if (st->tls.cert_file[0]) {
		api->easy_setopt(c->curl, CURLOPT_SSLCERT, st->tls.cert_file);
		api->easy_setopt(c->curl, CURLOPT_SSLKEY, st->tls.key_file);
	}
	return 0;
}

void rn_etcd_close(struct rn_etcd *c)
{
	if (!c)
		return;
	if (c->curl)
		c->api->easy_cleanup(c->curl);
	if (c->api)
		c->api->slist_free_all(c->headers);
	free(c->ans.buf);
	free(c);
}

void rn_etcd_deadline(struct rn_etcd *c)
{
	c->deadline = rn_monotonic_ms() + c->st->timeout_ms;
}

bool rn_etcd_expired(const struct rn_etcd *c)
{
	return rn_monotonic_ms() >= c->deadline;
}

/* One POST to one endpoint: 1 with *resp set, 0 if another endpoint or a
 * later try may do better (c->last_error says why), or a negative error. */
/* Under TLS 1.3 a server that refuses our client certificate does so
 * after the handshake: libcurl may then see the alert, or only the
 * connection closed ("Connection reset by peer"). Say what it may mean. */
static const char *tls_closed_hint(const struct rn_etcd *c, CURLcode rc)
{
	if (!c->st->tls.cert_file[0])
		return "";
	/* over HTTP/2 (etcd's ALPN) the reset comes back as CURLE_HTTP2 */
	if (rc != CURLE_RECV_ERROR && rc != CURLE_SEND_ERROR && rc != CURLE_SSL_CONNECT_ERROR &&
	    rc != CURLE_HTTP2 && rc != CURLE_HTTP2_STREAM)
		return "";
	if (c->curl_error[0] && strcasestr(c->curl_error, "certificate"))
		return "";
	return " (etcd may have refused the client certificate: check ipam.tls)";
}

static int try_endpoint(struct rn_etcd *c, unsigned int idx, const char *path, const char *body,
			long timeout_ms, json_t **resp, struct rn_error *e)
{
	const char *ep = c->st->endpoints[idx];
	char url[RN_IPAM_URL_MAX + 32];
	json_error_t jerr;
	const char *msg;
	long status = 0;
	CURLcode rc;
	json_t *v;

	snprintf(url, sizeof(url), "%s/v3/%s", ep, path);
	c->api->easy_setopt(c->curl, CURLOPT_URL, url);
	c->api->easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
	c->api->easy_setopt(c->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	c->api->easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT_MS,
			    timeout_ms < 1000 ? timeout_ms : 1000);
	c->ans.len = 0;
	c->ans.overflow = false;
	c->curl_error[0] = '\0';
	rc = c->api->easy_perform(c->curl);
	if (c->ans.overflow)
		return rn_fail(e, -EIO, "etcd %s: answer larger than %u MiB", ep, MAX_ANSWER >> 20);
	if (rc == CURLE_SSL_CERTPROBLEM || rc == CURLE_SSL_CACERT_BADFILE ||
	    rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_UNSUPPORTED_PROTOCOL)
		/* configuration, not availability: waiting will not help */
		return rn_fail(e, -EINVAL, "etcd %s: %s (check ipam.endpoints and ipam.tls)", ep,
			       c->api->easy_strerror(rc));
	if (rc != CURLE_OK) {
		/* a timeout after another failure (a TLS alert: the cluster
		 * refused our certificate) keeps the failure that says why */
		if (rc != CURLE_OPERATION_TIMEDOUT || !c->other_error)
			snprintf(c->last_error, sizeof(c->last_error), "%s: %s%s", ep,
				 c->curl_error[0] ? c->curl_error : c->api->easy_strerror(rc),
				 tls_closed_hint(c, rc));
		c->other_error |= rc != CURLE_OPERATION_TIMEDOUT;
		return 0;
	}
	c->api->easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	v = c->ans.len ? json_loadb(c->ans.buf, c->ans.len, 0, &jerr) : NULL;
	if (status == 200 && json_is_object(v)) {
		*resp = v;
		return 1;
	}
	msg = v ? json_string_value(json_object_get(v, "error")) : c->ans.len ? c->ans.buf : "";
	snprintf(c->last_error, sizeof(c->last_error), "%s: HTTP %ld: %.200s", ep, status,
		 msg ? msg : "?");
	if (status >= 500 || status == 429 || (v && rn_etcd_error_is_transient(v))) {
		json_decref(v);
		return 0;
	}
	json_decref(v);
	return rn_fail(e, -EIO, "etcd %s", c->last_error);
}

static void pause_ms(long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static int call(struct rn_etcd *c, const char *path, json_t *body, json_t **resp,
		struct rn_error *e)
{
	unsigned int n = c->st->n_endpoints;
	long long per_try = n > 1 ? c->st->timeout_ms / n : c->st->timeout_ms;
	char *text;
	int r = connect_lazy(c, e);

	*resp = NULL;
	if (r) {
		json_decref(body);
		return r;
	}
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!text)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	c->requests++;
	if (per_try < MIN_TRY_MS)
		per_try = MIN_TRY_MS;
	snprintf(c->last_error, sizeof(c->last_error), "no endpoint tried");
	c->other_error = false;
	for (;;) {
		for (unsigned int k = 0; k < n && r == 0; k++) {
			unsigned int idx = (c->current + k) % n;
			long long left = c->deadline - rn_monotonic_ms();

			if (left <= 0)
				break;
			if (left > per_try)
				left = per_try;
			r = try_endpoint(c, idx, path, text, (long)left, resp, e);
			if (r == 1)
				c->current = idx;
		}
		if (r != 0 || rn_etcd_expired(c))
			break;
		/* every endpoint failed: give the cluster a moment (an election) */
		pause_ms(ROUND_PAUSE_MS < c->deadline - rn_monotonic_ms() ?
			 ROUND_PAUSE_MS : c->deadline - rn_monotonic_ms());
		c->current = (c->current + 1) % n;
	}
	free(text);
	if (r == 1)
		return 0;
	if (r < 0)
		return r;
	return rn_fail(e, -EAGAIN, "etcd: no endpoint answered within %u s (last: %s): try "
		       "again later", c->st->timeout_ms / 1000, c->last_error);
}

int rn_etcd_post(struct rn_etcd *c, const char *path, json_t *body, json_t **resp,
		 struct rn_error *e)
{
	return call(c, path, body, resp, e);
}

int rn_etcd_get(struct rn_etcd *c, const char *key, const char *range_end, long long limit,
		bool keys_only, bool count_only, struct rn_etcd_range *out, struct rn_error *e)
{
	json_t *resp;
	int err;

	memset(out, 0, sizeof(*out));
	err = call(c, "kv/range", rn_etcd_range_body(key, range_end, limit, keys_only, count_only),
		   &resp, e);
	if (err)
		return err;
	err = rn_etcd_parse_range(resp, out, e);
	json_decref(resp);
	c->keys += (long long)out->n;
	return err;
}

int rn_etcd_get_all(struct rn_etcd *c, const char *start, const char *end, bool keys_only,
		    struct rn_etcd_range *out, struct rn_error *e)
{
	char from[RN_ETCD_KEY_MAX + 2];
	int err;

	memset(out, 0, sizeof(*out));
	snprintf(from, sizeof(from), "%s", start);
	for (;;) {
		struct rn_etcd_range page;
		struct rn_etcd_kv *grown;

		err = rn_etcd_get(c, from, end, RN_ETCD_PAGE, keys_only, false, &page, e);
		if (err)
			break;
		grown = realloc(out->kvs, (out->n + page.n + 1) * sizeof(*grown));
		if (!grown) {
			rn_etcd_range_free(&page);
			err = rn_fail(e, -ENOMEM, "etcd: out of memory");
			break;
		}
		out->kvs = grown;
		memcpy(out->kvs + out->n, page.kvs, page.n * sizeof(*page.kvs));
		out->n += page.n;
		out->revision = out->revision ? out->revision : page.revision;
		if (!page.more || !page.n) {
			free(page.kvs);
			break;
		}
		/* keys hold no byte below 0x21: "last key + \x01" starts the next page */
		snprintf(from, sizeof(from), "%s\x01", page.kvs[page.n - 1].key);
		free(page.kvs);
	}
	if (err)
		rn_etcd_range_free(out);
	out->count = (long long)out->n;
	return err;
}

int rn_etcd_get_prefix(struct rn_etcd *c, const char *prefix, bool keys_only,
		       struct rn_etcd_range *out, struct rn_error *e)
{
	char *end = rn_etcd_prefix_end(prefix);
	int err;

	memset(out, 0, sizeof(*out));
	if (!end)
		return rn_fail(e, -ENOMEM, "etcd: out of memory");
	err = rn_etcd_get_all(c, prefix, end, keys_only, out, e);
	free(end);
	return err;
}

void rn_etcd_counts(const struct rn_etcd *c, long long *requests, long long *keys)
{
	*requests = c->requests;
	*keys = c->keys;
}

int rn_etcd_txn(struct rn_etcd *c, json_t *compare, json_t *success, json_t *failure,
		bool *succeeded, struct rn_etcd_range *results, size_t n_results,
		struct rn_error *e)
{
	return rn_etcd_txn_rev(c, compare, success, failure, succeeded, results, n_results, NULL,
			       e);
}

int rn_etcd_txn_rev(struct rn_etcd *c, json_t *compare, json_t *success, json_t *failure,
		    bool *succeeded, struct rn_etcd_range *results, size_t n_results,
		    long long *revision, struct rn_error *e)
{
	json_t *body = json_object(), *resp;
	int err;

	for (size_t i = 0; i < n_results; i++)
		memset(&results[i], 0, sizeof(results[i]));
	*succeeded = false;
	if (compare)
		json_object_set_new(body, "compare", compare);
	if (success)
		json_object_set_new(body, "success", success);
	if (failure)
		json_object_set_new(body, "failure", failure);
	err = call(c, "kv/txn", body, &resp, e);
	if (err)
		return err;
	err = rn_etcd_parse_txn(resp, succeeded, results, n_results, e);
	if (revision)
		*revision = rn_etcd_header_revision(resp);
	json_decref(resp);
	return err;
}
