// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config_publish.h"
#include "log.h"
#include "write_all.h"

int rn_config_publish(const char *path, const char *text, size_t len)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	int err, dfd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	err = rn_write_file_replace(path, tmp, text, len, 0644, true);
	if (err) {
		rn_err("config: publishing to %s failed: %s (the CNI plugin keeps reading the "
		       "previous copy)", path, strerror(-err));
		return err;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	rn_debug("config: published to %s", path);
	return 0;
}
