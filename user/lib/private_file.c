// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* By path, never by opening and closing a descriptor: closing any
 * descriptor of a file drops every POSIX lock the process holds on it, and
 * SQLite keeps its locks on the database and its -shm file that way (a
 * second process then takes itself for the first and resets the shared
 * memory under the others' feet). */
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

static int tighten(const char *path, const struct stat *st)
{
	if (!(st->st_mode & 077))
		return 0;
	return chmod(path, st->st_mode & 0700) ? -errno : 0;
}

int rn_private_file(const char *path, bool create)
{
	struct stat st;
	int fd;

	if (!stat(path, &st))
		return tighten(path, &st);
	if (errno != ENOENT || !create)
		return errno == ENOENT ? 0 : -errno;
	/* a new file: nobody can hold a lock on it yet */
	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (errno != EEXIST)
		return -errno;
	/* another process created it first */
	return stat(path, &st) ? -errno : tighten(path, &st);
}

int rn_private_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	return S_ISDIR(st.st_mode) ? tighten(path, &st) : -ENOTDIR;
}
