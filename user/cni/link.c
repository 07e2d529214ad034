// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <net/if.h>
#include <netlink/route/link.h>
#include <netlink/route/link/ipvlan.h>
#include <netlink/route/link/macvlan.h>

#include "link.h"
#include "nl_errno.h"

/* FNV-1a: stable across processes and releases, which is all it needs */
void cni_link_tmp_name(const char *container_id, const char *ifname, char out[RN_IFNAMSIZ])
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const char *p = container_id; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	h = (h ^ 0) * 0x100000001b3ull;
	for (const char *p = ifname; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	snprintf(out, RN_IFNAMSIZ, "rnt%012llx", (unsigned long long)(h & 0xffffffffffffull));
}

void cni_link_alias(const char *container_id, char out[CNI_ALIAS_MAX])
{
	snprintf(out, CNI_ALIAS_MAX, CNI_ALIAS_PREFIX "%s", container_id);
}

int cni_link_create(struct nl_sock *host, const struct cni_link_spec *s, const char *name,
		    int pod_fd, struct rn_error *e)
{
	struct rtnl_link *l;
	int err;

	l = s->mode == CNI_MODE_IPVLAN ? rtnl_link_ipvlan_alloc() : rtnl_link_macvlan_alloc();
	if (!l)
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	rtnl_link_set_name(l, name);
	rtnl_link_set_link(l, s->master_ifindex);
	if (s->mtu)
		rtnl_link_set_mtu(l, s->mtu);
	if (s->mode == CNI_MODE_IPVLAN)
		err = rtnl_link_ipvlan_set_mode(l, (uint16_t)s->submode);
	else
		err = rtnl_link_macvlan_set_mode(l, (uint32_t)s->submode);
	/* IFLA_NET_NS_FD on creation: the kernel builds the device in the pod netns */
	rtnl_link_set_ns_fd(l, pod_fd);
	if (!err)
		err = rtnl_link_add(host, l, NLM_F_CREATE | NLM_F_EXCL);
	rtnl_link_put(l);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "create %s child %s: %s",
			       s->mode == CNI_MODE_IPVLAN ? "ipvlan" : "macvlan", name,
			       nl_geterror(err));
	return 0;
}

int cni_link_rename(struct nl_sock *pod, int ifindex, const char *to, const char *alias,
		    struct rn_error *e)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *chg = rtnl_link_alloc();
	int err = -NLE_NOMEM;

	if (orig && chg) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_set_name(chg, to);
		rtnl_link_set_ifalias(chg, alias);
		err = rtnl_link_change(pod, orig, chg, 0);
	}
	rtnl_link_put(orig);
	rtnl_link_put(chg);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "rename ifindex %d to %s: %s", ifindex, to,
			       nl_geterror(err));
	return 0;
}

int cni_link_set_up(struct nl_sock *pod, int ifindex, struct rn_error *e)
{
	struct rtnl_link *orig = rtnl_link_alloc(), *chg = rtnl_link_alloc();
	int err = -NLE_NOMEM;

	if (orig && chg) {
		rtnl_link_set_ifindex(orig, ifindex);
		rtnl_link_set_flags(chg, IFF_UP);
		err = rtnl_link_change(pod, orig, chg, 0);
	}
	rtnl_link_put(orig);
	rtnl_link_put(chg);
	if (err < 0)
		return rn_fail(e, rn_nl_errno(err), "set ifindex %d up: %s", ifindex,
			       nl_geterror(err));
	return 0;
}

int cni_link_get(struct nl_sock *sk, const char *name, struct cni_link_info *out,
		 struct rn_error *e)
{
	struct rtnl_link *l = NULL;
	struct nl_addr *mac;
	const char *kind, *alias;
	uint16_t ipmode = 0;
	int err;

	memset(out, 0, sizeof(*out));
	err = rtnl_link_get_kernel(sk, 0, name, &l);
	if (err < 0) {
		err = rn_nl_errno(err);
		return rn_fail(e, err, "%s: %s", name,
			       err == -ENODEV ? "no such interface" : nl_geterror(err));
	}
	out->ifindex = rtnl_link_get_ifindex(l);
	out->parent_ifindex = rtnl_link_get_link(l);
	out->mtu = rtnl_link_get_mtu(l);
	out->up = rtnl_link_get_flags(l) & IFF_UP;
	kind = rtnl_link_get_type(l);
	snprintf(out->kind, sizeof(out->kind), "%s", kind ? kind : "");
	alias = rtnl_link_get_ifalias(l);
	snprintf(out->alias, sizeof(out->alias), "%s", alias ? alias : "");
	mac = rtnl_link_get_addr(l);
	if (mac && nl_addr_get_len(mac) == 6)
		memcpy(out->mac, nl_addr_get_binary_addr(mac), 6);
	if (rtnl_link_is_macvlan(l))
		out->submode = (int)rtnl_link_macvlan_get_mode(l);
	else if (rtnl_link_is_ipvlan(l) && !rtnl_link_ipvlan_get_mode(l, &ipmode))
		out->submode = ipmode;
	rtnl_link_put(l);
	return 0;
}

int cni_link_ours(struct nl_sock *pod, const char *name, const char *alias, int *ifindex,
		  struct rn_error *e)
{
	struct cni_link_info info;
	int err = cni_link_get(pod, name, &info, e);

	if (err == -ENODEV)
		return 0;
	if (err)
		return err;
	if ((strcmp(info.kind, "macvlan") && strcmp(info.kind, "ipvlan")) ||
	    strcmp(info.alias, alias))
		return 0;
	*ifindex = info.ifindex;
	return 1;
}

int cni_link_delete_index(struct nl_sock *pod, int ifindex, const char *name, bool *deleted,
			  struct rn_error *e)
{
	struct rtnl_link *l = rtnl_link_alloc();
	int err;

	*deleted = false;
	if (!l)
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	rtnl_link_set_ifindex(l, ifindex);
	err = rtnl_link_delete(pod, l);
	rtnl_link_put(l);
	if (err < 0 && rn_nl_errno(err) != -ENODEV)
		return rn_fail(e, rn_nl_errno(err), "delete %s: %s", name, nl_geterror(err));
	*deleted = err >= 0;
	return 0;
}

int cni_link_delete_ours(struct nl_sock *pod, const char *name, const char *alias,
			 bool *deleted, struct rn_error *e)
{
	int ifindex, ours = cni_link_ours(pod, name, alias, &ifindex, e);

	*deleted = false;
	if (ours <= 0)
		return ours;
	return cni_link_delete_index(pod, ifindex, name, deleted, e);
}
