/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* IPAM: hands out addresses from IP pools so that no address is ever held
 * twice, across concurrent processes (the CNI plugin runs as many at once),
 * nodes (with the etcd store) and crashes (kill -9 at any point).
 *
 * Where pools live: the store is the source of truth for pools and
 * allocations. Pools declared in the config file ("pools") are upserted
 * into the store: rn_ipam_open() adds config pools the store does not have
 * yet (first use); rn_ipam_sync() (rdmanetd at start, `rdmanetctl pool
 * sync`) also replaces the stored definition of a config pool whose
 * definition changed. `rdmanetctl pool add/del` manage pools directly in the
 * store. Reading (rn_ipam_open_readonly: listings, lookups, metrics) never
 * writes. Conflicts:
 *  - a config pool and a stored pool of the same name: the store's
 *    definition is used for allocation until a sync replaces it with the
 *    config's (the config owns the pools it declares);
 *  - a pool (from the config or `pool add`) that overlaps another pool on a
 *    master they share is rejected with both names, and nothing changes;
 *  - `pool add` of an existing name is refused; `pool del` of a pool that
 *    still has allocations is refused unless forced (which releases them);
 *  - a pool removed from the config stays in the store (it may hold
 *    addresses) until `rdmanetctl pool del`;
 *  - a definition change that shrinks a pool leaves existing allocations
 *    outside the new usable set in place until they are released; they are
 *    never handed out again.
 *
 * Config ("ipam" section; every key has a default):
 *   { "store": "sqlite", "path": "/var/lib/rdmanet/ipam.db", "timeout_s": 5 }
 *   { "store": "etcd", "endpoints": ["http://10.0.0.1:2379", ...],
 *     "prefix": "/rdmanet", "timeout_s": 5,
 *     "tls": { "ca_file": "...", "cert_file": "...", "key_file": "..." } }
 * timeout_s bounds every call (an open, an allocate...): past it the call
 * fails with -EAGAIN ("try again later") instead of hanging; rdmanetctl
 * exits 75 (EX_TEMPFAIL) then. etcd endpoints are tried in turn (failover);
 * TLS with a client certificate is optional.
 *
 * Allocation semantics:
 *  - per address family the request lists pools in order of preference;
 *    pools whose master/node affinity excludes the request are skipped; the
 *    first with a free address wins;
 *  - within a pool, addresses are picked round-robin after the last one
 *    allocated, so a just-released address is not reused while others are
 *    free (peers may still have it in their ARP/ND caches). This is exact
 *    for allocations that do not race; allocators racing on one etcd pool
 *    (several nodes at once) that lose an address to another move a few
 *    free addresses on, so their picks interleave around the cursor;
 *  - (container_id, ifname) owns at most one address per family; asking
 *    again returns what it holds (idempotent, also after a crash between the
 *    store write and the caller's use of the result);
 *  - dual stack is all-or-nothing: either every requested family gets an
 *    address or nothing is allocated;
 *  - release and gc are idempotent; an address is durable in the store
 *    before allocate returns it;
 *  - gc considers only the allocations of one node (the config's, by
 *    default): each node's runtime knows only its own attachments.
 *
 * Errors (return value and e->code): -EAGAIN the store is unavailable (etcd
 * unreachable or without quorum, SQLite locked past the timeout): try again
 * later (CNI error code 11); -ENOSPC every candidate pool is exhausted;
 * -EINVAL bad config or request; -ENOENT unknown pool; -ENOMEM; -EIO a store
 * that answers with something unexpected. */
#ifndef RDMANET_IPAM_H
#define RDMANET_IPAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "error.h"
#include "netaddr.h"
#include "ipam/pool.h"

#define RN_IPAM_ID_MAX		256	/* container id, with the NUL */
#define RN_IPAM_NS_MAX		64	/* Kubernetes namespace, with the NUL */
#define RN_IPAM_POD_MAX		254	/* Kubernetes pod name, with the NUL */
#define RN_IPAM_MAX_POOLS	16	/* pools listed per family in a request */

struct rn_ipam;

struct rn_ipam_request {
	const char *container_id;	/* required */
	const char *ifname;		/* required, the pod-side interface name */
	const char *pod_namespace;	/* may be NULL */
	const char *pod_name;		/* may be NULL */
	const char *node;		/* NULL: the config's node */
	const char *master;		/* NULL: no master affinity check */
	const char *const *ipv4_pools;	/* pool names, in order of preference */
	unsigned int n_ipv4_pools;
	const char *const *ipv6_pools;
	unsigned int n_ipv6_pools;
};

struct rn_ipam_address {
	struct rn_prefix address;	/* the address with its pool subnet's length */
	bool has_gateway;
	struct rn_addr gateway;
	unsigned int n_routes;
	struct rn_pool_route routes[RN_POOL_MAX_ROUTES];
	char pool[RN_POOL_NAME_MAX];
	unsigned int vlan;		/* 0: untagged */
};

/* At most one address per family: IPv4 first, then IPv6. */
struct rn_ipam_result {
	unsigned int n;
	struct rn_ipam_address addrs[2];
};

/* Who holds an address. */
struct rn_ipam_allocation {
	char pool[RN_POOL_NAME_MAX];
	struct rn_addr addr;
	char container_id[RN_IPAM_ID_MAX];
	char ifname[RN_IFNAMSIZ];
	char pod_namespace[RN_IPAM_NS_MAX];
	char pod_name[RN_IPAM_POD_MAX];
	char node[RN_POOL_NODE_MAX];
	int64_t created;		/* unix seconds */
};

/* An attachment a runtime still knows about (CNI GC valid-attachments). */
struct rn_ipam_owner {
	const char *container_id;
	const char *ifname;
};

/* A pool as the store holds it. */
struct rn_ipam_pool_info {
	struct rn_pool pool;
	bool from_config;		/* declared in a config file (synced) */
	unsigned long long allocated;
	unsigned long long total;	/* usable addresses, saturated at 2^64-1 */
};

/* Opens the store c->ipam selects (SQLite by default, created if missing),
 * and adds the config's pools the store does not have yet: for callers
 * that allocate or change the store. `c` must outlive the handle. */
int rn_ipam_open(struct rn_ipam **out, const struct rn_config *c, struct rn_error *e);
/* Opens the store for reading (listings, lookups, check, metrics): nothing
 * is created or written, the config's pools included (a config pool the
 * store lacks is not listed until an allocation or a sync writes it). A
 * SQLite store that does not exist yet fails with -ENOENT saying so. Calls
 * that would write fail with -EROFS (gc with dry_run is a read). */
int rn_ipam_open_readonly(struct rn_ipam **out, const struct rn_config *c, struct rn_error *e);
void rn_ipam_close(struct rn_ipam *ipam);
/* "sqlite" or "etcd". */
const char *rn_ipam_store_name(const struct rn_ipam *ipam);

int rn_ipam_allocate(struct rn_ipam *ipam, const struct rn_ipam_request *req,
		     struct rn_ipam_result *res, struct rn_error *e);
/* Releases what (container_id, ifname) holds; returns how many addresses
 * were released (0 if none: not an error). */
int rn_ipam_release(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		    struct rn_error *e);
/* Releases one address of a pool whoever holds it (operator's tool);
 * returns 1, or 0 if it was free. */
int rn_ipam_release_ip(struct rn_ipam *ipam, const char *pool, const struct rn_addr *addr,
		       struct rn_error *e);
/* Which allocations a GC considers. A valid-attachments list comes from
 * one node's runtime, which knows nothing of other nodes' pods: with a
 * store shared by the cluster (etcd), collecting every allocation missing
 * from it would release the other nodes' addresses while their pods still
 * use them, and hand them out twice. So a GC is node-scoped unless the
 * caller says otherwise. */
struct rn_ipam_gc_scope {
	const char *node;		/* NULL or "": the config's node */
	bool all_nodes;			/* every allocation in the store, whichever
					 * node made it (an operator's choice) */
};

/* Releases every allocation made on the scope's node whose owner is not in
 * valid[0..n-1]; returns how many addresses were released. With dry_run
 * nothing is changed and the count is what would be released. */
int rn_ipam_gc_scoped(struct rn_ipam *ipam, const struct rn_ipam_gc_scope *scope,
		      const struct rn_ipam_owner *valid, size_t n, bool dry_run,
		      struct rn_error *e);
/* rn_ipam_gc_scoped() on the config's node. */
int rn_ipam_gc(struct rn_ipam *ipam, const struct rn_ipam_owner *valid, size_t n,
	       bool dry_run, struct rn_error *e);

/* Who holds addr (one entry per pool holding it; pools on different masters
 * may share addresses). Returns the count (0: free), at most max filled. */
int rn_ipam_lookup_ip(struct rn_ipam *ipam, const struct rn_addr *addr,
		      struct rn_ipam_allocation *out, size_t max, struct rn_error *e);
/* What (container_id, ifname) holds. Returns the count, at most max filled. */
int rn_ipam_lookup_owner(struct rn_ipam *ipam, const char *container_id, const char *ifname,
			 struct rn_ipam_allocation *out, size_t max, struct rn_error *e);
/* What (container_id, ifname) holds, as allocate would return it (IPv4
 * first, with each pool's prefix length, gateway, routes and VLAN): for CNI
 * CHECK and for results of attachments made earlier. res->n is 0 if it
 * holds nothing. */
int rn_ipam_held(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		 struct rn_ipam_result *res, struct rn_error *e);
/* Every allocation of a pool (NULL: of all pools), sorted by pool and
 * address; *out is malloc'd (free() it). Returns the count. */
int rn_ipam_allocations(struct rn_ipam *ipam, const char *pool,
			struct rn_ipam_allocation **out, struct rn_error *e);

/* Pools. Lists are malloc'd arrays: free with rn_ipam_pools_free(). */
int rn_ipam_pool_list(struct rn_ipam *ipam, struct rn_ipam_pool_info **out,
		      struct rn_error *e);
void rn_ipam_pools_free(struct rn_ipam_pool_info *pools, int n);
int rn_ipam_pool_get(struct rn_ipam *ipam, const char *name, struct rn_ipam_pool_info *out,
		     struct rn_error *e);	/* free out->pool with rn_pool_free */
/* AF_INET or AF_INET6 of a pool, from what the handle knows (loading the
 * store's pools only for a name it does not know), or a negative error. */
int rn_ipam_pool_family(struct rn_ipam *ipam, const char *name, struct rn_error *e);
/* Adds a new pool (refused if the name exists or it overlaps another pool). */
int rn_ipam_pool_add(struct rn_ipam *ipam, const struct rn_pool *p, struct rn_error *e);
/* Deletes a pool: -EBUSY while it holds addresses unless force (then its
 * allocations go with it). Returns how many allocations were dropped. */
int rn_ipam_pool_del(struct rn_ipam *ipam, const char *name, bool force, struct rn_error *e);
/* Upserts every config pool into the store (see the header comment).
 * Returns how many pools were written, those the open added included. */
int rn_ipam_sync(struct rn_ipam *ipam, struct rn_error *e);

/* Verifies the store's invariants (each address held once, owner index and
 * addresses agree, allocations belong to existing pools). Returns the
 * number of problems found, each described in report (NULL: not kept),
 * or a negative error. */
int rn_ipam_check(struct rn_ipam *ipam, char *report, size_t size, struct rn_error *e);

/* The rest of the module's interface, for the agent, the CLI and the
 * node's composition (node/) beyond allocate and release: pool sets and
 * the allocator's preference (pool_set.h, alloc_pick.h), the "ipam" and
 * "pools" sections and the IPAM metric families (ipam_config.h,
 * ipam_settings.h), JSON views (ipam_json.h), per-node blocks (their
 * allocation, report and published records: block_alloc.h,
 * block_report.h, block_publish.h) and the pre-check table
 * (precheck_table.h). Include this header, not those: outside ipam/ they
 * are private (selftests/unit/test_module_headers.sh). */
#include "ipam/alloc_pick.h"
#include "ipam/block_alloc.h"
#include "ipam/block_publish.h"
#include "ipam/block_report.h"
#include "ipam/ipam_config.h"
#include "ipam/ipam_json.h"
#include "ipam/ipam_settings.h"
#include "ipam/pool_set.h"
#include "ipam/precheck_table.h"

#endif
