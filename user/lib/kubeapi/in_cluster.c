// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The in-cluster configuration, as client-go's rest.InClusterConfig builds
 * it: the API server's Service from the environment kubelet gives every
 * container, the pod's service account token and the cluster's CA from
 * the projected volume at RN_KUBE_SA_DIR. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kubeapi/kube_conn.h"

int rn_kube_load_in_cluster(struct rn_kube *k, struct rn_error *e)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	int n;

	if (!host || !*host || !port || !*port)
		return rn_fail(e, -ENOENT,
			       "kubernetes: not in a cluster (KUBERNETES_SERVICE_HOST/_PORT unset) and no kubeconfig given");
	/* an IPv6 Service address goes in brackets */
	n = snprintf(k->server, sizeof(k->server), strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s",
		     host, port);
	if (n < 0 || (size_t)n >= sizeof(k->server))
		return rn_fail(e, -ENAMETOOLONG, "kubernetes: KUBERNETES_SERVICE_HOST is too long");
	snprintf(k->token_file, sizeof(k->token_file), "%s/token", RN_KUBE_SA_DIR);
	snprintf(k->ca.file, sizeof(k->ca.file), "%s/ca.crt", RN_KUBE_SA_DIR);
	return rn_kube_token_refresh(k, e);
}
