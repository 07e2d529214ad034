// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "probe.h"
#include "monotonic.h"

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

/* Releasing a packet socket waits for an RCU grace period (about 12 ms
 * here), on every ADD with the checks on, and nothing in the answer
 * depends on it: a child that keeps nothing else open (not the runtime's
 * pipes, which would hold up its read of the answer, nor our locks) takes
 * the last reference and waits in our place. Without a child, the wait is
 * ours. */
static void close_detached(int fd)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (fd > 0)
			close_range(0, (unsigned int)fd - 1, 0);
		close_range((unsigned int)fd + 1, ~0U, 0);
		close(fd);
		_exit(0);
	}
	close(fd);
}

void cni_prober_close(struct cni_prober *p)
{
	if (p->arp_fd >= 0)
		close_detached(p->arp_fd);
	if (p->nd_fd >= 0)
		close(p->nd_fd);
	p->arp_fd = p->nd_fd = -1;
}

/* A packet socket bound to a link that went down keeps ENETDOWN pending
 * (the kernel unhooks it at down and hooks it again at up), and the next
 * send or receive reports it, once, even if the link is long back up: a
 * link that just came up or flapped is no error. From a send, ENETDOWN can
 * also mean the link is down right now: that request waits for it. ENXIO
 * (the link was deleted) is not transient: the run fails. */
static bool link_reset(int err)
{
	return err == -ENETDOWN || err == -ENETRESET;
}

/* The request (or announcement) cannot go out yet, but may soon: no IPv6
 * link-local source address yet (it appears a moment after link up), or
 * the link is down for the moment. */
static bool not_yet(int err)
{
	return err == -EADDRNOTAVAIL || link_reset(err);
}

enum msg_kind { MSG_REQUEST, MSG_ANNOUNCE };

static int send_once(struct cni_prober *p, enum msg_kind kind, const struct rn_addr *sender,
		     const struct rn_addr *target)
{
	if (target->family == AF_INET)
		return cni_arp_request(p->arp_fd, p->ifindex, p->mac, sender, target);
	if (kind == MSG_ANNOUNCE)
		return cni_nd_advertise(p->nd_fd, p->ifindex, p->mac, target);
	return cni_nd_solicit(p->nd_fd, p->ifindex, p->mac, target);
}

/* 0 or -errno. A first ENETDOWN may only report a past flap (and clears
 * it), so the message is sent once more at once. */
static int send_msg(struct cni_prober *p, enum msg_kind kind, const struct rn_addr *sender,
		    const struct rn_addr *target)
{
	int rc = send_once(p, kind, sender, target);

	return link_reset(rc) ? send_once(p, kind, sender, target) : rc;
}

/* A request for every target not answered yet; with `retry`, only for those
 * whose last request could not go out. Returns how many still could not
 * (*why: the last reason), or < 0 on an error. */
static int send_round(struct cni_prober *p, struct cni_probe *t, unsigned int n, bool retry,
		      int *why, struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	int unsent = 0;

	for (unsigned int i = 0; i < n; i++) {
		int rc;

		if (t[i].answered || (retry && !t[i].unsent))
			continue;
		rc = send_msg(p, MSG_REQUEST, &t[i].sender, &t[i].target);
		t[i].unsent = not_yet(rc);
		if (t[i].unsent) {
			*why = rc;
			unsent++;
		} else if (rc) {
			return rn_fail(e, rc, "probe for %s on %s: %s",
				       rn_addr_format(&t[i].target, buf), p->ifname, strerror(-rc));
		}
	}
	return unsent;
}

/* The first round of requests, once the link can send them all: the
 * answer window starts then, so it is never cut short by the wait. */
static int first_send(struct cni_prober *p, struct cni_probe *t, unsigned int n,
		      struct rn_error *e)
{
	int64_t give_up = rn_monotonic_ms() + CNI_PROBE_READY_MS;
	struct timespec ms = { 0, 1000000 };
	int why = 0, rc = send_round(p, t, n, false, &why, e);

	while (rc > 0) {
		if (rn_monotonic_ms() >= give_up)
			return rn_fail(e, why, "probes on %s could not be sent for %d ms: %s%s",
				       p->ifname, CNI_PROBE_READY_MS, strerror(-why),
				       why == -EADDRNOTAVAIL ? " (no IPv6 link-local address to "
				       "send Neighbor Solicitations from)" : "");
		nanosleep(&ms, NULL);
		rc = send_round(p, t, n, true, &why, e);
	}
	return rc;
}

static bool done(const struct cni_probe *t, unsigned int n, enum cni_probe_until until)
{
	unsigned int answered = 0;
	bool stop = false;

	for (unsigned int i = 0; i < n; i++) {
		answered += t[i].answered;
		stop |= t[i].answered && t[i].stop;
	}
	if (until == CNI_PROBE_ANY_STOP)
		return stop;
	return until == CNI_PROBE_ANY_ANSWER ? answered > 0 : answered == n;
}

/* Reads everything pending on both sockets. Returns 1 if a socket said its
 * link went down since the last read (see link_reset), 0 if not, < 0 on an
 * error. */
static int drain(struct cni_prober *p, struct cni_probe *t, unsigned int n, struct rn_error *e)
{
	int fds[2] = { p->arp_fd, p->nd_fd };
	int reset = 0;

	for (int k = 0; k < 2; k++) {
		bool seen = false;
		int rc;

		if (fds[k] < 0)
			continue;
		for (;;) {
			rc = k == 0 ? cni_arp_receive(fds[k], p->mac, t, n) :
				      cni_nd_receive(fds[k], p->mac, t, n);
			if (rc >= 0)
				continue;
			/* reported once per down: a second one in the same read is
			 * another down, covered by the same restart */
			if (!link_reset(rc) || seen)
				break;
			seen = true;
			reset = 1;
		}
		if (rc != -EAGAIN && rc != -EINTR && !link_reset(rc))
			return rn_fail(e, rc, "receive on %s: %s", p->ifname, strerror(-rc));
	}
	return reset;
}

int cni_probe_run(struct cni_prober *p, struct cni_probe *t, unsigned int n,
		  const struct cni_probe_opts *o, enum cni_probe_until until, struct rn_error *e)
{
	int64_t start, deadline, next, gap = o->timeout_ms / (o->probes + 1);
	unsigned int sent = 1, answered = 0;
	bool retry = false, rearm = false;
	int why = 0;

	for (unsigned int i = 0; i < n; i++)
		t[i].answered = t[i].unsent = false;
	if (!n)
		return 0;
	if (first_send(p, t, n, e))
		return e->code;
	start = rn_monotonic_ms();
	deadline = start + o->timeout_ms;
	next = start + gap;
	for (;;) {
		struct pollfd pf[2] = { { .fd = p->arp_fd, .events = POLLIN },
					{ .fd = p->nd_fd, .events = POLLIN } };
		int64_t now, wait_until = deadline;
		int rc = drain(p, t, n, e);
		bool due;

		if (rc < 0)
			return e->code;
		if (rc > 0) {
			/* the requests, or their answers, may have been lost while
			 * the link was down, and the first frames on a link that
			 * just came back may be too: the rest of the window is a
			 * new run, from when all requests could go out again */
			rn_info("%s went down during the probes: starting them again", p->ifname);
			for (unsigned int i = 0; i < n; i++)
				t[i].unsent = true;
			retry = rearm = true;
		}
		now = rn_monotonic_ms();
		if (done(t, n, until) || now >= deadline)
			break;
		due = !rearm && sent < o->probes && now >= next;
		if (due || retry) {
			rc = send_round(p, t, n, !due, &why, e);
			if (rc < 0)
				return e->code;
			retry = rc > 0;
			if (due) {
				sent++;
				next = start + (int64_t)sent * gap;
			} else if (rearm && !retry) {
				rearm = false;
				start = now;
				gap = (deadline - now) / (o->probes + 1);
				sent = 1;
				next = start + gap;
			}
		}
		if (!rearm && sent < o->probes && next < wait_until)
			wait_until = next;
		if (retry && now + CNI_PROBE_RETRY_MS < wait_until)
			wait_until = now + CNI_PROBE_RETRY_MS;
		if (poll(pf, 2, (int)(wait_until > now ? wait_until - now : 0)) < 0 &&
		    errno != EINTR)
			return rn_fail(e, -errno, "poll: %s", strerror(errno));
	}
	if (retry)
		rn_debug("%s: some requests never went out: %s", p->ifname, strerror(-why));
	for (unsigned int i = 0; i < n; i++)
		answered += t[i].answered;
	return (int)answered;
}

int cni_probe_announce(struct cni_prober *p, const struct rn_addr *addr, struct rn_error *e)
{
	char buf[RN_ADDR_STRLEN];
	int rc = send_msg(p, MSG_ANNOUNCE, addr, addr);

	if (rc)
		return rn_fail(e, rc, "announce %s on %s: %s", rn_addr_format(addr, buf),
			       p->ifname, strerror(-rc));
	return 0;
}
