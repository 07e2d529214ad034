/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* write(2) until all of it is written (short writes, EINTR); and a whole
 * file replaced so that a reader or a crash sees the old or the new. */
#ifndef RDMANET_WRITE_ALL_H
#define RDMANET_WRITE_ALL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Returns 0 or a negative errno, which errno also holds (EIO for a write
 * that wrote nothing). */
int rn_write_all(int fd, const void *buf, size_t len);

/* buf written to tmp (created with mode, truncated), fsync'd if sync, then
 * renamed over path: 0, or a negative errno with tmp removed. tmp is the
 * caller's (a name its own sweep knows, unique where writers race). */
int rn_write_file_replace(const char *path, const char *tmp, const void *buf, size_t len,
			  mode_t mode, bool sync);

#endif
