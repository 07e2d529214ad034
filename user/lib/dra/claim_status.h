/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to dra/: the claim-status writer (KEP-4817). What the CNI
 * attached from a claim (dra.h rn_dra_attachment, the records under
 * <state_dir>/networks/) is written into the claim's
 * status.devices[].networkData by server-side apply, as the Kubernetes
 * DRA helper libraries do:
 *   PATCH /apis/resource.k8s.io/v1/namespaces/NS/resourceclaims/NAME/status
 *         ?fieldManager=<driver>&force=true
 *   { apiVersion, kind, metadata: { name, namespace, uid },
 *     status: { devices: [ { driver, pool, device,
 *       networkData: { interfaceName, ips, hardwareAddress } } ] } }
 * status.devices is a list-map keyed by driver/pool/device: an apply
 * carries this driver's entries only and leaves every other manager's (a
 * GPU driver's) alone, where a merge patch would replace the list whole.
 * metadata.uid makes the write of a claim deleted and created again under
 * its name a 409, not a write into the wrong claim. An apply without
 * entries removes the ones this manager wrote (the last pod gone). A
 * device allocated as a share (consumable capacity) has a shareID in the
 * claim's allocation result, part of the entry's key: read from the claim
 * (a GET) before each write with entries.
 *
 * A shared HCA port claim reserved for several pods has one device entry
 * and one interface per pod: the entry names the pod attached first (the
 * earliest ADD still attached); when it goes, the next one's.
 *
 * Each pass compares what the records want with what the server was last
 * told, and writes the difference: a failed write is retried with backoff
 * (1 s doubling to 5 s), a claim that is gone (404), replaced (409) or
 * refused (422) is dropped until what it should say changes; a few writes
 * a pass, and none more once the server cannot be reached, so the slices'
 * publication on the same thread waits for little. The claims written to
 * are kept in <state_dir>/claim-status.json, so a restarted agent clears
 * what its pods left while it was down. */
#ifndef RDMANET_DRA_CLAIM_STATUS_H
#define RDMANET_DRA_CLAIM_STATUS_H

#include <jansson.h>

#include "dra/dra.h"
#include "kubeapi/kubeapi.h"

struct dra_claim_status;

struct dra_claim_status *dra_claim_status_open(const struct rn_dra_config *cfg);
/* One pass (the publisher's thread, about every second). */
void dra_claim_status_sync(struct dra_claim_status *cs, struct rn_kube *k);
void dra_claim_status_close(struct dra_claim_status *cs);

/* The apply body for claim ns/name/uid from the attachments: this
 * driver's devices of that claim, each with the first attached pod's
 * network data, in pool/device order (no status without any). */
json_t *dra_claim_status_body(const char *driver, const char *ns, const char *name,
			      const char *uid, const struct rn_dra_attachment *atts, int n);

#endif
