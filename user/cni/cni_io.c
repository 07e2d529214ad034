// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cni_io.h"

int cni_read_all(FILE *f, char **out, size_t *len, struct cni_err *err)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap);

	*out = NULL;
	*len = 0;
	if (!buf)
		return cni_fail(err, RN_CNI_ERR_INTERNAL, "out of memory");
	for (;;) {
		size_t got;

		if (n + 1 == cap) {
			char *nb;

			if (cap >= CNI_STDIN_MAX) {
				free(buf);
				return cni_fail(err, CNI_ERR_IO, "stdin: the network configuration "
						"is larger than %u bytes", CNI_STDIN_MAX);
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return cni_fail(err, RN_CNI_ERR_INTERNAL, "out of memory");
			}
			buf = nb;
			cap *= 2;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got)
			continue;
		if (ferror(f)) {
			int e = errno;

			free(buf);
			return cni_fail(err, CNI_ERR_IO, "stdin: %s", strerror(e));
		}
		break;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int cni_print(json_t *obj)
{
	int rc = json_dumpf(obj, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);

	json_decref(obj);
	if (!rc)
		rc = fputc('\n', stdout) == EOF ? -1 : 0;
	if (fflush(stdout))
		rc = -1;
	return rc;
}
