// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read_file.h"

int rn_read_file(const char *what, const char *path, size_t max, char **out, size_t *len,
		 struct rn_error *e)
{
	size_t n = 0, cap = 4096;
	char *buf;
	int fd, err;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rn_fail(e, -errno, "%s %s: %s", what, path, strerror(errno));
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return rn_fail(e, -ENOMEM, "%s %s: out of memory", what, path);
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap > max + 1) {
				err = rn_fail(e, -EFBIG, "%s %s: larger than %zu bytes", what, path, max);
				goto fail;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				err = rn_fail(e, -ENOMEM, "%s %s: out of memory", what, path);
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = rn_fail(e, -errno, "%s %s: %s", what, path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		err = rn_fail(e, -EFBIG, "%s %s: larger than %zu bytes", what, path, max);
		goto fail;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
fail:
	close(fd);
	free(buf);
	return err;
}
