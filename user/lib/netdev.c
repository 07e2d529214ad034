// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "netdev.h"
#include "nl_errno.h"

int rn_netdev_get(const char *ifname, int ifindex, struct rn_netdev *out, struct rn_error *e)
{
	struct nl_sock *sk = nl_socket_alloc();
	struct rtnl_link *link = NULL;
	struct nl_addr *addr;
	const char *kind;
	int err;

	memset(out, 0, sizeof(*out));
	if (!sk)
		return rn_fail(e, -ENOMEM, "netlink: out of memory");
	err = nl_connect(sk, NETLINK_ROUTE);
	if (!err)
		err = rtnl_link_get_kernel(sk, ifname ? 0 : ifindex, ifname, &link);
	nl_socket_free(sk);
	if (err < 0) {
		if (rn_nl_errno(err) == -ENODEV)
			return ifname ? rn_fail(e, -ENODEV, "%s: no such device", ifname)
				      : rn_fail(e, -ENODEV, "ifindex %d: no such device", ifindex);
		return rn_fail(e, rn_nl_errno(err), "netlink: %s", nl_geterror(err));
	}
	snprintf(out->ifname, sizeof(out->ifname), "%s", rtnl_link_get_name(link));
	out->ifindex = rtnl_link_get_ifindex(link);
	out->mtu = rtnl_link_get_mtu(link);
	out->up = rtnl_link_get_flags(link) & IFF_UP;
	addr = rtnl_link_get_addr(link);
	if (addr && nl_addr_get_len(addr) == 6)
		memcpy(out->mac, nl_addr_get_binary_addr(addr), 6);
	kind = rtnl_link_get_type(link);
	snprintf(out->kind, sizeof(out->kind), "%s", kind ? kind : "");
	rtnl_link_put(link);
	return 0;
}
