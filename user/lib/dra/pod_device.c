// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CNI's question to the DRA driver's state: what did this pod get
 * through its claims? The state file (state.c) is read as the agent wrote
 * it, without the driver: the plugin runs in its own process, and the file
 * is only ever replaced whole (rename), so a read sees one version. A
 * claim belongs to the pods in its reservedFor, as recorded when kubelet
 * prepared it for them, with what the device was then (its kind, a VF's
 * PCI address, a port's netdev): the plugin reads no RDMA model (it would
 * link libibverbs). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/internal.h"

static bool for_pod(const struct rn_dra_prepared *p, const char *pod_uid)
{
	for (int i = 0; i < p->n_pods; i++)
		if (!strcmp(p->pods[i], pod_uid))
			return true;
	return false;
}

/* the prepared device of request in p (its sub-request's, from a
 * prioritized list), NULL if none */
static const struct rn_dra_prepared_device *device_for(const struct rn_dra_prepared *p,
						       const char *request)
{
	for (int i = 0; i < p->n_devices; i++)
		if (rn_dra_request_is(p->devices[i].request, request))
			return &p->devices[i];
	return NULL;
}

/* the requests the pod's claims have, for the error */
static void list_requests(const struct rn_dra_driver *d, const char *pod_uid, char *buf,
			  size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < d->n_claims; i++)
		for (int j = 0; for_pod(&d->claims[i], pod_uid) && j < d->claims[i].n_devices; j++)
			if (used < size)
				used += (size_t)snprintf(buf + used, size - used, "%s\"%s\"",
							 used ? ", " : "",
							 d->claims[i].devices[j].request);
}

static int find(const struct rn_dra_driver *d, const char *pod_uid, const char *request,
		const struct rn_dra_prepared **claim, const struct rn_dra_prepared_device **dev,
		struct rn_error *e)
{
	char requests[256];
	bool pods_claims = false;

	*claim = NULL;
	for (int i = 0; i < d->n_claims; i++) {
		const struct rn_dra_prepared *p = &d->claims[i];
		const struct rn_dra_prepared_device *x;

		if (!for_pod(p, pod_uid))
			continue;
		pods_claims = true;
		x = device_for(p, request);
		if (!x)
			continue;
		if (*claim)
			return rn_fail(e, -EEXIST, "pod %s: claims %s/%s and %s/%s both have a "
				       "request \"%s\": which one is meant cannot be told", pod_uid,
				       (*claim)->namespace_, (*claim)->name, p->namespace_, p->name,
				       request);
		*claim = p;
		*dev = x;
	}
	if (*claim)
		return 0;
	if (!pods_claims)
		return rn_fail(e, -ENOENT, "pod %s: no claim prepared on this node is reserved for "
			       "it", pod_uid);
	list_requests(d, pod_uid, requests, sizeof(requests));
	return rn_fail(e, -ENOENT, "pod %s: its prepared claims have no request \"%s\" (they "
		       "have %s)", pod_uid, request, requests);
}

int rn_dra_pod_device(const struct rn_dra_config *cfg, const char *pod_uid, const char *request,
		      struct rn_dra_pod_device *out, struct rn_error *e)
{
	struct rn_dra_driver *d = calloc(1, sizeof(*d));
	const struct rn_dra_prepared *claim;
	const struct rn_dra_prepared_device *dev;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!d)
		return rn_fail(e, -ENOMEM, "out of memory");
	d->cfg = *cfg;
	rc = dra_state_load(d, e);
	if (!rc)
		rc = find(d, pod_uid, request, &claim, &dev, e);
	if (!rc) {
		snprintf(out->claim_uid, sizeof(out->claim_uid), "%s", claim->uid);
		snprintf(out->claim_namespace, sizeof(out->claim_namespace), "%s",
			 claim->namespace_);
		snprintf(out->claim_name, sizeof(out->claim_name), "%s", claim->name);
		out->dev = *dev;
		if (!dev->known)
			rc = rn_fail(e, -ESTALE, "claim %s/%s: its record does not say what device "
				     "%s is (prepared by an older rdmanetd: prepare it again)",
				     claim->namespace_, claim->name, dev->device);
	}
	free(d->claims);
	free(d);
	return rc;
}
