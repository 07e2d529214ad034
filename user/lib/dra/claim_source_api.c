// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The claim source of a real cluster: kubelet's NodePrepareResources names
 * a claim by namespace, name and UID only, so the driver GETs the
 * ResourceClaim from the API server, as every DRA driver does:
 * /apis/resource.k8s.io/v1/namespaces/NS/resourceclaims/NAME, through the
 * kubeapi client opened as the slice publisher opens it (a kubeconfig
 * file, else $KUBECONFIG, else in-cluster).
 *
 * The client is opened at the first claim, not at start: an agent whose
 * API server is not there yet still serves kubelet, and each claim then
 * says what is wrong. Callers: the DRA thread (server.c), for kubelet's
 * prepare calls; a mutex keeps one rn_kube (one curl handle, not to be
 * shared) to one request at a time should another thread ever ask.
 *
 * Time: rn_kube_request gives up on a request after 10 s (connect and
 * whole answer, KUBE_TIMEOUT_MS in kube_client.c); kubelet gives the whole
 * NodePrepareResources call 45 s. Once a request timed out, the claims
 * asked for in the next 2 s (the rest of that call) fail at once with that
 * error, so a call of any number of claims is answered in time even by an
 * API server that does not answer at all. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dns_name.h"
#include "dra/dra.h"
#include "dra/internal.h"
#include "kubeapi/kubeapi.h"
#include "monotonic.h"

struct api_source {
	struct rn_dra_claim_source base;	/* first: the callbacks get it */
	pthread_mutex_t lock;			/* over kube and its requests */
	struct rn_kube *kube;			/* NULL until the first claim */
	char kubeconfig[PATH_MAX];		/* "": $KUBECONFIG, else in-cluster */
	/* a request to the API server timed out: until this rn_monotonic_ms()
	 * the other claims of kubelet's call fail at once with the same
	 * error, so that a call of many claims is not N timeouts long (a
	 * refused connection fails at once by itself) */
	long long unreachable_until;
	struct rn_error unreachable;
};

#define UNREACHABLE_HOLD_MS 2000

/* An answer that is not the claim, as kubelet's per-claim error: what the
 * operator has to do, and that kubelet tries again. */
static int answer_error(const struct api_source *s, const struct rn_kube_reply *r,
			const char *ns, const char *name, struct rn_error *e)
{
	struct rn_error ke = { 0 };
	int err = rn_kube_check(r, "GET", &ke);

	switch (r->status) {
	case 404:
		return rn_fail(e, -ENOENT, "claim %s/%s: not found at the API server", ns, name);
	case 401:
		return rn_fail(e, err, "claim %s/%s: the API server %s does not accept the driver's "
			       "credentials (%s): it cannot \"get\" resourceclaims.resource.k8s.io",
			       ns, name, rn_kube_server(s->kube), ke.msg);
	case 403:
		return rn_fail(e, err, "claim %s/%s: the driver's service account may not \"get\" "
			       "resourceclaims.resource.k8s.io in namespace %s (RBAC: the verb "
			       "\"get\" on resourceclaims is missing from its ClusterRole): %s",
			       ns, name, ns, ke.msg);
	}
	if (err == -EAGAIN)
		return rn_fail(e, err, "claim %s/%s: the API server %s cannot answer now (%s); "
			       "kubelet tries again", ns, name, rn_kube_server(s->kube), ke.msg);
	return rn_fail(e, err, "claim %s/%s: the API server %s: %s", ns, name,
		       rn_kube_server(s->kube), ke.msg);
}

/* one GET, under s->lock; r is the claim's answer when 0 is returned */
static int fetch(struct api_source *s, const char *path, const char *ns, const char *name,
		 struct rn_kube_reply *r, struct rn_error *e)
{
	struct rn_error ke = { 0 };

	if (!s->kube &&
	    rn_kube_open(&s->kube, s->kubeconfig[0] ? s->kubeconfig : NULL, NULL, &ke))
		return rn_fail(e, ke.code, "claim %s/%s: no client for the API server: %s", ns,
			       name, ke.msg);
	if (rn_monotonic_ms() < s->unreachable_until)
		return rn_fail(e, s->unreachable.code, "claim %s/%s: not asked: %s", ns, name,
			       s->unreachable.msg);
	if (rn_kube_request(s->kube, "GET", path, NULL, r, &ke)) {
		if (ke.code == -ETIMEDOUT) {
			rn_fail(&s->unreachable, ke.code, "the API server %s did not answer just "
				"now (%s); kubelet tries again", rn_kube_server(s->kube), ke.msg);
			s->unreachable_until = rn_monotonic_ms() + UNREACHABLE_HOLD_MS;
		}
		return rn_fail(e, ke.code, "claim %s/%s: the API server %s cannot be reached (%s); "
			       "kubelet tries again", ns, name, rn_kube_server(s->kube), ke.msg);
	}
	s->unreachable_until = 0;
	if (r->status != 200) {
		int err = answer_error(s, r, ns, name, e);

		rn_kube_reply_free(r);
		return err;
	}
	return 0;
}

static int api_get(struct rn_dra_claim_source *src, const char *ns, const char *name,
		   struct rn_dra_claim *out, struct rn_error *e)
{
	struct api_source *s = (struct api_source *)src;
	struct rn_kube_reply r = { 0 };
	char path[512];
	int err;

	/* what kubelet sends goes into a URL: only names the API allows */
	if (!rn_dns_label(ns, strlen(ns)) || !rn_dns_subdomain(name, strlen(name)))
		return rn_fail(e, -EINVAL, "\"%s/%s\" is not a claim's namespace/name", ns, name);
	snprintf(path, sizeof(path), "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s",
		 ns, name);
	pthread_mutex_lock(&s->lock);
	err = fetch(s, path, ns, name, &r, e);
	pthread_mutex_unlock(&s->lock);
	if (err)
		return err;
	if (!r.body)
		err = rn_fail(e, -EPROTO, "claim %s/%s: the API server's answer is not JSON", ns,
			      name);
	else if ((err = rn_dra_claim_from_json(r.body, out, e)))
		rn_fail_wrap(e, "claim %s/%s (from the API server)", ns, name);
	else if (strcmp(out->namespace_, ns) || strcmp(out->name, name))
		err = rn_fail(e, -EPROTO, "claim %s/%s: the API server answered with %s/%s", ns,
			      name, out->namespace_, out->name);
	rn_kube_reply_free(&r);
	return err;
}

static void api_destroy(struct rn_dra_claim_source *src)
{
	struct api_source *s = (struct api_source *)src;

	rn_kube_close(s->kube);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

struct rn_dra_claim_source *rn_dra_claim_source_api(const char *kubeconfig, struct rn_error *e)
{
	struct api_source *s = calloc(1, sizeof(*s));

	if (!s)
		return rn_fail(e, -ENOMEM, "out of memory"), NULL;
	if (snprintf(s->kubeconfig, sizeof(s->kubeconfig), "%s", kubeconfig ? kubeconfig : "") >=
	    (int)sizeof(s->kubeconfig)) {
		free(s);
		return rn_fail(e, -ENAMETOOLONG, "kubeconfig path too long"), NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	s->base.get = api_get;
	s->base.destroy = api_destroy;
	return &s->base;
}
