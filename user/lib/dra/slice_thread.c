// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The ResourceSlice publisher's thread (slices.h). It runs beside the
 * kubelet-facing gRPC thread, never in it: a slow API server must not
 * hold up NodePrepareResources. It rebuilds the slices every second, and
 * at once on an rtnetlink link event: a RoCE port's state follows its
 * netdev's carrier, and the device plugin's health reacts to the same
 * events (devplugin/events.c), so a port going down is published in about
 * the time the API server takes, not up to a second later. After each
 * rebuild it writes the claims' networkData (claim_status.h) with the
 * same client. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <linux/rtnetlink.h>

#include "dra/claim_status.h"
#include "dra/internal.h"
#include "dra/slices.h"
#include "log.h"
#include "mem_trim.h"
#include "monotonic.h"

#define SLICER_RETRY_S 5
#define SLICER_SETTLE_MS 20	/* after a link event: the port's state follows */

struct rn_dra_slicer {
	pthread_t thread;
	atomic_bool stop, kicked;
	struct rn_dra_config cfg;
	struct rn_kube *kube;
	struct dra_claim_status *status;	/* the claims' networkData (claim_status.h) */
	json_t *last;			/* the slices last published */
	time_t next_publish;		/* resync or retry */
	int last_err;			/* logged already: -errno, 0 none */
	/* for rn_dra_slicer_health: the last success, the last attempt's error */
	pthread_mutex_t lock;
	int slices, devices;
	long long ok_ms;		/* monotonic; 0 none yet */
	char error[RN_DRA_ERROR_LEN];
	bool trimmed;			/* start-up pages given back (rn_mem_trim) */
};

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* the slices the node's devices make now, NULL with e set */
static json_t *build_now(struct rn_dra_slicer *s, struct rn_error *e)
{
	struct rn_dra_slice_input in = {
		.driver = s->cfg.driver, .pool = s->cfg.pool, .node = s->cfg.node, .generation = 0,
		.shared_pods = s->cfg.slices.shared_pods, .roots = &s->cfg.roots,
	};
	struct rn_rdma_model m = { 0 };
	struct rn_dra_device *devs = NULL;
	json_t *slices = NULL;
	int n = 0;

	in.model = &m;
	if (!rn_rdma_model_load(&m, &s->cfg.roots, RN_RDMA_SRC_SYSFS, e) &&
	    !rn_dra_devices(&m, &devs, &n, e))
		slices = rn_dra_slices_build(&in, devs, n, e);
	free(devs);
	rn_rdma_model_free(&m);
	return slices;
}

/* the publication's outcome, for the health file: e NULL on success */
static void outcome(struct rn_dra_slicer *s, json_t *slices, const struct rn_error *e)
{
	size_t i;
	json_t *sl;
	int devices = 0;

	dra_count(e ? DRA_PUBLISH_FAILED : DRA_PUBLISH_OK);
	if (!e)
		json_array_foreach(slices, i, sl)
			devices += (int)json_array_size(json_object_get(
				json_object_get(sl, "spec"), "devices"));
	pthread_mutex_lock(&s->lock);
	if (e) {
		snprintf(s->error, sizeof(s->error), "%.*s", (int)sizeof(s->error) - 1,
			 e->msg[0] ? e->msg : "failed");
	} else {
		s->error[0] = 0;
		s->slices = (int)json_array_size(slices);
		s->devices = devices;
		s->ok_ms = rn_monotonic_ms();
	}
	pthread_mutex_unlock(&s->lock);
}

static int kube_open(struct rn_dra_slicer *s, struct rn_error *e)
{
	if (!s->kube &&
	    rn_kube_open(&s->kube, s->cfg.slices.kubeconfig[0] ? s->cfg.slices.kubeconfig : NULL, NULL, e))
		return e->code;
	return 0;
}

static int publish(struct rn_dra_slicer *s, json_t *slices, struct rn_error *e)
{
	struct rn_dra_publish_stats st;
	int err;

	if (kube_open(s, e))
		return e->code;
	err = rn_dra_slices_publish(s->kube, s->cfg.driver, s->cfg.node, slices, &st, e);
	if (!err && (st.created || st.updated || st.deleted))
		rn_info("DRA driver %s: ResourceSlices of pool %s: %d created, %d updated, %d deleted",
			s->cfg.driver, s->cfg.pool, st.created, st.updated, st.deleted);
	return err;
}

static void tick(struct rn_dra_slicer *s)
{
	struct rn_error e = { 0 };
	bool due = atomic_exchange(&s->kicked, false) || now_s() >= s->next_publish;
	json_t *slices = build_now(s, &e), *built;

	if (slices && !due && s->last && json_equal(slices, s->last)) {
		json_decref(slices);
		return;
	}
	/* the publication sets the pool's generation in what it sends: keep
	 * the slices as built to compare the next ones with */
	built = slices ? json_deep_copy(slices) : NULL;
	if (built && !publish(s, slices, &e)) {
		outcome(s, built, NULL);
		json_decref(s->last);
		s->last = built;
		s->next_publish = now_s() + s->cfg.slices.resync_s;
		if (s->last_err)
			rn_info("DRA driver %s: ResourceSlices published again", s->cfg.driver);
		s->last_err = 0;
		json_decref(slices);
		/* the first publication loaded libcurl and OpenSSL and made
		 * a TLS session: their relocation and start-up pages are not
		 * needed again (as the device plugin does once settled) */
		if (!s->trimmed) {
			s->trimmed = true;
			rn_mem_trim();
		}
		return;
	}
	outcome(s, NULL, &e);
	json_decref(built);
	json_decref(slices);
	s->next_publish = now_s() + SLICER_RETRY_S;
	/* once per kind of failure: the message itself changes (curl
	 * names the milliseconds a connect took) */
	if (e.code != s->last_err || !e.code) {
		rn_warn("DRA driver %s: ResourceSlices not published (again every %d s): %s",
			s->cfg.driver, SLICER_RETRY_S, e.msg);
		s->last_err = e.code;
	}
}

/* rtnetlink link events (the only group joined: whatever arrives is one),
 * or NULL: then the per-second rebuild only */
static struct nl_sock *link_events_open(void)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return NULL;
	nl_socket_disable_seq_check(sk);
	if (nl_connect(sk, NETLINK_ROUTE) || nl_socket_add_membership(sk, RTNLGRP_LINK) ||
	    nl_socket_set_nonblocking(sk)) {
		rn_warn("DRA slices: no rtnetlink link events: a port's state is published "
			"within a second only");
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

static void drain(struct nl_sock *sk)
{
	while (nl_recvmsgs_default(sk) >= 0)
		;
}

/* Until the next rebuild: a second, a kick, a link event (or events lost
 * to a full socket buffer, as good as one), or stop. */
static void wait_next(struct rn_dra_slicer *s, struct nl_sock *sk)
{
	struct pollfd p = { .fd = sk ? nl_socket_get_fd(sk) : -1, .events = POLLIN };

	for (int i = 0; i < 10 && !atomic_load(&s->stop) && !atomic_load(&s->kicked); i++) {
		if (poll(&p, 1, 100) <= 0 || !(p.revents & (POLLIN | POLLERR)))
			continue;
		drain(sk);
		usleep(SLICER_SETTLE_MS * 1000);
		drain(sk);			/* the burst's rest */
		return;
	}
}

static void *thread_main(void *arg)
{
	struct rn_dra_slicer *s = arg;
	struct nl_sock *sk = link_events_open();

	while (!atomic_load(&s->stop)) {
		struct rn_error e = { 0 };

		tick(s);
		/* the client's failure to open is the slices' to log */
		dra_claim_status_sync(s->status, kube_open(s, &e) ? NULL : s->kube);
		wait_next(s, sk);
	}
	nl_socket_free(sk);
	return NULL;
}

struct rn_dra_slicer *rn_dra_slicer_start(const struct rn_dra_config *cfg, struct rn_error *e)
{
	struct rn_dra_slicer *s = calloc(1, sizeof(*s));
	int err;

	if (!s)
		return rn_fail(e, -ENOMEM, "DRA slices: out of memory"), NULL;
	s->cfg = *cfg;
	s->status = dra_claim_status_open(cfg);
	if (!s->status) {
		free(s);
		return rn_fail(e, -ENOMEM, "DRA slices: out of memory"), NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	err = pthread_create(&s->thread, NULL, thread_main, s);
	if (err) {
		pthread_mutex_destroy(&s->lock);
		dra_claim_status_close(s->status);
		free(s);
		return rn_fail(e, -err, "DRA slices: cannot start the publisher's thread"), NULL;
	}
	return s;
}

void rn_dra_slicer_kick(struct rn_dra_slicer *s)
{
	if (s)
		atomic_store(&s->kicked, true);
}

void rn_dra_slicer_health(struct rn_dra_slicer *s, struct rn_dra_slices_health *h)
{
	memset(h, 0, sizeof(*h));
	h->publishes = dra_counted(DRA_PUBLISH_OK);
	h->failures = dra_counted(DRA_PUBLISH_FAILED);
	h->since_ok_s = -1;
	if (!s)
		return;
	h->enabled = true;
	pthread_mutex_lock(&s->lock);
	h->slices = s->slices;
	h->devices = s->devices;
	if (s->ok_ms)
		h->since_ok_s = (rn_monotonic_ms() - s->ok_ms) / 1000;
	snprintf(h->last_error, sizeof(h->last_error), "%s", s->error);
	pthread_mutex_unlock(&s->lock);
}

void rn_dra_slicer_stop(struct rn_dra_slicer *s)
{
	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	rn_kube_close(s->kube);
	dra_claim_status_close(s->status);
	json_decref(s->last);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
