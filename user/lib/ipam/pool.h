/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* An IP pool: a subnet, the addresses of it that may be handed out, and
 * what a pod needs with an address (gateway, routes, VLAN), plus which
 * masters and nodes may use it.
 *
 * JSON form (the config's "pools" entries, `rdmanetctl pool add --file`,
 * and what the stores keep; unknown keys are errors):
 *   { "name": "rail1-v4", "subnet": "172.16.11.0/24",
 *     "ips": ["172.16.11.1-172.16.11.200", "172.16.11.230"],
 *     "exclude": ["172.16.11.7", "172.16.11.20-172.16.11.29"],
 *     "gateway": "172.16.11.254",
 *     "routes": [ { "dst": "172.16.0.0/16", "gw": "172.16.11.254" } ],
 *     "vlan": 0, "masters": ["ens6f0np0"], "nodes": ["worker-1"], "block": 26 }
 * Only name and subnet are required. Without "ips" the whole subnet is the
 * range. The usable set is the ranges minus the excludes, minus the
 * gateway, minus the IPv4 network and broadcast addresses of subnets wider
 * than /31 and the IPv6 subnet-router anycast address (all host bits zero)
 * of subnets wider than /127. /31 and /127 give two addresses, /32 and /128
 * one. Empty "masters"/"nodes" mean any master/node. "block" (a prefix
 * length, at least the subnet's): nodes claim the pool's addresses in
 * blocks of that size (ipam/block_claim.h); absent: per allocation. */
#ifndef RDMANET_IPAM_POOL_H
#define RDMANET_IPAM_POOL_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <rdmanet/master.h>

#include "error.h"
#include "netaddr.h"

#define RN_POOL_NAME_MAX	64	/* including the NUL */
#define RN_POOL_MAX_ROUTES	16
#define RN_POOL_MAX_RANGES	1024	/* "ips" and "exclude" entries, each */
#define RN_POOL_MAX_MASTERS	RN_MAX_MASTERS
#define RN_POOL_MAX_NODES	4096
#define RN_POOL_NODE_MAX	254	/* a Kubernetes node name, with the NUL */

typedef unsigned __int128 rn_u128;

struct rn_pool_range {
	struct rn_addr first, last;	/* inclusive; first == last for one address */
};

struct rn_pool_route {
	struct rn_prefix dst;
	bool has_gw;
	struct rn_addr gw;
};

/* A run of consecutive usable addresses, as 128-bit integers. */
struct rn_pool_seg {
	rn_u128 lo, hi;			/* inclusive */
};

struct rn_pool {
	char name[RN_POOL_NAME_MAX];
	struct rn_prefix subnet;	/* host bits zero */
	unsigned int n_ranges;
	struct rn_pool_range *ranges;	/* "ips" as written; none: the subnet */
	unsigned int n_excludes;
	struct rn_pool_range *excludes;
	bool has_gateway;
	struct rn_addr gateway;
	unsigned int n_routes;
	struct rn_pool_route routes[RN_POOL_MAX_ROUTES];
	unsigned int vlan;		/* 802.1Q id, 0: untagged */
	unsigned int n_masters;
	char (*masters)[RN_IFNAMSIZ];
	unsigned int n_nodes;
	char (*nodes)[RN_POOL_NODE_MAX];
	unsigned int block;		/* block prefix length, 0: no blocks */

	/* Derived by validation: the usable set, sorted and disjoint. */
	unsigned int n_segs;
	struct rn_pool_seg *segs;
	rn_u128 size;			/* number of usable addresses */
};

/* Parses and validates one pool object; `where` prefixes error messages
 * ("config: pools[2]"). On error p is left empty (safe to rn_pool_free). */
int rn_pool_from_json(struct rn_pool *p, json_t *obj, const char *where, struct rn_error *e);
int rn_pool_from_text(struct rn_pool *p, const char *json_text, const char *where,
		      struct rn_error *e);
/* Canonical JSON: addresses printed canonically, defaults omitted.
 * rn_pool_from_json(rn_pool_to_json(p)) gives back an equal pool. */
json_t *rn_pool_to_json(const struct rn_pool *p);
char *rn_pool_to_text(const struct rn_pool *p);	/* compact; free() it */
bool rn_pool_equal(const struct rn_pool *a, const struct rn_pool *b);
int rn_pool_copy(struct rn_pool *dst, const struct rn_pool *src);
void rn_pool_free(struct rn_pool *p);

int rn_pool_family(const struct rn_pool *p);	/* AF_INET or AF_INET6 */
bool rn_pool_usable(const struct rn_pool *p, const struct rn_addr *a);
/* Affinity: an empty list matches everything; an empty/NULL name matches
 * every pool (the caller did not say). */
bool rn_pool_serves_master(const struct rn_pool *p, const char *master);
bool rn_pool_serves_node(const struct rn_pool *p, const char *node);

/* Two pools conflict when their usable sets share an address and their
 * master sets intersect (empty = all masters): the same address could be
 * handed to two pods on one L2 segment. Fills e naming both pools and the
 * first shared address. */
int rn_pool_check_overlap(const struct rn_pool *a, const struct rn_pool *b,
			  struct rn_error *e);

/* Two pools serve an intersecting set of masters and of nodes (empty =
 * all): an address one of them holds must not be handed out by the other. */
bool rn_pools_share_scope(const struct rn_pool *a, const struct rn_pool *b);

/* 128-bit integer view of addresses (network order, so order is preserved). */
rn_u128 rn_addr_to_u128(const struct rn_addr *a);
void rn_addr_from_u128(struct rn_addr *a, int family, rn_u128 v);
/* Saturating conversion for counters and metrics. */
unsigned long long rn_u128_sat64(rn_u128 v);

#endif
