// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "dns_name.h"

bool rn_dns_label(const char *s, size_t n)
{
	if (!n || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return false;
	return true;
}

bool rn_dns_subdomain(const char *s, size_t n)
{
	size_t start = 0;

	if (!n || n > 253)
		return false;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (!rn_dns_label(s + start, i - start))
			return false;
		start = i + 1;
	}
	return true;
}
