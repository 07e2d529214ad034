/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A client of the Kubernetes API server, as every Kubernetes client reaches
 * it: in the cluster through the pod's service account (token and CA at
 * their standard paths, KUBERNETES_SERVICE_HOST/_PORT), outside it through a
 * kubeconfig file (YAML or JSON: a context's cluster and user; tokens,
 * token files, client certificates and CAs as files or inline data). The
 * DRA driver publishes its ResourceSlices and writes claim status with it.
 * This header is the module's whole interface.
 *
 * HTTP/1.1 over OpenSSL's libssl, loaded at the first https request
 * (openssl_lazy.h); an agent that never talks to the API server does not
 * map it. */
#ifndef RDMANET_KUBEAPI_H
#define RDMANET_KUBEAPI_H

#include <jansson.h>

#include "error.h"

#define RN_KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

struct rn_kube;

/* kubeconfig: a file; NULL means $KUBECONFIG when set (its first path),
 * else the in-cluster configuration. context: NULL for current-context. */
int rn_kube_open(struct rn_kube **out, const char *kubeconfig, const char *context,
		 struct rn_error *e);
void rn_kube_close(struct rn_kube *k);
/* "https://host:port" the client talks to */
const char *rn_kube_server(const struct rn_kube *k);

struct rn_kube_reply {
	long status;	/* HTTP status */
	json_t *body;	/* the answer's JSON, NULL if it had none or was not JSON */
};

/* One request: method "GET", "POST", "PUT", "PATCH" or "DELETE"; path
 * from the root ("/apis/resource.k8s.io/v1/resourceslices"); body NULL or
 * JSON (PATCH: a merge patch; rn_kube_apply for server-side apply). 0
 * when the server answered, whatever its status (r->status says; rn_kube_check turns it into an error), a
 * negative errno when it could not be reached or the TLS session failed
 * (-ECONNREFUSED, -ETIMEDOUT, -EPROTO for TLS, ...), with e set. */
int rn_kube_request(struct rn_kube *k, const char *method, const char *path,
		    const json_t *body, struct rn_kube_reply *r, struct rn_error *e);
/* Server-side apply: a PATCH of body (the fields this manager owns,
 * whole) as application/apply-patch+yaml; path names the manager
 * ("?fieldManager=NAME", "&force=true" to take fields over). The server
 * merges list-maps entry by entry, keeping other managers' entries, where
 * a merge patch replaces a list whole. Answers as rn_kube_request. */
int rn_kube_apply(struct rn_kube *k, const char *path, const json_t *body,
		  struct rn_kube_reply *r, struct rn_error *e);
void rn_kube_reply_free(struct rn_kube_reply *r);

/* 0 for a 2xx answer; otherwise fails with "what: <status> <reason>:
 * <the Status object's message>" and an errno for the caller's decision:
 * -ESTALE a write on a stale resourceVersion (409 Conflict), -EEXIST
 * (409 AlreadyExists), -ENOENT (404), -EINVAL (400, 422 Invalid), -EACCES
 * (401, 403), -EAGAIN (429, 5xx: try again later), -EPROTO otherwise. */
int rn_kube_check(const struct rn_kube_reply *r, const char *what, struct rn_error *e);

#endif
