// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ipam/etcd_keys.h"

void rn_etcd_key_pool(char *out, const char *prefix, const char *pool)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/pools/%s", prefix, pool);
}

void rn_etcd_key_pools(char *out, const char *prefix)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/pools/", prefix);
}

void rn_etcd_key_cursor(char *out, const char *prefix, const char *pool)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/cursor/%s", prefix, pool);
}

void rn_etcd_key_ips(char *out, const char *prefix, const char *pool)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/ips/%s/", prefix, pool);
}

void rn_etcd_key_all_ips(char *out, const char *prefix)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/ips/", prefix);
}

void rn_etcd_addr_hex(const struct rn_addr *a, char *out)
{
	size_t n = rn_addr_len(a);

	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", a->b[i]);
	out[2 * n] = '\0';
}

void rn_etcd_key_ip(char *out, const char *prefix, const char *pool, const struct rn_addr *a)
{
	char hex[33];

	rn_etcd_addr_hex(a, hex);
	snprintf(out, RN_ETCD_KEY_MAX, "%s/ips/%s/%s", prefix, pool, hex);
}

static size_t escape(char *out, size_t size, const char *s)
{
	static const char digits[] = "0123456789ABCDEF";
	size_t o = 0;

	for (; *s && o + 4 < size; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '.' || c == '_' || c == '-') {
			out[o++] = (char)c;
		} else {
			out[o++] = '%';
			out[o++] = digits[c >> 4];
			out[o++] = digits[c & 15];
		}
	}
	out[o] = '\0';
	return o;
}

void rn_etcd_key_owner(char *out, const char *prefix, const char *container_id,
		       const char *ifname)
{
	char cid[3 * 256 + 1], ifn[3 * 16 + 1];

	escape(cid, sizeof(cid), container_id);
	escape(ifn, sizeof(ifn), ifname);
	snprintf(out, RN_ETCD_KEY_MAX, "%s/owners/%s/%s", prefix, cid, ifn);
}

void rn_etcd_key_owners(char *out, const char *prefix)
{
	snprintf(out, RN_ETCD_KEY_MAX, "%s/owners/", prefix);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int rn_etcd_hex_addr(const char *hex, size_t len, struct rn_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (len != 8 && len != 32)
		return -EINVAL;
	a->family = len == 8 ? AF_INET : AF_INET6;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		a->b[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int rn_etcd_parse_ip_key(const char *key, const char *prefix, char *pool, size_t pool_size,
			 struct rn_addr *a)
{
	size_t plen = strlen(prefix);
	const char *rest, *slash;

	if (strncmp(key, prefix, plen) || strncmp(key + plen, "/ips/", 5))
		return -EINVAL;
	rest = key + plen + 5;
	slash = strrchr(rest, '/');
	if (!slash || slash == rest || (size_t)(slash - rest) >= pool_size)
		return -EINVAL;
	memcpy(pool, rest, (size_t)(slash - rest));
	pool[slash - rest] = '\0';
	return rn_etcd_hex_addr(slash + 1, strlen(slash + 1), a);
}
