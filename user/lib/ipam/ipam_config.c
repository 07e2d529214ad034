// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <unistd.h>

#include "textfile.h"
#include "ipam/cluster_check.h"
#include "ipam/ipam.h"
#include "ipam/ipam_config.h"
#include "ipam/ipam_settings.h"

int rn_ipam_config_check(const struct rn_config *c, struct rn_error *e)
{
	struct rn_ipam_settings st;
	struct rn_pool *pools;
	unsigned int n;
	int err;

	err = rn_ipam_settings_parse(&st, c, e);
	if (err)
		return err;
	err = rn_ipam_config_pools(c, &pools, &n, e);
	if (err)
		return err;
	for (unsigned int i = 0; c->cluster && i < n && !err; i++)
		if (rn_ipam_pool_cluster_check(&st, &pools[i], e))
			err = rn_fail_wrap(e, "config: pools[%u]", i);
	rn_ipam_config_pools_free(pools, n);
	return err;
}

static bool uses_ipam(const struct rn_config *c, const struct rn_ipam_settings *st)
{
	if (c->ipam || json_array_size(c->pools))
		return true;
	return st->store == RN_IPAM_STORE_SQLITE && access(st->path, F_OK) == 0;
}

void rn_metrics_pools(FILE *f, const struct rn_config *c)
{
	const char *store_labels[] = { "store", NULL, NULL };
	struct rn_ipam_pool_info *pools = NULL;
	struct rn_ipam_settings st;
	struct rn_ipam *ipam = NULL;
	struct rn_error e = { 0 };
	int n = -1;

	if (rn_ipam_settings_parse(&st, c, NULL) || !uses_ipam(c, &st))
		return;
	/* an export reads: it neither creates the store nor writes pools */
	if (!rn_ipam_open_readonly(&ipam, c, &e))
		n = rn_ipam_pool_list(ipam, &pools, NULL);
	else if (e.code == -ENOENT)
		n = 0;	/* no store yet: it answered, with no pools */
	store_labels[1] = st.store == RN_IPAM_STORE_ETCD ? "etcd" : "sqlite";
	rn_metric_family(f, "rdmanet_ipam_store_up", "gauge",
			 "Whether the IPAM store answered this export (1) or not (0).");
	rn_metric_sample(f, "rdmanet_ipam_store_up", store_labels, n >= 0);
	if (n > 0) {
		static const struct {
			const char *name, *help;
		} fam[] = {
			{ "rdmanet_ipam_pool_addresses", "Usable addresses in the pool." },
			{ "rdmanet_ipam_pool_allocated_addresses",
			  "Addresses of the pool held by an attachment." },
			{ "rdmanet_ipam_pool_free_addresses",
			  "Addresses of the pool free to hand out." },
		};

		for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
			rn_metric_family(f, fam[k].name, "gauge", fam[k].help);
			for (int i = 0; i < n; i++) {
				const char *labels[] = { "pool", pools[i].pool.name, NULL };
				unsigned long long v[] = {
					pools[i].total, pools[i].allocated,
					pools[i].total > pools[i].allocated ?
						pools[i].total - pools[i].allocated : 0 };

				rn_metric_sample(f, fam[k].name, labels, v[k]);
			}
		}
	}
	if (n >= 0)
		rn_ipam_pools_free(pools, n);
	rn_ipam_close(ipam);
}

int rn_ipam_agent_sync(const struct rn_config *c, struct rn_error *e)
{
	struct rn_ipam *ipam;
	int n;

	if (!c->ipam && !json_array_size(c->pools))
		return 0;
	n = rn_ipam_open(&ipam, c, e);
	if (n)
		return n;
	n = rn_ipam_sync(ipam, e);
	rn_ipam_close(ipam);
	return n;
}
