// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_sqlite_hold DB SECONDS [queue|open]: takes the SQLite write lock
 * (BEGIN IMMEDIATE) on DB, or with "queue" the IPAM's writer queue (the OFD
 * lock on DB.lock), prints "locked", holds it SECONDS, then lets go. The
 * IPAM tests use it to prove both waits turn into "try again later" in
 * bounded time, and (killing it with SIGKILL) that a dead holder of the
 * writer queue does not block anyone. With "open" it only reads, keeping
 * the database open (and with it the -wal and -shm files SQLite removes
 * at the last close), and prints "locked" all the same. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>

#include "ipam/sqlite_lock.h"

int main(int argc, char **argv)
{
	struct rn_sqlite_lock l;
	sqlite3 *db;

	bool open_only = argc == 4 && !strcmp(argv[3], "open");

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "queue") && !open_only)) {
		fprintf(stderr, "usage: ipam_sqlite_hold DB SECONDS [queue|open]\n");
		return 2;
	}
	if (argc == 4 && !open_only) {
		rn_sqlite_lock_open(&l, argv[1]);
		if (l.fd < 0 || rn_sqlite_lock_acquire(&l, 1LL << 62)) {
			fprintf(stderr, "ipam_sqlite_hold: %s.lock: no writer queue\n", argv[1]);
			return 1;
		}
		printf("locked\n");
		fflush(stdout);
		sleep((unsigned int)atoi(argv[2]));
		rn_sqlite_lock_release(&l);
		rn_sqlite_lock_close(&l);
		return 0;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    sqlite3_exec(db, open_only ? "SELECT count(*) FROM sqlite_master" :
			 "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "ipam_sqlite_hold: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	printf("locked\n");
	fflush(stdout);
	sleep((unsigned int)atoi(argv[2]));
	sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(db);
	return 0;
}
