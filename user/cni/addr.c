// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <linux/if_addr.h>
#include <netlink/route/addr.h>

#include "addr.h"
#include "nl_addr_conv.h"
#include "nl_errno.h"

static struct nl_addr *broadcast_of(const struct rn_prefix *p)
{
	struct rn_addr b = p->addr;

	for (unsigned int bit = p->len; bit < 32; bit++)
		b.b[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
	return cni_nl_addr(&b, 32);
}

int cni_addr_add(struct nl_sock *pod, int ifindex, const struct rn_prefix *p,
		 struct rn_error *e)
{
	struct rtnl_addr *a = rtnl_addr_alloc();
	struct nl_addr *local = cni_nl_prefix(p), *brd = NULL;
	char buf[RN_PREFIX_STRLEN];
	int err = -NLE_NOMEM;

	if (a && local) {
		rtnl_addr_set_ifindex(a, ifindex);
		err = rtnl_addr_set_local(a, local);
	}
	if (!err && p->addr.family == AF_INET && p->len < 31) {
		brd = broadcast_of(p);
		err = brd ? rtnl_addr_set_broadcast(a, brd) : -NLE_NOMEM;
	}
	if (!err && p->addr.family == AF_INET6)
		rtnl_addr_set_flags(a, IFA_F_NODAD);
	if (!err)
		err = rtnl_addr_add(pod, a, NLM_F_CREATE | NLM_F_EXCL);
	nl_addr_put(local);
	nl_addr_put(brd);
	rtnl_addr_put(a);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "add address %s: %s",
			       rn_prefix_format(p, buf), nl_geterror(err));
	return 0;
}

struct find_ctx {
	int ifindex;
	const struct rn_prefix *want;
	bool found;
};

static void match_addr(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct find_ctx *ctx = arg;
	struct rn_prefix got;

	if (rtnl_addr_get_ifindex(a) != ctx->ifindex ||
	    !cni_from_nl_addr(rtnl_addr_get_local(a), &got))
		return;
	if (got.len == ctx->want->len && rn_addr_equal(&got.addr, &ctx->want->addr))
		ctx->found = true;
}

int cni_addr_present(struct nl_sock *pod, int ifindex, const struct rn_prefix *p, bool *found,
		     struct rn_error *e)
{
	struct find_ctx ctx = { ifindex, p, false };
	struct nl_cache *cache;
	int err = rtnl_addr_alloc_cache(pod, &cache);

	*found = false;
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "dump addresses: %s", nl_geterror(err));
	nl_cache_foreach(cache, match_addr, &ctx);
	nl_cache_free(cache);
	*found = ctx.found;
	return 0;
}

struct list_ctx {
	int ifindex, n, max;
	struct rn_addr *out;
};

static void add_addr(struct nl_object *obj, void *arg)
{
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct list_ctx *ctx = arg;
	struct rn_prefix got;

	if (rtnl_addr_get_ifindex(a) != ctx->ifindex || ctx->n >= ctx->max ||
	    !cni_from_nl_addr(rtnl_addr_get_local(a), &got))
		return;
	if (got.addr.family == AF_INET6 && got.addr.b[0] == 0xfe && (got.addr.b[1] & 0xc0) == 0x80)
		return;
	ctx->out[ctx->n++] = got.addr;
}

int cni_addr_list(struct nl_sock *pod, int ifindex, struct rn_addr *out, int max,
		  struct rn_error *e)
{
	struct list_ctx ctx = { ifindex, 0, max, out };
	struct nl_cache *cache;
	int err = rtnl_addr_alloc_cache(pod, &cache);

	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "dump addresses: %s", nl_geterror(err));
	nl_cache_foreach(cache, add_addr, &ctx);
	nl_cache_free(cache);
	return ctx.n;
}
