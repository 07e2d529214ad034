/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to kubeapi/: what a client holds, filled from a kubeconfig or
 * the in-cluster configuration, used by the request code. */
#ifndef RDMANET_KUBEAPI_KUBE_CONN_H
#define RDMANET_KUBEAPI_KUBE_CONN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "kubeapi/http_answer.h"
#include "kubeapi/kubeapi.h"
#include "openssl_lazy.h"

struct rn_kube_pem {		/* a file, or inline data (kubeconfig *-data) */
	char file[PATH_MAX];
	char *data;
	size_t len;
};

struct rn_kube {
	char server[512];	/* scheme://host:port, no trailing slash */
	char *token;		/* bearer token (NUL-terminated, no newline) */
	char token_file[PATH_MAX];	/* re-read when it changes: service
					 * account tokens are rotated */
	struct timespec token_mtime;
	struct rn_kube_pem ca, cert, key;
	bool insecure;		/* insecure-skip-tls-verify */
	long timeout_ms;

	size_t answer_max;	/* the largest answer body taken */

	/* the connection (kube_http.c), kept alive between requests */
	const struct rn_ssl_api *ssl_api;	/* once the first https request loaded it */
	SSL_CTX *ssl_ctx;	/* CA, client certificate and key */
	struct timespec pem_mtime[3];	/* of the ca, cert, key files it was made from */
	SSL *ssl;		/* the open connection's session (https) */
	int fd;			/* non-blocking */
	bool conn_open;
};

/* kubeconfig.c / in_cluster.c fill k (zeroed by the caller; on an error,
 * what they filled is freed by rn_kube_close) */
int rn_kube_load_kubeconfig(struct rn_kube *k, const char *path, const char *context,
			    struct rn_error *e);
/* the same from its text; path names it and anchors relative paths */
int rn_kube_parse_kubeconfig(struct rn_kube *k, const char *path, const char *text, size_t len,
			     const char *context, struct rn_error *e);
int rn_kube_load_in_cluster(struct rn_kube *k, struct rn_error *e);
/* the token file's current token, when it changed since the last read */
int rn_kube_token_refresh(struct rn_kube *k, struct rn_error *e);
void rn_kube_pem_free(struct rn_kube_pem *p);

/* kube_tls.c: k->ssl_ctx made, and made again when a CA, certificate or
 * key file changed since (rotated credentials); a TLS session on k->fd to
 * host, done by deadline (rn_monotonic_ms) */
int rn_kube_tls_context(struct rn_kube *k, struct rn_error *e);
int rn_kube_tls_handshake(struct rn_kube *k, const char *host, long long deadline,
			  struct rn_error *e);

/* kube_http.c: one request (body NULL or text of Content-Type type) and
 * its answer, within k->timeout_ms; negative errno with e set ("what
 * failed: why") when no answer came. rn_kube_http_close drops the
 * kept-alive connection. */
int rn_kube_http(struct rn_kube *k, const char *method, const char *path, const char *type,
		 const char *body, struct rn_http_answer *ans, struct rn_error *e);
void rn_kube_http_close(struct rn_kube *k);
/* poll()s fd for events until deadline (rn_monotonic_ms): 0, or
 * -ETIMEDOUT */
int rn_kube_wait(int fd, short events, long long deadline);

#endif
