/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* GID values as sysfs and show_gids print them ("fe80:0000:...:3456"),
 * their types, and the IP address a RoCE GID stands for: an IPv4-mapped
 * GID (::ffff:a.b.c.d) maps the IPv4 address, any other RoCE GID is the
 * IPv6 address itself. IB GIDs map no address. */
#ifndef RDMANET_RDMA_GID_H
#define RDMANET_RDMA_GID_H

#include <stdbool.h>
#include <stdint.h>

#include "netaddr.h"
#include "rdma/model.h"

/* Eight groups of four hex digits, or any form inet_pton accepts. */
int rn_gid_parse(const char *s, uint8_t raw[16]);
void rn_gid_format(const uint8_t raw[16], char buf[RN_GID_STRLEN]);
bool rn_gid_is_zero(const uint8_t raw[16]);

/* sysfs gid_attrs/types/N text ("IB/RoCE v1", "RoCE v2"); the link layer
 * tells IB from RoCE v1. Returns -EINVAL on anything else. */
int rn_gid_type_parse(const char *s, bool ethernet, enum rn_gid_type *out);

/* Fills addr from a RoCE GID; family 0 for IB GIDs and the zero GID. */
void rn_gid_addr(const uint8_t raw[16], enum rn_gid_type type, struct rn_addr *addr);
/* The GID a RoCE v2 entry for addr carries. */
void rn_gid_from_addr(const struct rn_addr *addr, uint8_t raw[16]);

#endif
