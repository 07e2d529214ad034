// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"

int64_t cni_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int cni_prober_open(struct cni_prober *p, int ifindex, const char *ifname, const uint8_t mac[6],
		    bool ipv4, bool ipv6, struct rn_error *e)
{
	p->ifindex = ifindex;
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	memcpy(p->mac, mac, 6);
	p->arp_fd = p->nd_fd = -1;
	if (ipv4 && (p->arp_fd = cni_arp_open(ifindex, e)) < 0)
		return p->arp_fd;
	if (ipv6 && (p->nd_fd = cni_nd_open(ifindex, ifname, e)) < 0) {
		int err = p->nd_fd;

		cni_prober_close(p);
		return err;
	}
	return 0;
}

void cni_prober_close(struct cni_prober *p)
{
	if (p->arp_fd >= 0)
		close(p->arp_fd);
	if (p->nd_fd >= 0)
		close(p->nd_fd);
	p->arp_fd = p->nd_fd = -1;
}

/* Returns 0 when every request went out, 1 when an IPv6 one could not go yet
 * (no link-local source address: it appears a moment after link up). */
static int send_all(struct cni_prober *p, const struct cni_probe *t, unsigned int n,
		    struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	int pending = 0;

	for (unsigned int i = 0; i < n; i++) {
		int rc;

		if (t[i].target.family == AF_INET) {
			rc = cni_arp_request(p->arp_fd, p->ifindex, p->mac, &t[i].sender,
					     &t[i].target);
		} else {
			rc = cni_nd_solicit(p->nd_fd, p->ifindex, p->mac, &t[i].target);
			if (rc == -EADDRNOTAVAIL) {
				pending = 1;
				continue;
			}
		}
		if (rc)
			return rn_fail(e, rc, "probe for %s on %s: %s",
				       rn_addr_format(&t[i].target, buf), p->ifname, strerror(-rc));
	}
	return pending;
}

/* The first round of requests, once the link can send them all: the
 * answer window starts then, so it is never cut short by the wait. */
static int first_send(struct cni_prober *p, const struct cni_probe *t, unsigned int n,
		      struct rn_error *e)
{
	int64_t give_up = cni_now_ms() + CNI_PROBE_READY_MS;
	struct timespec ms = { 0, 1000000 };

	for (;;) {
		int rc = send_all(p, t, n, e);

		if (rc <= 0)
			return rc;
		if (cni_now_ms() >= give_up)
			return rn_fail(e, -EADDRNOTAVAIL, "%s got no IPv6 link-local address to "
				       "send Neighbor Solicitations from in %d ms", p->ifname,
				       CNI_PROBE_READY_MS);
		nanosleep(&ms, NULL);
	}
}

static bool done(const struct cni_probe *t, unsigned int n, enum cni_probe_until until)
{
	unsigned int answered = 0;

	for (unsigned int i = 0; i < n; i++)
		answered += t[i].answered;
	return until == CNI_PROBE_ANY_ANSWER ? answered > 0 : answered == n;
}

static int drain(struct cni_prober *p, struct cni_probe *t, unsigned int n, struct rn_error *e)
{
	int fds[2] = { p->arp_fd, p->nd_fd };

	for (int k = 0; k < 2; k++) {
		int rc;

		if (fds[k] < 0)
			continue;
		do {
			rc = k == 0 ? cni_arp_receive(fds[k], p->mac, t, n) :
				      cni_nd_receive(fds[k], p->mac, t, n);
		} while (rc >= 0);
		if (rc != -EAGAIN && rc != -EINTR)
			return rn_fail(e, rc, "receive on %s: %s", p->ifname, strerror(-rc));
	}
	return 0;
}

int cni_probe_run(struct cni_prober *p, struct cni_probe *t, unsigned int n,
		  const struct cni_probe_opts *o, enum cni_probe_until until, struct rn_error *e)
{
	int64_t start, deadline, next, gap = o->timeout_ms / (o->probes + 1);
	unsigned int sent = 1, answered = 0;

	for (unsigned int i = 0; i < n; i++)
		t[i].answered = false;
	if (!n)
		return 0;
	if (first_send(p, t, n, e))
		return e->code;
	start = cni_now_ms();
	deadline = start + o->timeout_ms;
	next = start + gap;
	for (;;) {
		struct pollfd pf[2] = { { .fd = p->arp_fd, .events = POLLIN },
					{ .fd = p->nd_fd, .events = POLLIN } };
		int64_t now = cni_now_ms(), wait_until = deadline;

		if (drain(p, t, n, e))
			return e->code;
		if (done(t, n, until) || now >= deadline)
			break;
		if (sent < o->probes && now >= next) {
			if (send_all(p, t, n, e) < 0)
				return e->code;
			sent++;
			next = start + (int64_t)sent * gap;
		}
		if (sent < o->probes && next < wait_until)
			wait_until = next;
		if (poll(pf, 2, (int)(wait_until > now ? wait_until - now : 0)) < 0 &&
		    errno != EINTR)
			return rn_fail(e, -errno, "poll: %s", strerror(errno));
	}
	for (unsigned int i = 0; i < n; i++)
		answered += t[i].answered;
	return (int)answered;
}

int cni_probe_announce(struct cni_prober *p, const struct rn_addr *addr, struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	int rc = addr->family == AF_INET ?
		 cni_arp_request(p->arp_fd, p->ifindex, p->mac, addr, addr) :
		 cni_nd_advertise(p->nd_fd, p->ifindex, p->mac, addr);

	if (rc)
		return rn_fail(e, rc, "announce %s on %s: %s", rn_addr_format(addr, buf),
			       p->ifname, strerror(-rc));
	return 0;
}
