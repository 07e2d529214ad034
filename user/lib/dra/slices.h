/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to dra/ until the publisher is wired into the agent: this node's
 * devices as resource.k8s.io/v1 ResourceSlices, and their publication
 * through the API server (kubeapi/). */
#ifndef RDMANET_DRA_SLICES_H
#define RDMANET_DRA_SLICES_H

#include <jansson.h>

#include "dra/dra.h"
#include "kubeapi/kubeapi.h"

/* resource.k8s.io/v1's limits (k8s.io/api/resource/v1 types.go) */
#define RN_DRA_SLICE_MAX_DEVICES 128		/* ResourceSliceMaxDevices */
#define RN_DRA_DEVICE_MAX_ATTRS_CAPS 32		/* attributes + capacity per device */
#define RN_DRA_ATTR_MAX_ID 32			/* DeviceMaxIDLength: the C identifier */
#define RN_DRA_ATTR_MAX_VALUE 64		/* DeviceAttributeMaxValueLength */

struct rn_dra_slice_input {
	const char *driver;
	const char *pool;		/* usually the node name */
	const char *node;		/* spec.nodeName */
	long long generation;
	unsigned int shared_pods;	/* an HCA port's "pods" capacity */
	const struct rn_rdma_model *model;	/* ports' link layer and state */
	const struct rn_rdma_roots *roots;	/* sysfs: PCIe root, NUMA node */
};

/* The pool's slices, a JSON array of ResourceSlice objects: devices in
 * name order, RN_DRA_SLICE_MAX_DEVICES per slice, named
 * "<pool>-<driver>-<i>" (made a DNS subdomain). Every field is checked
 * against the API's validation rules first; a device that would break
 * one is refused with a message naming it (never sent to be refused by
 * the API server as a whole pool). */
json_t *rn_dra_slices_build(const struct rn_dra_slice_input *in, const struct rn_dra_device *devs,
			    int n, struct rn_error *e);

/* What one publication did */
struct rn_dra_publish_stats {
	int created, updated, unchanged, deleted;
};

/* Makes the API server hold exactly `slices` for this driver and node:
 * slices that differ are replaced (PUT on their resourceVersion; a 409
 * is answered by reading the slice again, once), missing ones created,
 * this node's slices of this driver that are no longer wanted deleted.
 * A slice whose spec is unchanged is not written. */
int rn_dra_slices_publish(struct rn_kube *k, const char *driver, const char *node,
			  json_t *slices, struct rn_dra_publish_stats *st, struct rn_error *e);

/* The publisher's thread: every second it builds the slices from the RDMA
 * model (sysfs) and publishes them when they differ from what it last
 * published (a port went down: new slices within about a second), when
 * kicked (kubelet registered the driver again: a starting kubelet deletes
 * the node's slices), and every resync_s seconds whatever happened (the
 * API server's copy may have been deleted or edited). A failed publication
 * is retried every 5 s, logged once per kind of error. */
struct rn_dra_slicer;

/* cfg (copied): its driver, pool, node, roots and slices section */
struct rn_dra_slicer *rn_dra_slicer_start(const struct rn_dra_config *cfg, struct rn_error *e);
/* publish at the next second, changed or not */
void rn_dra_slicer_kick(struct rn_dra_slicer *s);
/* what it did, for the health file (any thread): publishes and failures
 * are the process's counters (dra/internal.h), the rest its own */
void rn_dra_slicer_health(struct rn_dra_slicer *s, struct rn_dra_slices_health *h);
void rn_dra_slicer_stop(struct rn_dra_slicer *s);

#endif
