// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stddef.h>

#include "ipam/sqlite_wal.h"

/* Called by SQLite after each commit with the WAL's frame count. It takes
 * the place of SQLite's auto-checkpoint (the same hook slot). */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct rn_sqlite_wal *w = arg;

	if (frames < w->max_frames)
		return SQLITE_OK;
	/* without a busy handler, a reader or writer in the way makes the
	 * checkpoint give up at once instead of delaying this call */
	sqlite3_busy_handler(db, NULL, NULL);
	sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_handler(db, w->busy, w->busy_arg);
	/* the commit happened whatever the checkpoint did: an error returned
	 * here would report the committed statement as failed */
	return SQLITE_OK;
}

void rn_sqlite_wal_bound(sqlite3 *db, struct rn_sqlite_wal *w)
{
	if (!w->max_frames)
		w->max_frames = RN_SQLITE_WAL_MAX_FRAMES;
	sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_wal_hook(db, wal_hook, w);
}
