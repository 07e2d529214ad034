/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A small file read whole (tokens, certificates, kubeconfigs): refused past
 * a size limit rather than read without end from a wrong path. */
#ifndef RDMANET_READ_FILE_H
#define RDMANET_READ_FILE_H

#include <stddef.h>

#include "error.h"

/* *out: malloc'd and NUL-terminated, *len without the NUL (len may be
 * NULL). -ENOENT, -EACCES, -EFBIG (more than max bytes), ... with e set:
 * "what PATH: reason". */
int rn_read_file(const char *what, const char *path, size_t max, char **out, size_t *len,
		 struct rn_error *e);

#endif
