/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Who answers for an address on the pod's link: ARP over an AF_PACKET
 * socket (IPv4), Neighbor Solicitation/Advertisement over an ICMPv6 socket
 * (IPv6). Used before an address is configured, both to find a duplicate
 * (someone answers for the address we were given: the RFC 5227 probe, the
 * RFC 4862 DAD idea) and to see that the gateway is there.
 *
 * A prober holds one socket per family for the whole ADD: it is opened
 * inside the pod netns (the sockets belong to it from then on, wherever the
 * process goes), and the targets of one run are probed together, so a
 * dual-stack check costs one timeout, not two. A packet socket costs an RCU
 * grace period to bind and to close, which is why there is only one. */
#ifndef RDMANET_CNI_PROBE_H
#define RDMANET_CNI_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/master.h>

#include "error.h"
#include "netaddr.h"
#include "netconf.h"

struct cni_prober {
	int ifindex;
	char ifname[RN_IFNAMSIZ];
	uint8_t mac[6];
	int arp_fd;			/* -1 if not opened */
	int nd_fd;
};

struct cni_probe {
	struct rn_addr target;
	/* IPv4: the sender address of the requests; unset (family 0) sends an
	 * RFC 5227 probe from 0.0.0.0, which announces nothing. IPv6 requests
	 * always come from the link-local address. */
	struct rn_addr sender;
	bool stop;			/* with CNI_PROBE_ANY_STOP: an answer ends the run */
	bool answered;			/* out */
	uint8_t who[6];			/* out: the MAC that answered */
	bool unsent;			/* internal: its last request could not go out */
};

/* ANY_STOP: the whole window, unless a target marked `stop` is answered
 * (the duplicate check, with the gateways asked in the same window). */
enum cni_probe_until { CNI_PROBE_ANY_ANSWER, CNI_PROBE_ALL_ANSWERED, CNI_PROBE_ANY_STOP };

/* How long a new link may take to get its IPv6 link-local address (the
 * kernel adds it once the link is operationally up, from a workqueue). */
#define CNI_PROBE_READY_MS 2000
/* How soon a request that could not go out (no link-local address yet, the
 * link down for a moment) is tried again within a run. */
#define CNI_PROBE_RETRY_MS 10

/* Call inside the pod netns. */
int cni_prober_open(struct cni_prober *p, int ifindex, const char *ifname, const uint8_t mac[6],
		    bool ipv4, bool ipv6, struct rn_error *e);
void cni_prober_close(struct cni_prober *p);

/* Sends o->probes requests for every target, spread evenly over the first
 * part of o->timeout_ms, and collects answers until `until` is met or the
 * timeout passes. The window starts with the first request sent. A link
 * that goes down and comes back up within the window is no error: the
 * requests are sent again once it is back (answers to the earlier ones may
 * have been lost), and the run goes on. Returns how many targets were
 * answered, or < 0. */
int cni_probe_run(struct cni_prober *p, struct cni_probe *t, unsigned int n,
		  const struct cni_probe_opts *o, enum cni_probe_until until, struct rn_error *e);
/* Gratuitous ARP / unsolicited Neighbor Advertisement (override) for addr. */
int cni_probe_announce(struct cni_prober *p, const struct rn_addr *addr, struct rn_error *e);

/* Per family (probe_arp.c, probe_ndp.c): the sockets, one request, and
 * whether a received message answers for a target. */
int cni_arp_open(int ifindex, struct rn_error *e);
int cni_arp_request(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *sender,
		    const struct rn_addr *target);
/* Reads one pending message; 1 and *t's outputs set if it answers for one of
 * the IPv4 targets, 0 if not, -EAGAIN when nothing is left. */
int cni_arp_receive(int fd, const uint8_t mac[6], struct cni_probe *t, unsigned int n);
int cni_nd_open(int ifindex, const char *ifname, struct rn_error *e);
int cni_nd_solicit(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *target);
int cni_nd_advertise(int fd, int ifindex, const uint8_t mac[6], const struct rn_addr *addr);
int cni_nd_receive(int fd, const uint8_t mac[6], struct cni_probe *t, unsigned int n);

#endif
