/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Reading and writing sysfs (and configfs) attributes: one value per file,
 * a trailing newline, errors as -errno. Paths are built printf-style and
 * fail with -ENAMETOOLONG rather than being cut short. */
#ifndef RDMANET_RDMA_SYSFS_ATTR_H
#define RDMANET_RDMA_SYSFS_ATTR_H

#include <stddef.h>

int rn_pathf(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The first line of the file, without trailing whitespace. */
int rn_sysfs_read(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A decimal (or 0x-prefixed hex) integer attribute. */
int rn_sysfs_read_long(long *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The last path component of a symlink's target ("driver" -> "mlx5_core"). */
int rn_sysfs_link_name(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rn_sysfs_write(const char *val, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* 1 if the path exists, 0 if not. */
int rn_sysfs_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
