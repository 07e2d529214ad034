/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The etcd store's key layout under the configured prefix P:
 *
 *   P/pools/<pool>               {"spec": <pool JSON>, "from_config": bool,
 *                                 "deleting": bool}
 *   P/cursor/<pool>              hex of the last address handed out (round-
 *                                robin hint; written blindly, never compared,
 *                                so it never makes a transaction fail)
 *   P/ips/<pool>/<hex address>   one key per allocated address: {"container_id",
 *                                "ifname", "namespace", "pod", "node", "created"}
 *   P/owners/<container id>/<ifname>
 *                                what an attachment holds: {"addrs": [{"pool",
 *                                "ip", "created"}], "namespace", "pod", "node"}
 *
 * Addresses are fixed-width lowercase hex (8 digits IPv4, 32 IPv6), so key
 * order is address order and "allocated addresses after the cursor" is a
 * key range. An allocation is one transaction that requires the address
 * key to be absent (create_revision == 0), the owner key to be unchanged
 * since it was read, and the pool definition to be unchanged, and then
 * writes the address key, the owner key and the cursor. Allocations of
 * different addresses (different pods, pools or nodes) compare and write
 * disjoint keys, so they only conflict when they pick the same address;
 * releases are transactions on the owner key and its address keys.
 * Container ids and interface names are percent-encoded outside
 * [A-Za-z0-9._-], so the store's keys never hold bytes below 0x21. */
#ifndef RDMANET_IPAM_ETCD_KEYS_H
#define RDMANET_IPAM_ETCD_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "netaddr.h"

#define RN_ETCD_KEY_MAX 1024

void rn_etcd_key_pool(char *out, const char *prefix, const char *pool);
void rn_etcd_key_pools(char *out, const char *prefix);		/* the directory */
void rn_etcd_key_cursor(char *out, const char *prefix, const char *pool);
void rn_etcd_key_ips(char *out, const char *prefix, const char *pool);	/* one pool's */
void rn_etcd_key_all_ips(char *out, const char *prefix);
void rn_etcd_key_ip(char *out, const char *prefix, const char *pool, const struct rn_addr *a);
void rn_etcd_key_owner(char *out, const char *prefix, const char *container_id,
		       const char *ifname);
void rn_etcd_key_owners(char *out, const char *prefix);

/* Address <-> fixed-width hex. */
void rn_etcd_addr_hex(const struct rn_addr *a, char *out);
int rn_etcd_hex_addr(const char *hex, size_t len, struct rn_addr *a);
/* Splits "P/ips/<pool>/<hex>" into pool and address. */
int rn_etcd_parse_ip_key(const char *key, const char *prefix, char *pool, size_t pool_size,
			 struct rn_addr *a);

#endif
