/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Creating a directory and any missing parents, like `mkdir -p`. */
#ifndef RDMANET_MKDIR_P_H
#define RDMANET_MKDIR_P_H

#include <sys/types.h>

/* Returns 0 (also when it exists) or a negative errno. */
int rn_mkdir_p(const char *dir, mode_t mode);
/* The same for the directory a file path lives in. */
int rn_mkdir_parent(const char *file, mode_t mode);

#endif
