// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "probe.h"

/* An ND message with one link-layer address option (RFC 4861 4.3, 4.4). */
struct nd_msg {
	union {
		struct nd_neighbor_solicit ns;
		struct nd_neighbor_advert na;
	};
	struct nd_opt_hdr opt;
	uint8_t lladdr[6];
} __attribute__((packed));

int cni_nd_open(int ifindex, const char *ifname, struct rn_error *e)
{
	int fd = socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMPV6);
	int hops = 255, loop = 0, err;
	struct icmp6_filter f;

	if (fd < 0)
		return rn_fail(e, -errno, "ICMPv6 socket: %s", strerror(errno));
	ICMP6_FILTER_SETBLOCKALL(&f);
	ICMP6_FILTER_SETPASS(ND_NEIGHBOR_ADVERT, &f);
	/* ND messages must carry hop limit 255 (RFC 4861 7.1) */
	if (setsockopt(fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_HOPS, &hops, sizeof(hops)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &hops, sizeof(hops)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_LOOP, &loop, sizeof(loop)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof(ifindex)) ||
	    setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, ifname, (socklen_t)strlen(ifname) + 1)) {
		err = -errno;
		close(fd);
		return rn_fail(e, err, "ICMPv6 socket on %s: %s", ifname, strerror(-err));
	}
	return fd;
}

static int nd_send(int fd, int ifindex, const struct nd_msg *m, const struct in6_addr *dst)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_addr = *dst,
				   .sin6_scope_id = (uint32_t)ifindex };

	if (sendto(fd, m, sizeof(*m), 0, (struct sockaddr *)&to, sizeof(to)) != sizeof(*m))
		return -errno;
	return 0;
}

/* One ND message: the target and our link-layer address as its option. */
static void nd_fill(struct nd_msg *m, uint8_t type, const struct rn_addr *target, uint8_t opt,
		    const uint8_t mac[6])
{
	memset(m, 0, sizeof(*m));
	m->ns.nd_ns_type = type;	/* type and target sit alike in NS and NA */
	memcpy(&m->ns.nd_ns_target, target->b, 16);
	m->opt.nd_opt_type = opt;
	m->opt.nd_opt_len = 1;
	memcpy(m->lladdr, mac, 6);
}

/* To the target's solicited-node group, from the link-local address the
 * kernel picks (so the owner can answer it; DAD's :: source cannot be sent
 * through a socket). -EADDRNOTAVAIL until the link-local address exists. */
int cni_nd_solicit(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *target)
{
	struct in6_addr dst = { .s6_addr = { 0xff, 0x02, [11] = 0x01, [12] = 0xff } };
	struct nd_msg m;

	memcpy(dst.s6_addr + 13, target->b + 13, 3);
	nd_fill(&m, ND_NEIGHBOR_SOLICIT, target, ND_OPT_SOURCE_LINKADDR, mac);
	return nd_send(fd, ifindex, &m, &dst);
}

int cni_nd_advertise(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *addr)
{
	struct in6_addr all_nodes = { .s6_addr = { 0xff, 0x02, [15] = 0x01 } };
	struct nd_msg m;

	nd_fill(&m, ND_NEIGHBOR_ADVERT, addr, ND_OPT_TARGET_LINKADDR, mac);
	m.na.nd_na_flags_reserved = ND_NA_FLAG_OVERRIDE;
	return nd_send(fd, ifindex, &m, &all_nodes);
}

/* The target link-layer address option of an advertisement, if any. */
static void target_lladdr(const uint8_t *buf, size_t len, uint8_t who[6])
{
	size_t off = sizeof(struct nd_neighbor_advert);

	memset(who, 0, 6);
	while (off + 8 <= len) {
		const struct nd_opt_hdr *o = (const struct nd_opt_hdr *)(buf + off);

		if (!o->nd_opt_len)
			return;
		if (o->nd_opt_type == ND_OPT_TARGET_LINKADDR && o->nd_opt_len == 1) {
			memcpy(who, buf + off + 2, 6);
			return;
		}
		off += (size_t)o->nd_opt_len * 8;
	}
}

int cni_nd_receive(int fd, const uint8_t mac[6], struct cni_probe *t, unsigned int n)
{
	uint8_t pkt[512], who[6];
	const struct nd_neighbor_advert *na = (const void *)pkt;
	ssize_t got = recv(fd, pkt, sizeof(pkt), 0);
	int hit = 0;

	if (got < 0)
		return -errno;
	if (got < (ssize_t)sizeof(*na) || na->nd_na_type != ND_NEIGHBOR_ADVERT)
		return 0;
	target_lladdr(pkt, (size_t)got, who);
	if (!memcmp(who, mac, 6))
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		if (t[i].answered || t[i].target.family != AF_INET6 ||
		    memcmp(&na->nd_na_target, t[i].target.b, 16))
			continue;
		t[i].answered = true;
		memcpy(t[i].who, who, 6);
		hit = 1;
	}
	return hit;
}
