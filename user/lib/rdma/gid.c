// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma/gid.h"

const char *const rn_gid_type_names[4] = { "?", "IB", "RoCE v1", "RoCE v2" };

static const uint8_t v4_mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int rn_gid_parse(const char *s, uint8_t raw[16])
{
	int n = 0;

	/* the sysfs form: exactly 8 groups of 4 hex digits */
	for (const char *p = s; n < 16; p += 5) {
		unsigned int hi, lo;

		if (!isxdigit((unsigned char)p[0]) || !isxdigit((unsigned char)p[1]) ||
		    !isxdigit((unsigned char)p[2]) || !isxdigit((unsigned char)p[3]))
			break;
		if (sscanf(p, "%2x%2x", &hi, &lo) != 2)
			break;
		raw[n++] = (uint8_t)hi;
		raw[n++] = (uint8_t)lo;
		if (n == 16) {
			if (p[4] == '\0')
				return 0;
			break;
		}
		if (p[4] != ':')
			break;
	}
	return inet_pton(AF_INET6, s, raw) == 1 ? 0 : -EINVAL;
}

void rn_gid_format(const uint8_t raw[16], char buf[RN_GID_STRLEN])
{
	char *p = buf;

	for (int i = 0; i < 16; i += 2)
		p += sprintf(p, "%s%02x%02x", i ? ":" : "", raw[i], raw[i + 1]);
}

bool rn_gid_is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

int rn_gid_type_parse(const char *s, bool ethernet, enum rn_gid_type *out)
{
	if (!strcmp(s, "RoCE v2"))
		*out = RN_GID_TYPE_ROCE_V2;
	else if (!strcmp(s, "IB/RoCE v1"))
		*out = ethernet ? RN_GID_TYPE_ROCE_V1 : RN_GID_TYPE_IB;
	else if (!strcmp(s, "IB"))
		*out = RN_GID_TYPE_IB;
	else if (!strcmp(s, "RoCE v1"))
		*out = RN_GID_TYPE_ROCE_V1;
	else
		return -EINVAL;
	return 0;
}

void rn_gid_addr(const uint8_t raw[16], enum rn_gid_type type, struct rn_addr *addr)
{
	memset(addr, 0, sizeof(*addr));
	if (type == RN_GID_TYPE_IB || rn_gid_is_zero(raw))
		return;
	if (!memcmp(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix))) {
		addr->family = AF_INET;
		memcpy(&addr->v4, raw + 12, 4);
		return;
	}
	addr->family = AF_INET6;
	memcpy(&addr->v6, raw, 16);
}

void rn_gid_from_addr(const struct rn_addr *addr, uint8_t raw[16])
{
	if (addr->family == AF_INET) {
		memcpy(raw, v4_mapped_prefix, sizeof(v4_mapped_prefix));
		memcpy(raw + 12, &addr->v4, 4);
	} else {
		memcpy(raw, &addr->v6, 16);
	}
}
