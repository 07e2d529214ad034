/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pod's network data for its DRA claim (KEP-4817): when ADD attached
 * the pod from a claim's device ("dra" in the config: dra_claim.h), what
 * the pod got (its interface's name, addresses and MAC, with the claim and
 * the device) is recorded for rdmanetd in the DRA state dir
 * (dra/dra.h rn_dra_attachment); the agent writes it into the claim's
 * status.devices[].networkData. The record goes with the attachment: on
 * DEL (a netns gone or not), on GC of the attachment, and when ADD fails
 * after it was written (rollback). */
#ifndef RDMANET_CNI_DRA_NETWORK_H
#define RDMANET_CNI_DRA_NETWORK_H

#include "attachment.h"
#include "cmd.h"
#include "config.h"

/* ADD's step, once the pod's interface is addressed: nothing without a
 * claim (r->conf.dra_claim_uid empty). Code 7 when the claim is no
 * longer the one ADD took its device from, RN_CNI_ERR_STATE when the
 * record cannot be written. */
int cni_dra_network_record(struct cni_req *r, const struct rn_config *cfg,
			   const struct cni_attachment *att);
/* Removes the attachment's record, if any (idempotent; a node config
 * without a valid "dra" section has none to remove). */
int cni_dra_network_forget(const struct rn_config *cfg, const char *network,
			   const char *container_id, const char *ifname, struct rn_error *e);

#endif
