/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A pool switched to blocks with live per-allocation addresses in it (the
 * etcd store's P/ips/<pool>/<hex> records, etcd_keys.h): the addresses stay
 * where they are and land in the blocks that contain them, owned by their
 * node. A node adopts a block whose every per-allocation record is its own
 * and whose owners hold that one address each: it copies each record into
 * its node-local store (the same owner, the same address), then in one
 * etcd transaction claims the block under its lease and deletes the
 * records and their owner keys, comparing that none of them changed and
 * that no per-allocation record appeared in the block since it read them.
 *
 * What is never adopted stays per-allocation, owned as before, and its
 * block unclaimable (block_claim.c skips blocks holding such records):
 * blocks holding addresses of several nodes, owners holding more than one
 * address (dual-stack: the two stay together), blocks with more records
 * than one transaction takes. No address is ever held twice: until the
 * transaction the block is nobody's and the local copies lie outside the
 * node's blocks (never handed out); after it, the records are gone and the
 * block is the node's. A crash in between leaves both copies of the same
 * owner, and the next pass finishes it (the local copy is idempotent). A
 * DEL meanwhile (rn_ipam_release: the node's store, then etcd) either
 * deletes the records before the transaction (which then fails, and the
 * copies go) or finds them gone after it and looks in the node's store
 * again, releasing the copy. */
#ifndef RDMANET_IPAM_BLOCK_ADOPT_H
#define RDMANET_IPAM_BLOCK_ADOPT_H

#include "error.h"
#include "ipam/block_claim.h"
#include "ipam/store.h"

/* Adopts what it can of pool p (p->block set) for node under lease l into
 * local (which must hold p). Returns the number of addresses adopted
 * (their blocks are node's in etcd now), or an error. */
int rn_block_adopt(struct rn_etcd *c, const char *prefix, const char *node,
		   const struct rn_block_lease *l, const struct rn_pool *p, struct rn_store *local,
		   struct rn_error *e);

#endif
