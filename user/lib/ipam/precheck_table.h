/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pre-checked addresses: "address X of pool P was found free on master M's
 * wire at time T". rdmanetd probes the addresses a pool will hand out next
 * (agent/ipam_precheck.h) and writes them here; the CNI plugin's ADD reads
 * the table, lets the allocator prefer these addresses (ipam/alloc_pick.h)
 * and skips its own conflict-probe window for an address whose check is
 * younger than the table's max age.
 *
 * Where: <cni.state_dir>/.precheck (node config: the agent and the plugin
 * read the same; a network's name, which names its records' directory
 * there, cannot start with a dot). One small text file, replaced whole (write to a
 * temporary, rename), so a reader sees the old table or the new one:
 *   rdmanet-precheck 1 <boot id> <max age ms>
 *   <pool> <master> <address> <checked at, CLOCK_BOOTTIME ms>
 * Times are the boot's clock and the boot id is checked: a table from an
 * earlier boot (the state dir is on disk) says nothing. It is not synced:
 * a crash or power loss can only lose it or leave it unreadable, and an
 * unreadable table is an empty one (every ADD probes as without it).
 *
 * Which pools: the plugin leaves a marker <cni.state_dir>/.precheck.want/
 * <pool>:<master> at an ADD that runs the conflict check (an interface name
 * holds no ':'); the agent pre-checks the pools it finds marked. */
#ifndef RDMANET_IPAM_PRECHECK_TABLE_H
#define RDMANET_IPAM_PRECHECK_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "error.h"
#include "netaddr.h"
#include "ipam/ipam.h"
#include "ipam/ipam_settings.h"
#include "ipam/pool.h"

#define RN_PRECHECK_FILE	".precheck"
#define RN_PRECHECK_WANT_DIR	".precheck.want"
#define RN_PRECHECK_MAX		4096	/* entries a table may hold */
#define RN_PRECHECK_MAX_WANTS	256	/* (pool, master) pairs pre-checked */

struct rn_precheck_entry {
	char pool[RN_POOL_NAME_MAX];
	char master[RN_IFNAMSIZ];
	struct rn_addr addr;
	int64_t checked_ms;		/* CLOCK_BOOTTIME */
};

struct rn_precheck_table {
	int64_t max_age_ms;
	unsigned int n;
	struct rn_precheck_entry *e;	/* malloc'd, RN_PRECHECK_MAX at most */
};

struct rn_precheck_want {
	char pool[RN_POOL_NAME_MAX];
	char master[RN_IFNAMSIZ];
};

/* Milliseconds on CLOCK_BOOTTIME (one clock for every process of a boot). */
int64_t rn_precheck_now_ms(void);

/* 0 with t filled (empty: no file, another boot's, unreadable; said in e->msg
 * when e is given and the file is there but unreadable), or -ENOMEM. */
int rn_precheck_load(const char *state_dir, struct rn_precheck_table *t, struct rn_error *e);
int rn_precheck_save(const char *state_dir, const struct rn_precheck_table *t,
		     struct rn_error *e);
void rn_precheck_free(struct rn_precheck_table *t);
/* Checked within the table's max age (and not in the future). */
bool rn_precheck_fresh(const struct rn_precheck_table *t, const struct rn_precheck_entry *x,
		       int64_t now);
/* The fresh entry for (pool, master, addr), or NULL. */
const struct rn_precheck_entry *rn_precheck_find(const struct rn_precheck_table *t,
						 const char *pool, const char *master,
						 const struct rn_addr *addr, int64_t now);

/* The plugin's marker (idempotent, one open when it exists), at every ADD
 * that checks: it also touches the markers' directory, whose time
 * (rn_precheck_wants_changed, ns) tells the agent to refill. */
int rn_precheck_want(const char *state_dir, const char *pool, const char *master,
		     struct rn_error *e);
/* The markers, at most max; returns the count. */
int rn_precheck_wants(const char *state_dir, struct rn_precheck_want *out, unsigned int max);
int64_t rn_precheck_wants_changed(const char *state_dir);
/* A block pool's allocations on this node (etcd store): they are in the
 * node's own SQLite store (st->path, ipam/block_alloc.h), which etcd does
 * not list. Returns the count (0 before that store exists); *out is
 * malloc'd. */
int rn_precheck_node_allocations(const struct rn_ipam_settings *st, const char *pool,
				 struct rn_ipam_allocation **out, struct rn_error *e);
/* Forgets a marker (a pool that no longer exists). */
void rn_precheck_unwant(const char *state_dir, const struct rn_precheck_want *w);

#endif
