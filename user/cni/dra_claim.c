// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ADD's device from the pod's DRA claim (dra_claim.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dra/dra.h"
#include "dra_claim.h"
#include "log.h"

/* the claim's VF: exclusive mode with it */
static int take_vf(struct cni_req *r, const struct rn_dra_pod_device *pd)
{
	struct cni_netconf *c = &r->conf;
	const char *pci = pd->dev.pci;
	bool mode_given = json_object_get(c->root, "mode") != NULL;

	if (mode_given && c->mode != CNI_MODE_SRIOV)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: mode \"%s\": the pod's claim %s/%s "
				"got VF %s (exclusive): mode \"sriov\" or none", cni_mode_names[c->mode],
				pd->claim_namespace, pd->claim_name, pci);
	if (c->master[0])
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: master \"%s\": the pod's claim "
				"%s/%s got VF %s, whose PF is its master", c->master,
				pd->claim_namespace, pd->claim_name, pci);
	if (c->device_id[0] && strcmp(c->device_id, pci))
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: deviceID %s: the pod's claim %s/%s "
				"got VF %s", c->device_id, pd->claim_namespace, pd->claim_name, pci);
	c->mode = CNI_MODE_SRIOV;
	snprintf(c->device_id, sizeof(c->device_id), "%s", pci);
	return 0;
}

/* the claim's HCA port: a child link on its netdev */
static int take_port(struct cni_req *r, const struct rn_dra_pod_device *pd)
{
	struct cni_netconf *c = &r->conf;
	const char *netdev = pd->dev.netdev;

	if (c->mode == CNI_MODE_SRIOV)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: mode \"sriov\": the pod's claim "
				"%s/%s got HCA port %s (shared): mode \"macvlan\" or \"ipvlan\"",
				pd->claim_namespace, pd->claim_name, pd->dev.device);
	if (!netdev[0])
		return cni_fail(&r->err, RN_CNI_ERR_MASTER, "the pod's claim %s/%s got HCA port %s, "
				"which has no netdev in the host netns", pd->claim_namespace,
				pd->claim_name, pd->dev.device);
	if (c->master[0] && strcmp(c->master, netdev))
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: master \"%s\": the pod's claim "
				"%s/%s got HCA port %s, whose netdev is %s", c->master,
				pd->claim_namespace, pd->claim_name, pd->dev.device, netdev);
	snprintf(c->master, sizeof(c->master), "%s", netdev);
	return 0;
}

static int lookup_code(int rc)
{
	switch (rc) {
	case -ENOENT:
	case -EEXIST:
		return CNI_ERR_CONFIG;
	case -ESTALE:
		return RN_CNI_ERR_MASTER;
	default:
		return RN_CNI_ERR_STATE;	/* the state file unreadable */
	}
}

int cni_dra_take(struct cni_req *r, const struct rn_config *cfg)
{
	struct rn_dra_config dc;
	struct rn_dra_pod_device pd;
	struct rn_error e = { 0 };
	int rc;

	if (!r->conf.dra_request[0])
		return 0;
	/* no guessing from the pod's name: a pod deleted and created again
	 * under the same name is another pod, with other claims */
	if (!r->env.pod_uid[0])
		return cni_fail(&r->err, CNI_ERR_ENV, "CNI_ARGS: K8S_POD_UID: required with "
				"\"dra\" (the pod's claim is found by the pod's UID, which kubelet "
				"passes in CNI_ARGS)");
	if (rn_dra_config_parse(cfg, &dc, &e))
		return cni_fail_rn(&r->err, CNI_ERR_CONFIG, &e, "node config");
	rc = rn_dra_pod_device(&dc, r->env.pod_uid, r->conf.dra_request, &pd, &e);
	if (rc)
		return cni_fail_rn(&r->err, lookup_code(rc), &e, "dra.request \"%s\"",
				   r->conf.dra_request);
	rc = pd.dev.kind == RN_DRA_VF ? take_vf(r, &pd) : take_port(r, &pd);
	if (rc)
		return rc;
	snprintf(r->conf.dra_claim_uid, sizeof(r->conf.dra_claim_uid), "%s", pd.claim_uid);
	rn_debug("%s/%s: device %s of claim %s/%s (%s), request %s", r->env.container_id,
		 r->env.ifname, pd.dev.device, pd.claim_namespace, pd.claim_name, pd.claim_uid,
		 r->conf.dra_request);
	return 0;
}
