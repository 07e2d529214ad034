// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* STATUS: can this node service an ADD of this network right now?
 *   50 the IPAM store does not answer, or a family's pools are all full;
 *   51 the master is missing or down: ADD cannot work and the pods already
 *      on it have lost their rail.
 * Without rdmanetd's maps ADD still works, unaccounted: success, with the
 * degradation said on stderr (the spec's STATUS has no "degraded" answer). */
#include <errno.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "master_pick.h"
#include "node_config.h"
#include "pod_datapath.h"

/* 0 if some pool of the list has a free address. */
static int family_has_room(struct cni_req *r, struct rn_ipam *ipam, const char *const *pools,
			   unsigned int n, const char *fam)
{
	unsigned long long free_total = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct rn_ipam_pool_info info;
		struct rn_error e = { 0 };

		if (rn_ipam_pool_get(ipam, pools[i], &info, &e))
			return cni_fail_rn(&r->err, e.code == -ENOENT ? CNI_ERR_CONFIG :
					   CNI_ERR_UNAVAILABLE, &e, "pool \"%s\"", pools[i]);
		free_total += info.total - info.allocated;
		rn_pool_free(&info.pool);
	}
	if (n && !free_total)
		return cni_fail(&r->err, CNI_ERR_UNAVAILABLE, "every %s pool of network %s is "
				"exhausted", fam, r->conf.name);
	return 0;
}

int cni_cmd_status(struct cni_req *r)
{
	struct rn_ipam *ipam = NULL;
	struct rn_netdev master;
	struct rn_config cfg;
	int rc = -1;

	rn_config_defaults(&cfg);
	if (cni_node_load(r, &cfg))
		goto out;
	if (cni_ipam_open(&cfg, &ipam, &r->err)) {
		r->err.code = CNI_ERR_UNAVAILABLE;
		goto out;
	}
	if (cni_master_pick(&r->conf, &cfg, ipam, &master, &r->err)) {
		if (r->err.code == RN_CNI_ERR_MASTER)
			r->err.code = CNI_ERR_UNAVAILABLE_LIMITED;
		goto out;
	}
	if (family_has_room(r, ipam, r->conf.ipv4_pools, r->conf.n_ipv4_pools, "IPv4") ||
	    family_has_room(r, ipam, r->conf.ipv6_pools, r->conf.n_ipv6_pools, "IPv6"))
		goto out;
	if (!cni_datapath_present(cfg.bpf.pin_dir))
		rn_warn("STATUS: degraded: rdmanetd's maps are not pinned at %s; attachments work "
			"but get no per-pod accounting, marking or policy", cfg.bpf.pin_dir);
	else if (!cni_datapath_master_attached(cfg.bpf.pin_dir, master.ifname))
		rn_warn("STATUS: degraded: rdmanetd does not run the data path on %s; attachments "
			"work but get no per-pod accounting, marking or policy", master.ifname);
	rc = 0;
out:
	rn_ipam_close(ipam);
	rn_config_free(&cfg);
	return rc;
}
