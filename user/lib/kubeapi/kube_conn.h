/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to kubeapi/: what a client holds, filled from a kubeconfig or
 * the in-cluster configuration, used by the request code. */
#ifndef RDMANET_KUBEAPI_KUBE_CONN_H
#define RDMANET_KUBEAPI_KUBE_CONN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "curl_lazy.h"
#include "kubeapi/kubeapi.h"

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

	const void *api;	/* struct rn_curl_api, once loaded */
	void *curl;
	struct rn_curl_answer ans;	/* the answer being received */
	char curl_error[256];
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

#endif
