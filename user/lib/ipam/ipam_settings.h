/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The config's "ipam" section: which store, where, and how long to wait. */
#ifndef RDMANET_IPAM_SETTINGS_H
#define RDMANET_IPAM_SETTINGS_H

#include <limits.h>

#include "config.h"
#include "error.h"
#include "ipam/pool.h"

#define RN_IPAM_MAX_ENDPOINTS	16
#define RN_IPAM_URL_MAX		256
#define RN_IPAM_PREFIX_MAX	128
#define RN_IPAM_DEFAULT_TIMEOUT_S 5
#define RN_IPAM_DEFAULT_PREFIX	"/rdmanet"
#define RN_IPAM_DEFAULT_BLOCK_LEASE_S 900
#define RN_IPAM_DEFAULT_PRECHECK_AGE_S 30
#define RN_IPAM_DEFAULT_PRECHECK_PER_POOL 8
#define RN_IPAM_MAX_PRECHECK_PER_POOL 64

enum rn_ipam_store_kind { RN_IPAM_STORE_SQLITE = 0, RN_IPAM_STORE_ETCD };

struct rn_ipam_settings {
	enum rn_ipam_store_kind store;
	char path[PATH_MAX];				/* sqlite */
	unsigned int n_endpoints;			/* etcd */
	char endpoints[RN_IPAM_MAX_ENDPOINTS][RN_IPAM_URL_MAX];
	char prefix[RN_IPAM_PREFIX_MAX];
	struct {
		char ca_file[PATH_MAX];
		char cert_file[PATH_MAX];
		char key_file[PATH_MAX];
	} tls;
	unsigned int timeout_ms;			/* bound of every call */
	/* etcd: a node's block claims live this long past its last keep-alive
	 * (block_claim.h); the node stops allocating from them before */
	long long block_lease_s;
	/* "precheck": { "max_age_s": 30, "per_pool": 8 }: rdmanetd keeps up
	 * to per_pool addresses of each pool an ADD conflict-checks found free
	 * on the wire, none older than max_age_s (agent/ipam_precheck.h);
	 * per_pool 0: none */
	long long precheck_max_age_s;
	unsigned int precheck_per_pool;
};

/* Parses c->ipam (NULL: defaults). */
int rn_ipam_settings_parse(struct rn_ipam_settings *s, const struct rn_config *c,
			   struct rn_error *e);

/* The config's pools, validated one by one and against one another
 * (unique names, no overlap on a shared master). Free with
 * rn_ipam_config_pools_free. */
int rn_ipam_config_pools(const struct rn_config *c, struct rn_pool **out, unsigned int *n,
			 struct rn_error *e);
void rn_ipam_config_pools_free(struct rn_pool *pools, unsigned int n);

#endif
