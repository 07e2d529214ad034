/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The operator's view of a cluster's per-node blocks (block_claim.h): every
 * block claimed in etcd, who holds it under which lease, and how many of
 * its addresses this node's own store holds (rdmanetctl pool show).
 *
 * A block key lives only as long as its holder's lease (it is put with the
 * lease): a listed block is held by a node whose lease etcd still has. The
 * addresses in use are this node's only, from its own store: other nodes
 * allocate from theirs (no etcd round trip per ADD); what they hold is
 * published lazily by their agents (block_publish.h), as a report that
 * may be a tick old. */
#ifndef RDMANET_IPAM_BLOCK_REPORT_H
#define RDMANET_IPAM_BLOCK_REPORT_H

#include "error.h"
#include "ipam/block_claim.h"
#include "ipam/ipam_settings.h"

struct rn_block_usage {
	struct rn_block b;		/* pool, base/len, holder node and lease */
	unsigned long long size;	/* addresses in the block */
	long long used_here;		/* this node's allocations in it; -1 if the
					 * block is another node's */
};

/* Every claimed block of pool (NULL: every pool) of st's etcd, in pool and
 * address order, with the allocations node's store (st->path, read only;
 * none if it does not exist) holds in each of node's blocks. *out malloc'd;
 * returns the count. -EAGAIN if etcd does not answer. */
int rn_block_report(const struct rn_ipam_settings *st, const char *node, const char *pool,
		    struct rn_block_usage **out, struct rn_error *e);

#endif
