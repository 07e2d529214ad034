/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Root-only files and directories: the IPAM store (who holds which
 * address, pod names), its writer lock and the CNI plugin's attachment
 * records (pod netns paths) are for the node's root alone. Created 0600 /
 * 0700, and tightened when an older version (or a umask) left them wider:
 * group and other bits are cleared, the owner's kept. */
#ifndef RDMANET_PRIVATE_FILE_H
#define RDMANET_PRIVATE_FILE_H

#include <stdbool.h>

/* A regular file: created 0600 if create and missing; 0 also when it is
 * missing and !create. A negative errno otherwise. */
int rn_private_file(const char *path, bool create);
/* An open file or directory. */
int rn_private_fd(int fd);
/* An existing directory (0 if missing). */
int rn_private_dir(const char *path);

#endif
