// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rdma/sysfs_attr.h"

static int vpathf(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		return -EINVAL;
	return (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int rn_pathf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpathf(buf, size, fmt, ap);
	va_end(ap);
	return err;
}

static int read_line(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	if (size < 2)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* sysfs hands out an attribute in one read */
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	for (n = (ssize_t)strlen(buf); n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t'); n--)
		buf[n - 1] = '\0';
	return 0;
}

int rn_sysfs_read(char *buf, size_t size, const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (size)
		buf[0] = '\0';
	return err ? err : read_line(path, buf, size);
}

int rn_sysfs_read_long(long *out, const char *fmt, ...)
{
	char path[PATH_MAX], val[64], *end;
	va_list ap;
	long v;
	int err;

	va_start(ap, fmt);
	err = vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (err || (err = read_line(path, val, sizeof(val))))
		return err;
	errno = 0;
	v = strtol(val, &end, 0);
	if (errno || end == val || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int rn_sysfs_link_name(char *buf, size_t size, const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	va_list ap;
	ssize_t n;
	int err;

	va_start(ap, fmt);
	err = vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (err)
		return err;
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	return rn_pathf(buf, size, "%s", base);
}

int rn_sysfs_write(const char *val, const char *fmt, ...)
{
	char path[PATH_MAX];
	size_t len = strlen(val);
	va_list ap;
	ssize_t n;
	int err, fd;

	va_start(ap, fmt);
	err = vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int rn_sysfs_exists(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = vpathf(path, sizeof(path), fmt, ap);
	va_end(ap);
	return !err && access(path, F_OK) == 0;
}
