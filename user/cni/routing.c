// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>

#include "nl_addr_conv.h"
#include "nl_errno.h"
#include "routing.h"

static bool is_host_prefix(const struct rn_prefix *p, const struct rn_addr *a)
{
	return p->len == rn_addr_len(a) * 8 && rn_addr_equal(&p->addr, a);
}

/* --- rules ----------------------------------------------------------------------- */

struct rule_walk {
	const struct rn_addr *src;	/* NULL: every rule */
	uint32_t tables_used[64];
	unsigned int n_tables;
	struct rtnl_rule *matches[16];
	unsigned int n_matches;
};

static void walk_rule(struct nl_object *obj, void *arg)
{
	struct rtnl_rule *r = (struct rtnl_rule *)obj;
	struct rule_walk *w = arg;
	struct rn_prefix src;

	if (w->n_tables < 64)
		w->tables_used[w->n_tables++] = rtnl_rule_get_table(r);
	if (!w->src || w->n_matches == 16 || !cni_from_nl_addr(rtnl_rule_get_src(r), &src) ||
	    !is_host_prefix(&src, w->src))
		return;
	nl_object_get(obj);
	w->matches[w->n_matches++] = r;
}

static int walk_rules(struct nl_sock *pod, struct rule_walk *w, struct rn_error *e)
{
	struct nl_cache *cache;
	int err = rtnl_rule_alloc_cache(pod, AF_UNSPEC, &cache);

	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "dump rules: %s", nl_geterror(err));
	nl_cache_foreach(cache, walk_rule, w);
	nl_cache_free(cache);
	return 0;
}

static void walk_done(struct rule_walk *w)
{
	for (unsigned int i = 0; i < w->n_matches; i++)
		rtnl_rule_put(w->matches[i]);
	w->n_matches = 0;
}

int cni_table_pick(struct nl_sock *pod, uint32_t base, uint32_t *table, struct rn_error *e)
{
	struct rule_walk w = { 0 };
	uint32_t t = base;

	if (walk_rules(pod, &w, e))
		return e->code;
	for (bool again = true; again;) {
		again = false;
		if (t >= RT_TABLE_DEFAULT && t <= RT_TABLE_LOCAL)
			t = RT_TABLE_LOCAL + 1;
		for (unsigned int i = 0; i < w.n_tables; i++) {
			if (w.tables_used[i] == t) {
				t++;
				again = true;
			}
		}
	}
	*table = t;
	return 0;
}

int cni_rule_add(struct nl_sock *pod, const struct rn_addr *src, uint32_t table, uint32_t prio,
		 struct rn_error *e)
{
	struct rtnl_rule *r = rtnl_rule_alloc();
	struct nl_addr *a = cni_nl_addr(src, (unsigned int)rn_addr_len(src) * 8);
	char buf[RN_ADDR_STRLEN];
	int err = -NLE_NOMEM;

	if (r && a) {
		rtnl_rule_set_family(r, src->family);
		rtnl_rule_set_prio(r, prio);
		rtnl_rule_set_table(r, table);
		rtnl_rule_set_action(r, FR_ACT_TO_TBL);
		err = rtnl_rule_set_src(r, a);
	}
	if (!err)
		err = rtnl_rule_add(pod, r, NLM_F_CREATE | NLM_F_EXCL);
	nl_addr_put(a);
	rtnl_rule_put(r);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "rule from %s lookup %u: %s",
			       rn_addr_format(src, buf), table, nl_geterror(err));
	return 0;
}

int cni_rules_del_from(struct nl_sock *pod, const struct rn_addr *src, struct rn_error *e)
{
	struct rule_walk w = { .src = src };
	char buf[RN_ADDR_STRLEN];
	int deleted = 0, err = 0;

	if (walk_rules(pod, &w, e))
		return e->code;
	for (unsigned int i = 0; i < w.n_matches && !err; i++) {
		int r = rtnl_rule_delete(pod, w.matches[i], 0);

		if (r >= 0)
			deleted++;
		else if (rn_nl_errno(r) != -ENODEV)
			err = rn_fail(e, rn_nl_errno(r), "delete rule from %s: %s",
				      rn_addr_format(src, buf), nl_geterror(r));
	}
	walk_done(&w);
	return err ? err : deleted;
}

int cni_rule_table_of(struct nl_sock *pod, const struct rn_addr *src, uint32_t *table,
		      struct rn_error *e)
{
	struct rule_walk w = { .src = src };

	*table = 0;
	if (walk_rules(pod, &w, e))
		return e->code;
	if (w.n_matches)
		*table = rtnl_rule_get_table(w.matches[0]);
	walk_done(&w);
	return 0;
}

/* --- routes ------------------------------------------------------------------------ */

static struct rtnl_route *build_route(int ifindex, const struct cni_att_route *r)
{
	struct rtnl_route *rt = rtnl_route_alloc();
	struct rtnl_nexthop *nh = rtnl_route_nh_alloc();
	struct nl_addr *dst = cni_nl_prefix(&r->dst), *gw = NULL, *src = NULL;
	int err = -NLE_NOMEM;

	if (r->has_gw)
		gw = cni_nl_addr(&r->gw, (unsigned int)rn_addr_len(&r->gw) * 8);
	src = cni_nl_addr(&r->src, (unsigned int)rn_addr_len(&r->src) * 8);
	if (rt && nh && dst && src && (gw || !r->has_gw)) {
		rtnl_route_set_family(rt, r->dst.addr.family);
		rtnl_route_set_table(rt, r->table ? r->table : RT_TABLE_MAIN);
		rtnl_route_set_protocol(rt, RTPROT_STATIC);
		rtnl_route_set_scope(rt, r->link_scope ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE);
		rtnl_route_set_type(rt, RTN_UNICAST);
		err = rtnl_route_set_dst(rt, dst);
		if (!err)
			err = rtnl_route_set_pref_src(rt, src);
		rtnl_route_nh_set_ifindex(nh, ifindex);
		if (gw)
			rtnl_route_nh_set_gateway(nh, gw);
		if (!err) {
			rtnl_route_add_nexthop(rt, nh);
			nh = NULL;
		}
	}
	nl_addr_put(dst);
	nl_addr_put(gw);
	nl_addr_put(src);
	if (nh)
		rtnl_route_nh_free(nh);
	if (err) {
		rtnl_route_put(rt);
		return NULL;
	}
	return rt;
}

int cni_route_add(struct nl_sock *pod, int ifindex, const struct cni_att_route *r,
		  struct rn_error *e)
{
	struct rtnl_route *rt = build_route(ifindex, r);
	char dst[RN_PREFIX_STRLEN];
	int err;

	if (!rt)
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	err = rtnl_route_add(pod, rt, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_route_put(rt);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "route %s table %u: %s",
			       rn_prefix_format(&r->dst, dst), r->table ? r->table : RT_TABLE_MAIN,
			       nl_geterror(err));
	return 0;
}

struct route_find {
	int ifindex;
	const struct cni_att_route *want;
	bool found;
};

static void match_nexthop(struct rtnl_nexthop *nh, void *arg)
{
	struct route_find *f = arg;
	struct rn_prefix gw;
	bool has_gw = cni_from_nl_addr(rtnl_route_nh_get_gateway(nh), &gw);

	if (rtnl_route_nh_get_ifindex(nh) != f->ifindex || has_gw != f->want->has_gw)
		return;
	if (!has_gw || rn_addr_equal(&gw.addr, &f->want->gw))
		f->found = true;
}

static void match_route(struct nl_object *obj, void *arg)
{
	struct rtnl_route *rt = (struct rtnl_route *)obj;
	struct route_find *f = arg;
	uint32_t table = f->want->table ? f->want->table : RT_TABLE_MAIN;
	struct rn_prefix dst;

	if (rtnl_route_get_table(rt) != table ||
	    rtnl_route_get_family(rt) != f->want->dst.addr.family ||
	    !cni_from_nl_addr(rtnl_route_get_dst(rt), &dst))
		return;
	if (dst.len != f->want->dst.len ||
	    (dst.len && !rn_addr_equal(&dst.addr, &f->want->dst.addr)))
		return;
	rtnl_route_foreach_nexthop(rt, match_nexthop, f);
}

int cni_route_present(struct nl_sock *pod, int ifindex, const struct cni_att_route *r,
		      bool *found, struct rn_error *e)
{
	struct route_find f = { ifindex, r, false };
	struct nl_cache *cache;
	int err = rtnl_route_alloc_cache(pod, r->dst.addr.family, 0, &cache);

	*found = false;
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "dump routes: %s", nl_geterror(err));
	nl_cache_foreach(cache, match_route, &f);
	nl_cache_free(cache);
	*found = f.found;
	return 0;
}
