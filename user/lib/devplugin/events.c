// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* What makes the device plugin act between kubelet's calls, all read
 * without blocking from the thread's loop:
 *   inotify on the socket directory: kubelet deletes every socket under
 *     device-plugins/ when it (re)starts; open connections survive the
 *     file's deletion, so only the event tells us to serve and register
 *     again. A new kubelet.sock retries a failed Register at once.
 *   rtnetlink link events: a netdev going down or up (and with it the
 *     RoCE port state) reloads the model and pushes the new health.
 *   inotify on the VF holds' directory (<stateDir>/sriov): the CNI writes
 *     a hold (rename into place) before it touches a VF and removes it when
 *     the VF is back; either reloads, so a taken VF turns Unhealthy at once
 *     and a freed one Healthy. The periodic update is the fallback. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <linux/rtnetlink.h>

#include "devplugin/grpc_internal.h"
#include "log.h"

static int link_event(struct nl_msg *msg, void *arg)
{
	(void)msg;
	dp_schedule_reload(arg);
	return NL_OK;
}

static int watch_dir(struct dp_server *s)
{
	return inotify_add_watch(s->inotify_fd, s->plugin_dir,
				 IN_DELETE | IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO |
				 IN_DELETE_SELF | IN_MOVE_SELF);
}

int dp_events_open(struct dp_server *s)
{
	struct nl_sock *sk;

	s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->inotify_fd < 0 || watch_dir(s) < 0)
		rn_warn("device plugin: inotify on %s: %s (a kubelet restart is noticed by the "
			"periodic check only)", s->plugin_dir, strerror(errno));
	sk = nl_socket_alloc();
	if (!sk)
		return -1;
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, link_event, s);
	if (nl_connect(sk, NETLINK_ROUTE) || nl_socket_add_membership(sk, RTNLGRP_LINK) ||
	    nl_socket_set_nonblocking(sk)) {
		rn_warn("device plugin: no rtnetlink link events: health follows the periodic "
			"update only");
		nl_socket_free(sk);
		return 0;
	}
	s->nl_sock = sk;
	return 0;
}

#define HOLD_WATCH_RETRY_S 2.0

static const struct rn_sriov_config *vf_config(const struct dp_server *s)
{
	for (int i = 0; i < s->n_res; i++)
		if (s->res[i].rc.sriov)
			return s->res[i].rc.sriov;
	return NULL;
}

void dp_events_watch_holds(struct dp_server *s, double now)
{
	const struct rn_sriov_config *sc = vf_config(s);
	char dir[PATH_MAX];

	if (!sc || s->inotify_fd < 0 || s->hold_wd >= 0 || now < s->hold_watch_at)
		return;
	s->hold_watch_at = now + HOLD_WATCH_RETRY_S;
	if (rn_sriov_hold_dir(sc->state_dir, dir, sizeof(dir)))
		return;
	s->hold_wd = inotify_add_watch(s->inotify_fd, dir,
				       IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
				       IN_DELETE_SELF | IN_MOVE_SELF);
	if (s->hold_wd >= 0) {
		rn_debug("device plugin: watching VF holds in %s", dir);
		dp_schedule_reload(s);	/* holds made while it was not watched */
	}
}

static bool is_hold(const struct inotify_event *ev)
{
	size_t n = ev->len ? strlen(ev->name) : 0;

	return n > 5 && !strcmp(ev->name + n - 5, ".json");
}

static struct dp_res *res_by_sock(struct dp_server *s, const char *name)
{
	for (int i = 0; i < s->n_res; i++)
		if (!strcmp(s->res[i].sock_name, name))
			return &s->res[i];
	return NULL;
}

/* Whether the socket r serves is still at its path: then a deletion event
 * for that name was of an older file (the one an unclean exit left, which
 * gRPC unlinks before it binds), not kubelet deleting ours. */
static bool own_socket_there(const struct dp_res *r)
{
	struct stat st;

	return r->ep.sock_ino && stat(r->ep.path, &st) == 0 && st.st_ino == r->ep.sock_ino &&
	       st.st_dev == r->ep.sock_dev;
}

static void inotify_poll(struct dp_server *s)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *kubelet = strrchr(s->kubelet_sock, '/') + 1;
	ssize_t n;

	while ((n = read(s->inotify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *ev = (struct inotify_event *)p;
			struct dp_res *r = ev->len ? res_by_sock(s, ev->name) : NULL;

			p += sizeof(*ev) + ev->len;
			if (ev->wd == s->hold_wd) {
				if (ev->mask & IN_IGNORED)	/* the directory went away */
					s->hold_wd = -1;
				if (is_hold(ev) || (ev->mask & IN_IGNORED))
					dp_schedule_reload(s);
				continue;
			}
			if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
				rn_warn("device plugin: %s went away; serving again when it is "
					"back", s->plugin_dir);
				for (int i = 0; i < s->n_res; i++)
					dp_unserve(&s->res[i]);
				continue;
			}
			if (r && (ev->mask & (IN_DELETE | IN_MOVED_FROM)) &&
			    r->ep.state == RN_GRPC_SRV_UP && own_socket_there(r)) {
				rn_debug("device plugin %s: an older %s was removed; ours is there",
					 r->view.resource, r->ep.path);
			} else if (r && (ev->mask & (IN_DELETE | IN_MOVED_FROM)) &&
				   r->ep.state == RN_GRPC_SRV_UP) {
				rn_info("device plugin %s: %s was deleted (kubelet restart?): serving "
					"and registering again", r->view.resource, r->ep.path);
				dp_unserve(r);	/* the loop serves it again once shut down */
			}
			if (!s->watcher && ev->len && !strcmp(ev->name, kubelet) &&
			    (ev->mask & (IN_CREATE | IN_MOVED_TO)))
				for (int i = 0; i < s->n_res; i++)
					if (s->res[i].reg == DP_REG_WAIT)
						s->res[i].reg_retry_at = dp_now();
		}
	}
}

void dp_events_poll(struct dp_server *s)
{
	if (s->inotify_fd >= 0)
		inotify_poll(s);
	if (s->nl_sock)
		while (nl_recvmsgs_default(s->nl_sock) >= 0)
			;
}

/* a directory that was gone is watched again once it is back */
int dp_events_rewatch(struct dp_server *s)
{
	return s->inotify_fd >= 0 ? watch_dir(s) : -1;
}

void dp_events_close(struct dp_server *s)
{
	if (s->inotify_fd >= 0)
		close(s->inotify_fd);
	s->inotify_fd = -1;
	if (s->nl_sock)
		nl_socket_free(s->nl_sock);
	s->nl_sock = NULL;
}
