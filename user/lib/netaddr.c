// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int rn_mac_parse(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5 && *s++ != ':')
			return -EINVAL;
	}
	return *s ? -EINVAL : 0;
}

void rn_mac_format(const uint8_t mac[6], char buf[RN_MAC_STRLEN])
{
	snprintf(buf, RN_MAC_STRLEN, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

bool rn_mac_is_zero(const uint8_t mac[6])
{
	return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

int rn_addr_parse(const char *s, struct rn_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->v4) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, &a->v6) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

const char *rn_addr_format(const struct rn_addr *a, char buf[RN_ADDR_STRLEN])
{
	if (!inet_ntop(a->family, a->b, buf, RN_ADDR_STRLEN))
		snprintf(buf, RN_ADDR_STRLEN, "?");
	return buf;
}

size_t rn_addr_len(const struct rn_addr *a)
{
	return a->family == AF_INET ? 4 : 16;
}

bool rn_addr_equal(const struct rn_addr *a, const struct rn_addr *b)
{
	return a->family == b->family && !memcmp(a->b, b->b, rn_addr_len(a));
}

static bool host_bits_zero(const struct rn_addr *a, unsigned int len)
{
	size_t bytes = rn_addr_len(a);

	for (size_t i = 0; i < bytes; i++) {
		unsigned int bit = (unsigned int)i * 8;
		uint8_t mask = bit >= len ? 0xff : (len - bit >= 8 ? 0 : (uint8_t)(0xff >> (len - bit)));

		if (a->b[i] & mask)
			return false;
	}
	return true;
}

int rn_prefix_parse(const char *s, struct rn_prefix *p, bool strict)
{
	const char *slash = strchr(s, '/');
	char addr[RN_ADDR_STRLEN];
	char *end;
	long len;

	if (!slash || (size_t)(slash - s) >= sizeof(addr) || !slash[1])
		return -EINVAL;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	if (rn_addr_parse(addr, &p->addr))
		return -EINVAL;
	if (!isdigit((unsigned char)slash[1]))
		return -EINVAL;
	errno = 0;
	len = strtol(slash + 1, &end, 10);
	if (errno || *end || len < 0 || len > (p->addr.family == AF_INET ? 32 : 128))
		return -EINVAL;
	p->len = (unsigned int)len;
	if (strict && !host_bits_zero(&p->addr, p->len))
		return -EINVAL;
	return 0;
}

const char *rn_prefix_format(const struct rn_prefix *p, char buf[RN_PREFIX_STRLEN])
{
	char a[RN_ADDR_STRLEN];

	snprintf(buf, RN_PREFIX_STRLEN, "%s/%u", rn_addr_format(&p->addr, a), p->len);
	return buf;
}

bool rn_prefix_contains(const struct rn_prefix *p, const struct rn_addr *a)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (a->family != p->addr.family)
		return false;
	if (memcmp(a->b, p->addr.b, full))
		return false;
	if (rest) {
		uint8_t mask = (uint8_t)(0xff << (8 - rest));

		if ((a->b[full] & mask) != (p->addr.b[full] & mask))
			return false;
	}
	return true;
}
