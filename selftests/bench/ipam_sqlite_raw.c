// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_sqlite_raw DB N: the raw durable-transaction limit of SQLite on this
 * disk, the baseline of the IPAM's embedded-store rate: N single-row
 * INSERTs, each its own transaction, with the IPAM's durability settings
 * (WAL, synchronous=FULL: the WAL is fsync'd at every commit). Prints
 * {"txn": N, "seconds": S, "per_s": R}. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sqlite3.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	sqlite3_stmt *st;
	sqlite3 *db;
	long n;
	double t0, s;

	if (argc != 3) {
		fprintf(stderr, "usage: ipam_sqlite_raw DB N\n");
		return 2;
	}
	n = atol(argv[2]);
	if (sqlite3_open(argv[1], &db) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
			 "CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO t (v) VALUES (?1)", -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "ipam_sqlite_raw: %s: %s\n", argv[1], sqlite3_errmsg(db));
		return 1;
	}
	t0 = now_s();
	for (long i = 0; i < n; i++) {
		sqlite3_bind_blob(st, 1, &i, sizeof(i), SQLITE_TRANSIENT);
		if (sqlite3_step(st) != SQLITE_DONE) {
			fprintf(stderr, "ipam_sqlite_raw: insert: %s\n", sqlite3_errmsg(db));
			return 1;
		}
		sqlite3_reset(st);
	}
	s = now_s() - t0;
	sqlite3_finalize(st);
	sqlite3_close(db);
	printf("{\"txn\": %ld, \"seconds\": %.6f, \"per_s\": %.1f}\n", n, s, (double)n / s);
	return 0;
}
