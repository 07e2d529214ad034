// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "private_file.h"

int rn_private_fd(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!(st.st_mode & 077))
		return 0;
	return fchmod(fd, st.st_mode & 0700) ? -errno : 0;
}

static int private_open(const char *path, int flags, mode_t mode)
{
	int fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW, mode), rc;

	if (fd < 0)
		return errno == ENOENT && !(flags & O_CREAT) ? 0 : -errno;
	rc = rn_private_fd(fd);
	close(fd);
	return rc;
}

int rn_private_file(const char *path, bool create)
{
	/* O_RDONLY: fchmod needs ownership, not write access; O_CREAT with it
	 * still creates the file */
	return private_open(path, O_RDONLY | (create ? O_CREAT : 0), 0600);
}

int rn_private_dir(const char *path)
{
	return private_open(path, O_RDONLY | O_DIRECTORY, 0);
}
