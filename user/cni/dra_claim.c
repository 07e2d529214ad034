// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ADD's device from the pod's DRA claim (dra_claim.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dra/dra.h"
#include "dra_claim.h"
#include "ipam/ipam.h"
#include "log.h"
#include "node_config.h"

_Static_assert(RN_DRA_POOL_LEN == RN_POOL_NAME_MAX, "a claim's pool names are the CNI's");
_Static_assert(RN_DRA_MAX_POOLS <= RN_IPAM_MAX_POOLS, "a claim's pools fit the CNI's lists");

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

/* the claim's mode and ipvlanMode: a key the network config also gives
 * must say the same (it was written for one kind of link) */
static int take_mode(struct cni_req *r, const struct rn_dra_pod_device *pd)
{
	const struct rn_dra_netconfig *k = &pd->dev.config;
	struct cni_netconf *c = &r->conf;
	const char *given = json_string_value(json_object_get(c->root, "ipvlanMode"));
	enum cni_mode mode = strcmp(k->mode, "ipvlan") ? CNI_MODE_MACVLAN : CNI_MODE_IPVLAN;

	if (k->mode[0] && json_object_get(c->root, "mode") && c->mode != mode)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: mode \"%s\": the pod's claim "
				"%s/%s configures mode \"%s\"", cni_mode_names[c->mode],
				pd->claim_namespace, pd->claim_name, k->mode);
	if (k->mode[0])
		c->mode = mode;
	if (!k->ipvlan_mode[0])
		return 0;
	if (given && strcmp(given, k->ipvlan_mode))
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: ipvlanMode \"%s\": the pod's claim "
				"%s/%s configures ipvlanMode \"%s\"", given, pd->claim_namespace,
				pd->claim_name, k->ipvlan_mode);
	for (int i = 0; i < 3; i++)
		if (!strcmp(cni_ipvlan_mode_names[i], k->ipvlan_mode))
			c->ipvlan_mode = cni_ipvlan_modes[i];
	return 0;
}

/* every pool of the claim's a pool of the node (its config's or the
 * store's) of the list's family */
static int pools_known(struct cni_req *r, const struct rn_config *cfg,
		       const struct rn_dra_pod_device *pd)
{
	const struct rn_dra_netconfig *k = &pd->dev.config;
	const char (*lists[2])[RN_DRA_POOL_LEN] = { k->ipv4_pools, k->ipv6_pools };
	const int counts[2] = { k->n_ipv4_pools, k->n_ipv6_pools }, families[2] = { AF_INET, AF_INET6 };
	struct rn_ipam *ipam = NULL;
	int rc = 0;

	if (cni_ipam_open(cfg, &ipam, &r->err))
		return -1;
	for (int f = 0; f < 2 && !rc; f++)
		for (int i = 0; i < counts[f] && !rc; i++) {
			struct rn_error e = { 0 };
			int family = rn_ipam_pool_family(ipam, lists[f][i], &e);

			if (family == -ENOENT)
				rc = cni_fail(&r->err, CNI_ERR_CONFIG, "the pod's claim %s/%s: ippools.%s: "
					      "pool \"%s\" does not exist on this node",
					      pd->claim_namespace, pd->claim_name, f ? "ipv6" : "ipv4",
					      lists[f][i]);
			else if (family < 0)
				rc = cni_fail_rn(&r->err, CNI_ERR_UNAVAILABLE, &e, "pool \"%s\"",
						 lists[f][i]);
			else if (family != families[f])
				rc = cni_fail(&r->err, CNI_ERR_CONFIG, "the pod's claim %s/%s: ippools.%s: "
					      "pool \"%s\" is an IPv%c pool", pd->claim_namespace,
					      pd->claim_name, f ? "ipv6" : "ipv4", lists[f][i],
					      family == AF_INET ? '4' : '6');
		}
	rn_ipam_close(ipam);
	return rc;
}

/* the claim's pools replace the network's; its DSCP replaces the
 * network's and, like it, must be one of the node's cni.allowed_dscp */
static int take_pools_dscp(struct cni_req *r, const struct rn_config *cfg,
			   const struct rn_dra_pod_device *pd)
{
	const struct rn_dra_netconfig *k = &pd->dev.config;
	struct cni_netconf *c = &r->conf;
	char msg[sizeof(r->err.msg)];
	int n = 0;

	if (k->has_pools) {
		if (pools_known(r, cfg, pd))
			return -1;
		c->n_ipv4_pools = c->n_ipv6_pools = 0;
		for (int i = 0; i < k->n_ipv4_pools; i++, n++) {
			snprintf(c->dra_pools[n], RN_POOL_NAME_MAX, "%s", k->ipv4_pools[i]);
			c->ipv4_pools[c->n_ipv4_pools++] = c->dra_pools[n];
		}
		for (int i = 0; i < k->n_ipv6_pools; i++, n++) {
			snprintf(c->dra_pools[n], RN_POOL_NAME_MAX, "%s", k->ipv6_pools[i]);
			c->ipv6_pools[c->n_ipv6_pools++] = c->dra_pools[n];
		}
	}
	if (!c->n_ipv4_pools && !c->n_ipv6_pools)
		return cni_fail(&r->err, CNI_ERR_CONFIG, "config: ippools: required: neither the "
				"network config nor the pod's claim %s/%s names a pool",
				pd->claim_namespace, pd->claim_name);
	if (!k->has_dscp)
		return 0;
	c->dscp = k->dscp;
	if (!cni_node_check_dscp(r, cfg))
		return 0;
	/* the check's message, saying whose DSCP it is */
	snprintf(msg, sizeof(msg), "%s", r->err.msg);
	memset(&r->err, 0, sizeof(r->err));
	return cni_fail(&r->err, CNI_ERR_CONFIG, "the pod's claim %s/%s: %s", pd->claim_namespace,
			pd->claim_name, msg);
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
	if (take_mode(r, &pd))
		return -1;
	rc = pd.dev.kind == RN_DRA_VF ? take_vf(r, &pd) : take_port(r, &pd);
	if (rc || take_pools_dscp(r, cfg, &pd))
		return -1;
	snprintf(r->conf.dra_claim_uid, sizeof(r->conf.dra_claim_uid), "%s", pd.claim_uid);
	rn_debug("%s/%s: device %s of claim %s/%s (%s), request %s", r->env.container_id,
		 r->env.ifname, pd.dev.device, pd.claim_namespace, pd.claim_name, pd.claim_uid,
		 r->conf.dra_request);
	return 0;
}
