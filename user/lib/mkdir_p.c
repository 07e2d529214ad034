// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mkdir_p.h"

int rn_mkdir_p(const char *dir, mode_t mode)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, mode) && errno != EEXIST ? -errno : 0;
}

int rn_mkdir_parent(const char *file, mode_t mode)
{
	char buf[PATH_MAX];
	char *slash;

	if (snprintf(buf, sizeof(buf), "%s", file) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	slash = strrchr(buf, '/');
	if (!slash || slash == buf)
		return 0;
	*slash = '\0';
	return rn_mkdir_p(buf, mode);
}
