// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "pin.h"

#define BPFFS_ROOT "/sys/fs/bpf"

static int is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int rn_pin_dir_exists(const char *dir)
{
	struct stat st;

	return !stat(dir, &st) && S_ISDIR(st.st_mode) && is_bpffs(dir);
}

int rn_pin_path(char *path, size_t size, const char *dir, const char *name)
{
	int n = snprintf(path, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int mkdir_bpffs(const char *path, struct rn_error *e)
{
	if (mkdir(path, 0700) && errno != EEXIST)
		return rn_fail(e, -errno, "mkdir %s: %s", path, strerror(errno));
	return 0;
}

int rn_pin_dir_prepare(const char *dir, struct rn_error *e)
{
	char parent[PATH_MAX], sub[PATH_MAX];
	char *slash;

	if (strlen(dir) >= sizeof(parent) - 16)
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", dir);
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return rn_fail(e, -EINVAL, "pin dir %s: must be a directory below a bpffs mount",
			       dir);
	*slash = '\0';
	if (!is_bpffs(parent)) {
		/* Only the standard mount point is ours to mount, and only when
		 * nothing is there (e.g. inside `ip netns exec`, which remounts /sys). */
		if (strcmp(parent, BPFFS_ROOT))
			return rn_fail(e, -ENOTSUP, "pin dir %s: %s is not on a bpffs", dir, parent);
		if (mount("bpf", BPFFS_ROOT, "bpf", 0, "mode=0700"))
			return rn_fail(e, -errno, "mount bpffs on %s: %s", BPFFS_ROOT,
				       strerror(errno));
	}
	if (mkdir_bpffs(dir, e))
		return e ? e->code : -1;
	if (rn_pin_path(sub, sizeof(sub), dir, RN_PIN_LINKS) || mkdir_bpffs(sub, e))
		return e && e->code ? e->code : -ENAMETOOLONG;
	if (rn_pin_path(sub, sizeof(sub), dir, RN_PIN_REGISTRY) || mkdir_bpffs(sub, e))
		return e && e->code ? e->code : -ENAMETOOLONG;
	return 0;
}

int rn_pin_lock_agent(const char *dir, struct rn_error *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return rn_fail(e, -errno, "open %s: %s", dir, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		close(fd);
		if (err == EWOULDBLOCK)
			return rn_fail(e, -EWOULDBLOCK,
				       "another rdmanetd is running on %s (its lock is held)", dir);
		return rn_fail(e, -err, "flock %s: %s", dir, strerror(err));
	}
	return fd;
}

static int lock_registry(const char *dir, int op, struct rn_error *e)
{
	char path[PATH_MAX];
	int fd;

	if (rn_pin_path(path, sizeof(path), dir, RN_PIN_REGISTRY))
		return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return rn_fail(e, -errno, "open %s: %s (is rdmanetd running?)", path,
			       strerror(errno));
	if (flock(fd, op)) {
		int err = errno;

		close(fd);
		return rn_fail(e, -err, "flock %s: %s", path, strerror(err));
	}
	return fd;
}

int rn_pin_lock_registry(const char *dir, struct rn_error *e)
{
	return lock_registry(dir, LOCK_EX, e);
}

int rn_pin_lock_registry_shared(const char *dir, struct rn_error *e)
{
	return lock_registry(dir, LOCK_SH, e);
}

void rn_pin_unlock(int fd)
{
	if (fd >= 0)
		close(fd);
}
