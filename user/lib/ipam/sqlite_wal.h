/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The SQLite store's WAL, kept small without a checkpoint at every close.
 *
 * A CNI process is usually the database's only connection, so SQLite's
 * checkpoint at the last close (WAL copied back, database fsync'd, WAL
 * removed, then a new WAL created, its header and directory fsync'd by the
 * next process) cost every ADD and DEL about four fsyncs beyond the one
 * its commit needs. Without it, the WAL must still be bounded: every
 * process that opens the store alone rebuilds the WAL index by reading the
 * whole WAL, and rebuilding forgets how much of it was already
 * checkpointed, so SQLite's own auto-checkpoint (PASSIVE) never lets the
 * WAL restart: it grew without bound (10 MB after 600 allocations).
 *
 * Instead, after a commit that leaves RN_SQLITE_WAL_MAX_FRAMES or more
 * frames in the WAL, the committing connection runs a TRUNCATE checkpoint
 * (database fsync'd, then the WAL cut to zero bytes), without waiting: a
 * reader in the way makes it give up, and the next commit tries again. So
 * an open reads at most about that many frames, and a commit stays what it
 * was: on disk in the WAL (synchronous=FULL) before it returns; the
 * checkpoint moves committed pages only. */
#ifndef RDMANET_IPAM_SQLITE_WAL_H
#define RDMANET_IPAM_SQLITE_WAL_H

#include <sqlite3.h>

/* 32 pages of 4 KiB: an allocation or a release commits a few pages, so
 * a checkpoint every several commits, and an open reads at most ~150 KiB */
#define RN_SQLITE_WAL_MAX_FRAMES 32

struct rn_sqlite_wal {
	int (*busy)(void *, int);	/* the connection's busy handler, put back */
	void *busy_arg;
	int max_frames;
};

/* No checkpoint at close; the bound above instead. w lives as long as db. */
void rn_sqlite_wal_bound(sqlite3 *db, struct rn_sqlite_wal *w);

#endif
