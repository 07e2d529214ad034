// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_sqlite_hold DB SECONDS: takes the SQLite write lock (BEGIN
 * IMMEDIATE) on DB, prints "locked", holds it SECONDS, then rolls back; the
 * IPAM tests use it to prove the busy timeout turns into "try again later". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sqlite3.h>

int main(int argc, char **argv)
{
	sqlite3 *db;

	if (argc != 3) {
		fprintf(stderr, "usage: ipam_sqlite_hold DB SECONDS\n");
		return 2;
	}
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
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
