/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* write(2) until all of it is written (short writes, EINTR). */
#ifndef RDMANET_WRITE_ALL_H
#define RDMANET_WRITE_ALL_H

#include <stddef.h>

/* Returns 0 or a negative errno, which errno also holds (EIO for a write
 * that wrote nothing). */
int rn_write_all(int fd, const void *buf, size_t len);

#endif
