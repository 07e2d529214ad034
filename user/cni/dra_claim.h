/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ADD's device from the pod's DRA claim. A network config with
 *     "dra": { "request": "nic" }
 * takes its device from what rdmanetd's DRA driver prepared for the pod
 * (the claim whose status.reservedFor lists K8S_POD_UID, its device for
 * that request; dra/dra.h rn_dra_pod_device), not from the config:
 *   - a VF: exclusive mode (mode "sriov") with that VF, as if deviceID
 *     named it; the VF stays held for the claim (its hold carries the
 *     claim's UID: DEL gives it back to the claim, not to the node);
 *   - an HCA port: shared mode (macvlan, or ipvlan if "mode" says so) on
 *     the port's netdev as master.
 * A "mode", "master" or "deviceID" in the config that says otherwise is
 * refused, naming both. The claim's opaque configuration, as prepared for
 * the device (dra.h rn_dra_netconfig: class entries, then the claim's):
 *   - "mode"/"ipvlanMode": the link's; the config's own key, if it gives
 *     one, must say the same (code 7 naming both);
 *   - "ippools": replace the config's (which may then omit "ippools");
 *     each must be a pool of the node (its config's or the store's) of
 *     the list's family, else code 7 naming the claim and the pool;
 *   - "dscp": replaces the config's; one of cni.allowed_dscp, as the
 *     config's must be (code 7 naming the claim).
 * A claim without configuration attaches as the network config says. netconf.c parses "dra" (code 7 for anything but
 * an object with a valid "request"). The DRA state file is the node config's
 * dra.state_dir's (node.h: host paths come from the node only). */
#ifndef RDMANET_CNI_DRA_CLAIM_H
#define RDMANET_CNI_DRA_CLAIM_H

#include "cmd.h"
#include "config.h"

/* ADD's step, after the node config is loaded and before the device is
 * taken: with "dra", sets r->conf's mode, master or device_id and
 * dra_claim_uid from the pod's claim, and what its configuration gives. Changes nothing on the node. Code 4
 * without K8S_POD_UID, 7 when no prepared claim of the pod has the request
 * or the config contradicts it, 101 when the device is gone. */
int cni_dra_take(struct cni_req *r, const struct rn_config *cfg);

#endif
