// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "write_all.h"

int rn_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int rn_write_file_replace(const char *path, const char *tmp, const void *buf, size_t len,
			  mode_t mode, bool sync)
{
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), err = 0;

	if (fd < 0)
		return -errno;
	if ((err = rn_write_all(fd, buf, len)) == 0 && sync && fsync(fd))
		err = -errno;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
