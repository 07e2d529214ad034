/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RFC 1123 names Kubernetes validates: a DNS label (lowercase a-z,
 * 0-9, '-', not at either end, 1 to 63 characters) and a DNS subdomain
 * (labels joined by '.', at most 253). s need not be NUL-terminated. */
#ifndef RDMANET_DNS_NAME_H
#define RDMANET_DNS_NAME_H

#include <stdbool.h>
#include <stddef.h>

bool rn_dns_label(const char *s, size_t n);
bool rn_dns_subdomain(const char *s, size_t n);

#endif
