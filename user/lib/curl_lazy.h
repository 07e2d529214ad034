/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libcurl, loaded on first use (the etcd store, the Kubernetes API client
 * of the DRA driver). libcurl brings some
 * thirty shared libraries (TLS, Kerberos, LDAP, SSH...) whose loading and
 * constructors cost every process about 3 ms at start, measured here; the
 * CNI plugin and rdmanetctl run once per operation and most nodes use the
 * SQLite store, so they should not pay it. Linked with -Wl,--as-needed the
 * binaries then carry no libcurl dependency at all. */
#ifndef RDMANET_CURL_LAZY_H
#define RDMANET_CURL_LAZY_H

#include <stdbool.h>
#include <stddef.h>
#include <curl/curl.h>

#include "error.h"

struct rn_curl_api {
	CURLcode (*global_init)(long flags);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
	CURLcode (*easy_perform)(CURL *curl);
	CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
	void (*easy_cleanup)(CURL *curl);
	const char *(*easy_strerror)(CURLcode code);
	struct curl_slist *(*slist_append)(struct curl_slist *list, const char *s);
	void (*slist_free_all)(struct curl_slist *list);
};

/* An answer's body as libcurl delivers it: CURLOPT_WRITEFUNCTION
 * rn_curl_answer_write, CURLOPT_WRITEDATA the answer. buf is
 * NUL-terminated; past max bytes the transfer fails (CURLE_WRITE_ERROR)
 * with overflow set. Reset len and overflow before each transfer. */
struct rn_curl_answer {
	char *buf;
	size_t len, cap, max;
	bool overflow;
};

size_t rn_curl_answer_write(char *data, size_t size, size_t n, void *answer);

/* The loaded and initialised libcurl, or NULL with e set ("libcurl: ...";
 * callers prefix what needed it). */
const struct rn_curl_api *rn_curl(struct rn_error *e);

#endif
