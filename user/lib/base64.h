/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* RFC 4648 base64 (standard alphabet, padded): etcd's JSON gateway carries
 * keys and values as base64 "bytes" fields; kubeconfigs carry certificates
 * and keys so (*-data). */
#ifndef RDMANET_BASE64_H
#define RDMANET_BASE64_H

#include <stddef.h>

/* Returns a malloc'd NUL-terminated encoding, NULL on ENOMEM. */
char *rn_base64_encode(const void *data, size_t len);
/* Returns a malloc'd decoding (NUL-terminated for convenience, *len
 * excludes it), NULL if s is not valid padded base64 or on ENOMEM. */
char *rn_base64_decode(const char *s, size_t *len);

#endif
