/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The plugin's two streams: the configuration on stdin, one JSON document
 * (a result or an error object) on stdout. */
#ifndef RDMANET_CNI_IO_H
#define RDMANET_CNI_IO_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>

#include "cni_error.h"

#define CNI_STDIN_MAX (4u << 20)	/* a network config is kilobytes; refuse more */

/* Reads all of f into a NUL-terminated malloc'd buffer (*len without the NUL). */
int cni_read_all(FILE *f, char **out, size_t *len, struct cni_err *err);
/* Prints obj on stdout (steals the reference); returns 0 or -1. */
int cni_print(json_t *obj);

#endif
