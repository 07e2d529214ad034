/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Watching GID tables between ticks. An application that pinned a GID
 * index (NCCL_IB_GID_INDEX, a QP already connected) breaks when the entry
 * for its address moves or goes away; the watch reports exactly that.
 * Entries are keyed by (device, port, netdev, type, address); the first
 * update only primes the watch. An entry that goes and comes back at
 * another index is a move too, whether or not one update saw both (the
 * agent reads a table while the kernel rewrites it, and a pinned index is
 * as stale either way): the watch keeps the last index of the keys that
 * went, the newest RN_GID_WATCH_GONE of them. */
#ifndef RDMANET_RDMA_GID_WATCH_H
#define RDMANET_RDMA_GID_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "rdma/model.h"

enum rn_gid_event { RN_GID_ADDED, RN_GID_REMOVED, RN_GID_MOVED };

struct rn_gid_watch_entry {
	char dev[RN_RDMA_NAME_LEN];
	unsigned int port;
	char netdev[RN_IFNAMSIZ];
	enum rn_gid_type type;
	struct rn_addr addr;
	unsigned int index;
};

struct rn_gid_watch_port {
	char dev[RN_RDMA_NAME_LEN];
	unsigned int port;
	uint64_t moved;		/* index changes of an address's entry */
	uint64_t removed;
};

#define RN_GID_WATCH_GONE 256

struct rn_gid_watch {
	struct rn_gid_watch_entry *ents;
	int n;
	struct rn_gid_watch_entry *gone;	/* oldest first, RN_GID_WATCH_GONE at most */
	int n_gone;
	struct rn_gid_watch_port *ports;
	int n_ports;
	bool primed;
};

/* old is NULL for ADDED, now is NULL for REMOVED; a MOVED entry that
 * came back after it went gives its index then as old. */
typedef void (*rn_gid_event_cb)(enum rn_gid_event ev, const struct rn_gid_watch_entry *old,
				const struct rn_gid_watch_entry *now, void *arg);

/* Compares m with the last update, calls cb per difference, remembers m.
 * GIDs that map no address (IB, zero) are not watched. */
int rn_gid_watch_update(struct rn_gid_watch *w, const struct rn_rdma_model *m,
			rn_gid_event_cb cb, void *arg);
void rn_gid_watch_free(struct rn_gid_watch *w);
/* The agent's watch, read by the metrics export in the same process. */
struct rn_gid_watch *rn_gid_watch_agent(void);

#endif
