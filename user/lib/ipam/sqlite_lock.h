/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A writer queue for the SQLite store: a robust, process-shared mutex in a
 * small file next to the database ("<db>.lock"), taken around every write
 * transaction. SQLite's own lock cannot block, only be polled, so under a
 * burst of CNI processes the waiters sleep past the moment the lock frees
 * and the database sits idle between transactions; with this mutex the
 * kernel hands the lock to the next waiter at once. The mutex is robust: a
 * holder killed with SIGKILL passes it on (EOWNERDEAD) and SQLite rolls the
 * dead transaction back. SQLite's locking stays the authority: the mutex
 * only orders rdmanet's own writers. Without the lock file (read-only
 * directory, unknown layout) writers fall back to polling. */
#ifndef RDMANET_IPAM_SQLITE_LOCK_H
#define RDMANET_IPAM_SQLITE_LOCK_H

#include <stdbool.h>

struct rn_sqlite_lock {
	int fd;
	void *shared;		/* NULL: no writer queue, poll */
};

void rn_sqlite_lock_open(struct rn_sqlite_lock *l, const char *db_path);
/* Waits until deadline (monotonic ms). 0 acquired (or no queue), -EAGAIN
 * on timeout. */
int rn_sqlite_lock_acquire(struct rn_sqlite_lock *l, long long deadline_ms);
void rn_sqlite_lock_release(struct rn_sqlite_lock *l);
void rn_sqlite_lock_close(struct rn_sqlite_lock *l);

#endif
