/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* MAC and IP address values, parsed strictly and printed canonically. */
#ifndef RDMANET_NETADDR_H
#define RDMANET_NETADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#define RN_MAC_STRLEN 18
#define RN_ADDR_STRLEN INET6_ADDRSTRLEN
#define RN_PREFIX_STRLEN (INET6_ADDRSTRLEN + 4)

struct rn_addr {
	int family;			/* AF_INET or AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
		uint8_t b[16];
	};
};

struct rn_prefix {
	struct rn_addr addr;
	unsigned int len;		/* prefix length in bits */
};

/* "aa:bb:cc:dd:ee:ff" (case-insensitive); returns 0 or -EINVAL. */
int rn_mac_parse(const char *s, uint8_t mac[6]);
void rn_mac_format(const uint8_t mac[6], char buf[RN_MAC_STRLEN]);
bool rn_mac_is_zero(const uint8_t mac[6]);

/* An IPv4 or IPv6 address without prefix; returns 0 or -EINVAL. */
int rn_addr_parse(const char *s, struct rn_addr *a);
const char *rn_addr_format(const struct rn_addr *a, char buf[RN_ADDR_STRLEN]);
bool rn_addr_equal(const struct rn_addr *a, const struct rn_addr *b);
size_t rn_addr_len(const struct rn_addr *a);	/* 4 or 16 */

/* "addr/len"; host bits may be set (an interface address) unless strict. */
int rn_prefix_parse(const char *s, struct rn_prefix *p, bool strict);
const char *rn_prefix_format(const struct rn_prefix *p, char buf[RN_PREFIX_STRLEN]);
bool rn_prefix_contains(const struct rn_prefix *p, const struct rn_addr *a);

#endif
