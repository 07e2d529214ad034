// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* kubelet's check of an extended resource name, done at config time so a
 * name it would refuse at Register is an error naming the key instead:
 * "<prefix>/<name>", prefix a DNS-1123 subdomain outside kubernetes.io,
 * name at most 63 of [A-Za-z0-9._-], alphanumeric at both ends. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "devplugin/devplugin.h"
#include "dns_name.h"

static bool alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool name_part_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 63 || !alnum(s[0]) || !alnum(s[n - 1]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

int rn_dp_resource_name_check(const char *full, struct rn_error *e)
{
	const char *slash = strchr(full, '/');
	size_t plen;

	if (!slash || strchr(slash + 1, '/'))
		return rn_fail(e, -EINVAL, "resource name \"%s\": expected <prefix>/<name>", full);
	plen = (size_t)(slash - full);
	if (!rn_dns_subdomain(full, plen))
		return rn_fail(e, -EINVAL, "resource name \"%s\": prefix \"%.*s\" is not a "
			       "lowercase DNS subdomain (kubelet refuses it)", full, (int)plen, full);
	if (ends_with(full, plen, "kubernetes.io"))	/* kubelet: contains "kubernetes.io/" */
		return rn_fail(e, -EINVAL, "resource name \"%s\": the kubernetes.io prefix is "
			       "reserved (kubelet refuses it)", full);
	if (!name_part_ok(slash + 1))
		return rn_fail(e, -EINVAL, "resource name \"%s\": name \"%s\" must be 1-63 of "
			       "[A-Za-z0-9._-], alphanumeric at both ends (kubelet refuses it)", full,
			       slash + 1);
	return 0;
}
