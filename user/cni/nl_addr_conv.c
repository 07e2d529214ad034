// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>
#include <sys/socket.h>

#include "nl_addr_conv.h"

struct nl_addr *cni_nl_addr(const struct rn_addr *a, unsigned int prefixlen)
{
	struct nl_addr *n = nl_addr_build(a->family, a->b, rn_addr_len(a));

	if (n)
		nl_addr_set_prefixlen(n, (int)prefixlen);
	return n;
}

struct nl_addr *cni_nl_prefix(const struct rn_prefix *p)
{
	return cni_nl_addr(&p->addr, p->len);
}

bool cni_from_nl_addr(struct nl_addr *a, struct rn_prefix *out)
{
	int family = a ? nl_addr_get_family(a) : 0;
	unsigned int len = a ? nl_addr_get_len(a) : 0;

	memset(out, 0, sizeof(*out));
	if (!a || (family != AF_INET && family != AF_INET6))
		return false;
	out->addr.family = family;
	out->len = (unsigned int)nl_addr_get_prefixlen(a);
	/* a zero-length default destination carries no bytes */
	if (len) {
		if (len != (family == AF_INET ? 4u : 16u))
			return false;
		memcpy(out->addr.b, nl_addr_get_binary_addr(a), len);
	}
	return true;
}
