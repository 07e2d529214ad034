// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What both stores share beyond the pick: overlap checks against the
 * stored pools, check reports, the clock. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ipam/store.h"

int rn_pool_check_against(const struct rn_pool *p, const struct rn_ipam_pool_info *pools,
			  int n, struct rn_error *e)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(pools[i].pool.name, p->name))
			continue;
		if (rn_pool_check_overlap(p, &pools[i].pool, e))
			return e ? e->code : -EINVAL;
	}
	return 0;
}

int rn_pool_check_held(struct rn_store *s, const struct rn_pool *p,
		       const struct rn_ipam_pool_info *pools, int n, struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	int err = 0;

	for (int i = 0; i < n && !err; i++) {
		const struct rn_pool *q = &pools[i].pool;
		struct rn_alloc_filter f = { .pool = q->name };
		struct rn_ipam_allocation *held;
		int k;

		if (!strcmp(q->name, p->name) || rn_pool_family(q) != rn_pool_family(p) ||
		    !rn_pools_share_scope(p, q))
			continue;
		k = s->ops->list(s, &f, &held, e);
		if (k < 0)
			return k;
		for (int j = 0; j < k && !err; j++)
			if (rn_pool_usable(p, &held[j].addr))
				err = rn_fail(e, -EBUSY, "ipam: pool \"%s\": %s is held by %s/%s "
					      "in pool \"%s\", which shares a master and node with "
					      "it; release it first",
					      p->name, rn_addr_format(&held[j].addr, buf),
					      held[j].container_id, held[j].ifname, q->name);
		free(held);
	}
	return err;
}

void rn_alloc_fill(struct rn_ipam_allocation *a, const struct rn_alloc_plan *plan,
		   const char *pool, const struct rn_addr *addr, int64_t created)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->pool, sizeof(a->pool), "%s", pool);
	a->addr = *addr;
	snprintf(a->container_id, sizeof(a->container_id), "%s", plan->container_id);
	snprintf(a->ifname, sizeof(a->ifname), "%s", plan->ifname);
	snprintf(a->pod_namespace, sizeof(a->pod_namespace), "%s",
		 plan->pod_namespace ? plan->pod_namespace : "");
	snprintf(a->pod_name, sizeof(a->pod_name), "%s", plan->pod_name ? plan->pod_name : "");
	snprintf(a->node, sizeof(a->node), "%s", plan->node ? plan->node : "");
	a->created = created;
}

void rn_check_note(char *report, size_t size, const char *fmt, ...)
{
	size_t used;
	va_list ap;

	if (!report || !size)
		return;
	used = strnlen(report, size);
	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(report + used, size - used, fmt, ap);
	va_end(ap);
	used = strnlen(report, size);
	if (used + 1 < size) {
		report[used] = '\n';
		report[used + 1] = '\0';
	}
}

