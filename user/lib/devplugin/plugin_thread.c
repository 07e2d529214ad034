// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The device plugin's thread: one loop over one gRPC completion queue,
 * waking at least every 100 ms to read its events (socket deletions, link
 * changes) and do what is due (serve, register, reload the RDMA model).
 * It shares nothing with the agent's loop but the stop flag, so a stuck
 * kubelet never delays the data-path reconciliation or the textfile. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grpc/support/time.h>

#include "devplugin/grpc_internal.h"
#include "log.h"
#include "mem_trim.h"
#include "rdma/rdma.h"

#define TICK_MS 100
#define SERVE_RETRY_S 2.0
#define SETTLE_S 60.0

void dp_schedule_reload(struct dp_server *s)
{
	double now = dp_now();

	/* now, and again while the RoCE port state catches up with the
	 * netdev (rxe and mlx5 update it after the link event) */
	s->reload_at[0] = now;
	s->reload_at[1] = now + 0.3;
	s->reload_at[2] = now + 1.0;
	s->reload_at[3] = now + 3.0;
}

static void log_health(const struct rn_dp_view *old, const struct rn_dp_view *now)
{
	for (int i = 0; i < now->n_hcas; i++) {
		const struct rn_dp_hca *h = &now->hcas[i];
		const struct rn_dp_hca *was = NULL;

		for (int j = 0; j < old->n_hcas; j++)
			if (!strcmp(old->hcas[j].name, h->name))
				was = &old->hcas[j];
		if (was && was->healthy == h->healthy)
			continue;
		if (h->healthy)
			rn_info("device plugin %s: %s healthy", now->resource, h->name);
		else
			rn_warn("device plugin %s: %s unhealthy: %s", now->resource, h->name, h->why);
	}
	for (int i = 0; i < now->n_vfs; i++) {
		const struct rn_dp_hca *vf = &now->vfs[i];
		const struct rn_dp_hca *was = NULL;

		for (int j = 0; j < old->n_vfs; j++)
			if (!strcmp(old->vfs[j].pci, vf->pci))
				was = &old->vfs[j];
		if (was ? was->healthy == vf->healthy && !strcmp(was->why, vf->why) : vf->healthy)
			continue;
		if (vf->healthy)
			rn_info("device plugin %s: VF %s healthy", now->resource, vf->pci);
		else
			rn_info("device plugin %s: VF %s unhealthy: %s", now->resource, vf->pci,
				vf->why);
	}
	if (now->refused && !old->refused)
		rn_warn("device plugin %s: %s", now->resource, now->refused_why);
}

void dp_reload(struct dp_server *s)
{
	struct rn_rdma_model m = { 0 };
	struct rn_error e = { 0 };
	/* the first model: the spec on disk may be an earlier run's */
	bool changed = !s->have_model;

	/* sysfs is enough for what kubelet hears (port state, netdev,
	 * chardevs, PCI) and is cheap; verbs would open every device */
	if (rn_rdma_model_load(&m, &s->roots, RN_RDMA_SRC_SYSFS, &e)) {
		rn_warn("device plugin: RDMA model: %s (keeping the last one)", e.msg);
		rn_rdma_model_free(&m);
		return;
	}
	for (int i = 0; i < s->n_res; i++) {
		struct dp_res *r = &s->res[i];
		struct rn_dp_view v;
		bool push;

		if (r->unservable)
			continue;
		if (rn_dp_view_build(&r->rc, &m, &v, &e)) {
			rn_warn("device plugin %s: %s", r->view.resource, e.msg);
			continue;
		}
		log_health(&r->view, &v);
		/* the new view always replaces the old (Allocate and CDI need the
		 * HCAs as they are now); kubelet hears only what it would see */
		push = !s->have_model || rn_dp_view_differs(&r->view, &v);
		changed |= memcmp(r->view.hcas, v.hcas, sizeof(v.hcas)) != 0;
		rn_dp_view_free(&r->view);
		r->view = v;
		if (push)
			dp_list_and_watch_push(r);
	}
	if (s->have_model)
		rn_rdma_model_free(&s->model);
	s->model = m;
	s->have_model = true;
	if (changed && s->cfg.cdi) {
		struct rn_dp_view *views = calloc((size_t)s->n_res, sizeof(*views));

		if (views) {
			for (int i = 0; i < s->n_res; i++)
				views[i] = s->res[i].view;	/* shallow: only read */
			if (rn_dp_cdi_write(s->cfg.cdi_dir, views, s->n_res, &s->model, &e))
				rn_warn("device plugin: CDI: %s", e.msg);
			free(views);
		}
	}
}

static bool due(double *at, double now)
{
	if (*at <= 0 || *at > now)
		return false;
	*at = 0;
	return true;
}

/* Once every resource is served and registered (or SETTLE_S after the
 * thread started, kubelet or not), start-up is over: what it faulted in
 * and no longer uses goes (loading gRPC and its C++ libraries, their
 * constructors, the first servers and channels). */
static void settle(struct dp_server *s, double now)
{
	for (int i = 0; i < s->n_res && now < s->settle_by; i++) {
		const struct dp_res *r = &s->res[i];

		if (!r->unservable && (r->ep.state != RN_GRPC_SRV_UP ||
				       (!s->watcher && r->reg != DP_REG_DONE)))
			return;
	}
	s->settled = true;
	rn_mem_trim();
}

static void housekeeping(struct dp_server *s)
{
	double now = dp_now();
	bool reload = false;

	dp_events_poll(s);
	dp_events_watch_holds(s, now);
	for (int i = 0; i < 4; i++)
		reload |= due(&s->reload_at[i], now);
	if (s->cfg.periodic_s > 0 && now >= s->periodic_at) {
		s->periodic_at = now + s->cfg.periodic_s;
		reload = true;
	}
	if (reload)
		dp_reload(s);
	for (int i = 0; i < s->n_res; i++) {
		struct dp_res *r = &s->res[i];

		if (r->unservable)
			continue;
		if (r->ep.state == RN_GRPC_SRV_DOWN && now >= r->serve_retry_at) {
			if (!rn_sysfs_exists("%s", s->plugin_dir)) {
				if (r->served || !r->serve_retry_at)
					rn_warn("device plugin %s: %s does not exist (kubelet not "
						"running?); waiting for it", r->view.resource,
						s->plugin_dir);
				r->serve_retry_at = now + SERVE_RETRY_S;
				continue;
			}
			if (dp_serve(r)) {
				r->serve_retry_at = now + SERVE_RETRY_S;
				continue;
			}
			dp_events_rewatch(s);
		}
		if (s->watcher || r->ep.state != RN_GRPC_SRV_UP)
			continue;
		if (r->reg == DP_REG_IDLE || (r->reg == DP_REG_WAIT && now >= r->reg_retry_at))
			dp_register_start(r);
	}
	if (!s->settled)
		settle(s, now);
	dp_health_publish(s);
}

static void run_event(grpc_event ev)
{
	if (ev.type == GRPC_OP_COMPLETE)
		((struct rn_grpc_tag *)ev.tag)->done(ev.tag, ev.success);
}

static void shutdown_all(struct dp_server *s)
{
	grpc_event ev;

	for (int i = 0; i < s->n_res; i++) {
		dp_unserve(&s->res[i]);
		dp_register_cancel(&s->res[i]);
	}
	/* every server's shutdown and every Register completes before the
	 * queue may shut down; nothing new starts once stop is set */
	for (;;) {
		bool busy = s->pending_shutdowns > 0;

		for (int i = 0; i < s->n_res; i++)
			busy |= s->res[i].reg == DP_REG_PENDING;
		if (!busy)
			break;
		ev = grpc_completion_queue_next(s->cq, rn_grpc_deadline_ms(1000), NULL);
		run_event(ev);
	}
	grpc_completion_queue_shutdown(s->cq);
	do {
		ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		run_event(ev);
	} while (ev.type != GRPC_QUEUE_SHUTDOWN);
	grpc_completion_queue_destroy(s->cq);
	s->cq = NULL;
}

static void *thread_main(void *arg)
{
	struct dp_server *s = arg;

	dp_reload(s);
	s->settle_by = dp_now() + SETTLE_S;
	s->periodic_at = dp_now() + (s->cfg.periodic_s > 0 ? s->cfg.periodic_s : 0);
	while (!atomic_load(&s->stop)) {
		housekeeping(s);
		run_event(grpc_completion_queue_next(s->cq, rn_grpc_deadline_ms(TICK_MS), NULL));
	}
	shutdown_all(s);
	return NULL;
}

/* A resource that cannot be served (rn_dp_resource_servable) is logged and
 * left out; the others are served. */
static void res_init(struct dp_server *s, struct dp_res *r, int i)
{
	const struct rn_dp_resource_config *rc = &s->cfg.res[i];
	struct rn_error e = { 0 };

	memset(r, 0, sizeof(*r));
	r->srv = s;
	r->rc = *rc;
	r->reg_details = grpc_empty_slice();
	rn_dp_resource_fullname(rc, r->view.resource, sizeof(r->view.resource));
	snprintf(r->what, sizeof(r->what), "device plugin %s", r->view.resource);
	if (rn_dp_resource_servable(&s->cfg, i, &e)) {
		r->unservable = true;
		rn_err("%s; not served (the other resources are)", e.msg);
		return;
	}
	rn_dp_socket_name(rc, r->sock_name, sizeof(r->sock_name));
	rn_dp_socket_path(&s->cfg, rc, s->watcher, r->ep.path, sizeof(r->ep.path));
}

struct rn_dp_server *rn_dp_start(const struct rn_config *c, struct rn_error *e)
{
	struct dp_server *s = calloc(1, sizeof(*s));
	char reg_dir[PATH_MAX];
	sigset_t all, old;
	int err;

	if (!s)
		return rn_fail(e, -ENOMEM, "device plugin: out of memory"), NULL;
	s->inotify_fd = -1;
	s->hold_wd = -1;
	/* in place: the VF resources point at s->cfg.sriov */
	if (rn_dp_config_build(c, &s->cfg, e) || rn_grpc_load(e))
		goto fail;
	if (!s->cfg.n_res) {
		rn_fail(e, -ENOENT, "device plugin: no resources configured");
		goto fail;
	}
	rn_rdma_config_roots(c, &s->roots);
	snprintf(reg_dir, sizeof(reg_dir), "%s/plugins_registry", s->cfg.kubelet_dir);
	s->watcher = rn_sysfs_exists("%s", reg_dir);
	snprintf(s->plugin_dir, sizeof(s->plugin_dir), "%s/%s", s->cfg.kubelet_dir,
		 s->watcher ? "plugins_registry" : "device-plugins");
	if (snprintf(s->kubelet_sock, sizeof(s->kubelet_sock), "%s/device-plugins/kubelet.sock",
		     s->cfg.kubelet_dir) >= (int)sizeof(s->kubelet_sock)) {
		rn_fail(e, -ENAMETOOLONG, "device plugin: %s/device-plugins/kubelet.sock is longer "
			"than a unix socket allows", s->cfg.kubelet_dir);
		goto fail;
	}
	s->res = calloc((size_t)s->cfg.n_res, sizeof(*s->res));
	if (!s->res) {
		rn_fail(e, -ENOMEM, "device plugin: out of memory");
		goto fail;
	}
	s->n_res = s->cfg.n_res;
	for (int i = 0; i < s->n_res; i++)
		res_init(s, &s->res[i], i);
	/* this thread and gRPC's own ones (started by grpc_init) block every
	 * signal: SIGTERM must reach the agent's main thread, whose sleep it
	 * interrupts */
	/* gRPC's threads would each get a malloc arena (64 MiB reserved,
	 * whatever they touched kept): with 8 resources that was 6 MiB of
	 * resident heap after a few thousand calls. Two arenas serve them. */
	mallopt(M_ARENA_MAX, 2);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	grpc_init();
	s->cq = grpc_completion_queue_create_for_next(NULL);
	/* loading gRPC relocated it and its C++ libraries (reading their
	 * symbol tables) and ran their constructors: pages not needed again.
	 * Given back before the plugin thread's servers and channels add
	 * theirs, they do not add up to the peak; settle() trims again. */
	rn_mem_trim();
	dp_events_open(s);
	err = pthread_create(&s->thread, NULL, thread_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		rn_fail(e, -err, "device plugin: cannot start its thread");
		dp_events_close(s);
		grpc_completion_queue_shutdown(s->cq);
		grpc_completion_queue_destroy(s->cq);
		grpc_shutdown();
		goto fail;
	}
	rn_info("device plugin: %d resource(s), %s registration through %s", s->n_res,
		s->watcher ? "plugin-watcher" : "kubelet.sock",
		s->watcher ? s->plugin_dir : s->kubelet_sock);
	return (struct rn_dp_server *)s;
fail:
	rn_dp_config_free(&s->cfg);
	free(s->res);
	free(s);
	return NULL;
}

bool rn_dp_server_stale(const struct rn_dp_server *srv, const struct rn_config *c)
{
	const struct dp_server *s = (const struct dp_server *)srv;
	struct rn_dp_config *dc = malloc(sizeof(*dc));	/* ~400 KiB: not on a stack */
	bool stale = true;

	/* s->cfg is written before the plugin thread starts, only read after:
	 * reading it here races nothing */
	if (dc && !rn_dp_config_build(c, dc, NULL)) {
		stale = !rn_dp_config_same(&s->cfg, dc);
		rn_dp_config_free(dc);
	}
	free(dc);
	return stale;
}

void rn_dp_stop(struct rn_dp_server *srv)
{
	struct dp_server *s = (struct dp_server *)srv;

	if (!s)
		return;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	dp_events_close(s);
	for (int i = 0; i < s->n_res; i++)
		rn_dp_view_free(&s->res[i].view);
	if (s->have_model)
		rn_rdma_model_free(&s->model);
	rn_dp_config_free(&s->cfg);
	free(s->res);
	free(s);
	grpc_shutdown();
}
