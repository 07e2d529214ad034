/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A writer queue for the SQLite store: an open-file-description (OFD)
 * write lock on a small file next to the database ("<db>.lock"), taken
 * around every write transaction. SQLite's own lock cannot block, only be
 * polled, so under a burst of CNI processes the waiters sleep past the
 * moment the lock frees and the database sits idle between transactions;
 * a waiter blocked on this lock is woken by the kernel the moment it frees.
 *
 * The lock lives in the kernel, not in the file: it goes with its holder's
 * last file descriptor (a SIGKILL, a crash of the machine), and nothing in
 * the file can hold it across a reboot. (The robust pthread mutex in an
 * mmap'd file it replaces needed its owner to die on the same boot: a
 * crash image with the mutex held wedged the store for good.) SQLite's
 * locking stays the authority: this only orders rdmanet's own writers (an
 * older rdmanet still using the mutex excludes nobody here and is excluded
 * by SQLite alone). Without the lock file (read-only directory) writers
 * fall back to polling SQLite's lock. */
#ifndef RDMANET_IPAM_SQLITE_LOCK_H
#define RDMANET_IPAM_SQLITE_LOCK_H

#include <stdbool.h>

struct rn_sqlite_lock {
	int fd;			/* -1: no writer queue, poll */
};

void rn_sqlite_lock_open(struct rn_sqlite_lock *l, const char *db_path);
/* Waits until deadline (monotonic ms). 0 acquired (or no queue), -EAGAIN
 * on timeout. */
int rn_sqlite_lock_acquire(struct rn_sqlite_lock *l, long long deadline_ms);
void rn_sqlite_lock_release(struct rn_sqlite_lock *l);
void rn_sqlite_lock_close(struct rn_sqlite_lock *l);

#endif
