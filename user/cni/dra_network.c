// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The pod's network data for its DRA claim (dra_network.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dra/dra.h"
#include "dra_network.h"
#include "log.h"

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int cni_dra_network_record(struct cni_req *r, const struct rn_config *cfg,
			   const struct cni_attachment *att)
{
	struct rn_dra_attachment a = { 0 };
	struct rn_dra_pod_device pd;
	struct rn_dra_config dc;
	struct rn_error e = { 0 };

	if (!r->conf.dra_claim_uid[0])
		return 0;
	/* the claim and device ADD took (cni_dra_take read the same file):
	 * a claim prepared again meanwhile for another UID is not this pod's */
	if (rn_dra_config_parse(cfg, &dc, &e) ||
	    rn_dra_pod_device(&dc, r->env.pod_uid, r->conf.dra_request, &pd, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "DRA network data");
	if (strcmp(pd.claim_uid, r->conf.dra_claim_uid))
		return cni_fail(&r->err, CNI_ERR_CONFIG, "DRA network data: the pod's claim %s/%s "
				"is %s now, not %s (replaced during ADD)", pd.claim_namespace,
				pd.claim_name, pd.claim_uid, r->conf.dra_claim_uid);
	snprintf(a.network, sizeof(a.network), "%s", r->conf.name);
	snprintf(a.container_id, sizeof(a.container_id), "%s", r->env.container_id);
	snprintf(a.ifname, sizeof(a.ifname), "%s", att->ifname);
	snprintf(a.pod_uid, sizeof(a.pod_uid), "%s", r->env.pod_uid);
	snprintf(a.claim_namespace, sizeof(a.claim_namespace), "%s", pd.claim_namespace);
	snprintf(a.claim_name, sizeof(a.claim_name), "%s", pd.claim_name);
	snprintf(a.claim_uid, sizeof(a.claim_uid), "%s", pd.claim_uid);
	snprintf(a.driver, sizeof(a.driver), "%s", dc.driver);
	snprintf(a.pool, sizeof(a.pool), "%s", pd.dev.pool);
	snprintf(a.device, sizeof(a.device), "%s", pd.dev.device);
	for (unsigned int i = 0; i < att->n_addrs && a.n_ips < RN_DRA_NET_MAX_IPS; i++)
		rn_prefix_format(&att->addrs[i].address, a.ips[a.n_ips++]);
	rn_mac_format(att->mac, a.mac);
	a.attached_ns = realtime_ns();
	if (rn_dra_attachment_write(dc.state_dir, &a, &e))
		return cni_fail_rn(&r->err, RN_CNI_ERR_STATE, &e, "DRA network data");
	rn_debug("%s/%s: network data for claim %s/%s, device %s", a.container_id, a.ifname,
		 a.claim_namespace, a.claim_name, a.device);
	return 0;
}

int cni_dra_network_forget(const struct rn_config *cfg, const char *network,
			   const char *container_id, const char *ifname, struct rn_error *e)
{
	struct rn_dra_config dc;
	struct rn_error ce = { 0 };

	if (rn_dra_config_parse(cfg, &dc, &ce))
		return 0;	/* no valid "dra" section: ADD recorded nothing */
	return rn_dra_attachment_remove(dc.state_dir, network, container_id, ifname, e);
}
