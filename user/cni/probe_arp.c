// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if_arp.h>
#include <netinet/if_ether.h>
#include <sys/socket.h>

#include "probe.h"

int cni_arp_open(int ifindex, struct rn_error *e)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ARP),
		.sll_ifindex = ifindex,
	};
	/* protocol 0 at creation: no packet hook yet, so bind only registers
	 * one instead of swapping (which waits for an RCU grace period) */
	int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return rn_fail(e, -errno, "ARP socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		int err = -errno;

		close(fd);
		return rn_fail(e, err, "ARP socket: bind to ifindex %d: %s", ifindex,
			       strerror(-err));
	}
	return fd;
}

/* sender NULL or unset: 0.0.0.0 (an RFC 5227 probe). Returns 0 or -errno. */
int cni_arp_request(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *sender,
		    const struct rn_addr *target)
{
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ARP),
		.sll_ifindex = ifindex,
		.sll_halen = ETH_ALEN,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	struct ether_arp a;

	memset(&a, 0, sizeof(a));
	a.arp_hrd = htons(ARPHRD_ETHER);
	a.arp_pro = htons(ETH_P_IP);
	a.arp_hln = ETH_ALEN;
	a.arp_pln = 4;
	a.arp_op = htons(ARPOP_REQUEST);
	memcpy(a.arp_sha, mac, ETH_ALEN);
	if (sender && sender->family == AF_INET)
		memcpy(a.arp_spa, sender->b, 4);
	memcpy(a.arp_tpa, target->b, 4);
	if (sendto(fd, &a, sizeof(a), 0, (struct sockaddr *)&to, sizeof(to)) != sizeof(a))
		return -errno;
	return 0;
}

/* Someone else speaks for target: a reply or a request from it, or (RFC 5227
 * 2.1.1) another host probing for the same address at the same time. */
static bool answers_for(const struct ether_arp *a, const uint8_t mac[6],
			const struct cni_probe *t)
{
	static const uint8_t zero[4];

	if (t->target.family != AF_INET || !memcmp(a->arp_sha, mac, ETH_ALEN))
		return false;
	if (!memcmp(a->arp_spa, t->target.b, 4))
		return true;
	return t->sender.family != AF_INET && ntohs(a->arp_op) == ARPOP_REQUEST &&
	       !memcmp(a->arp_spa, zero, 4) && !memcmp(a->arp_tpa, t->target.b, 4);
}

int cni_arp_receive(int fd, const uint8_t mac[6], struct cni_probe *t, unsigned int n)
{
	struct sockaddr_ll from;
	socklen_t flen = sizeof(from);
	struct ether_arp a;
	ssize_t got = recvfrom(fd, &a, sizeof(a), 0, (struct sockaddr *)&from, &flen);
	int hit = 0;

	if (got < 0)
		return -errno;
	if (got < (ssize_t)sizeof(a) || from.sll_pkttype == PACKET_OUTGOING ||
	    ntohs(a.arp_pro) != ETH_P_IP || a.arp_pln != 4 || a.arp_hln != ETH_ALEN)
		return 0;
	for (unsigned int i = 0; i < n; i++) {
		if (t[i].answered || !answers_for(&a, mac, &t[i]))
			continue;
		t[i].answered = true;
		memcpy(t[i].who, a.arp_sha, ETH_ALEN);
		hit = 1;
	}
	return hit;
}
