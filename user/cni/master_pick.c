// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "ipam/ipam.h"
#include "master_pick.h"

/* The pool's masters: from the node config when it declares the pool (no
 * store round trip), else as the store holds it (`rdmanetctl pool add`);
 * 1 if that is where they are and there is no store to ask. */
static int pool_masters(const char *name, const struct rn_pool *cfg_pools, unsigned int n_cfg,
			struct rn_ipam *ipam, struct rn_pool *out, struct cni_err *err)
{
	struct rn_ipam_pool_info info;
	struct rn_error e = { 0 };

	for (unsigned int i = 0; i < n_cfg; i++)
		if (!strcmp(cfg_pools[i].name, name))
			return rn_pool_copy(out, &cfg_pools[i]) ?
				cni_fail(err, RN_CNI_ERR_INTERNAL, "out of memory") : 0;
	if (!ipam)
		return 1;
	if (rn_ipam_pool_get(ipam, name, &info, &e))
		return cni_fail_rn(err, 0, &e, "pool \"%s\"", name);
	*out = info.pool;
	return 0;
}

static int choose(const struct cni_netconf *c, const struct rn_config *cfg, struct rn_ipam *ipam,
		  struct rn_netdev *dev, struct cni_err *err)
{
	const char *const *lists[2] = { c->ipv4_pools, c->ipv6_pools };
	unsigned int counts[2] = { c->n_ipv4_pools, c->n_ipv6_pools };
	struct rn_pool *cfg_pools = NULL;
	unsigned int n_cfg = 0;
	struct rn_error e = { 0 };
	bool any = false;
	int rc = -1;

	if (rn_ipam_config_pools(cfg, &cfg_pools, &n_cfg, &e))
		return cni_fail_rn(err, CNI_ERR_CONFIG, &e, "configFile pools");
	for (int f = 0; f < 2 && rc; f++) {
		for (unsigned int i = 0; i < counts[f] && rc; i++) {
			struct rn_pool p = { 0 };
			int found = pool_masters(lists[f][i], cfg_pools, n_cfg, ipam, &p, err);

			if (found) {
				rc = found;
				goto out;
			}
			for (unsigned int m = 0; m < p.n_masters && rc; m++) {
				any = true;
				if (!rn_netdev_get(p.masters[m], 0, dev, &e))
					rc = 0;
			}
			rn_pool_free(&p);
		}
	}
	if (rc && !any)
		cni_fail(err, CNI_ERR_CONFIG, "config: no \"master\", and none of the pools in "
			 "\"ippools\" lists masters to choose from");
	else if (rc)
		cni_fail(err, RN_CNI_ERR_MASTER, "none of the masters of the pools in \"ippools\" "
			 "exists on this node");
out:
	rn_ipam_config_pools_free(cfg_pools, n_cfg);
	return rc;
}

int cni_master_pick(const struct cni_netconf *c, const struct rn_config *cfg,
		    struct rn_ipam *ipam, struct rn_netdev *dev, struct cni_err *err)
{
	struct rn_error e = { 0 };

	if (!c->master[0]) {
		int rc = choose(c, cfg, ipam, dev, err);

		if (rc)
			return rc;
	} else if (rn_netdev_get(c->master, 0, dev, &e)) {
		return cni_fail_rn(err, RN_CNI_ERR_MASTER, &e, "master");
	}
	if (!dev->up)
		return cni_fail(err, RN_CNI_ERR_MASTER, "master %s is down", dev->ifname);
	if (c->mtu > dev->mtu)
		return cni_fail(err, CNI_ERR_CONFIG, "config: mtu %u is larger than master %s's "
				"MTU %u", c->mtu, dev->ifname, dev->mtu);
	return 0;
}
