// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The DRA driver's thread: kubelet's Registration service on
 * <registry_dir>/<driver>-reg.sock and the DRAPlugin service (v1 and
 * v1beta1, whose messages are the same field for field) on
 * <plugin_dir>/dra.sock, both through a gRPC endpoint (grpcrt/grpcrt.h)
 * on one completion queue. Every claim of a request gets an answer, an
 * error in it when it could not be done: a claim left out, or a gRPC
 * error, makes kubelet retry the whole call. A socket that disappears
 * (kubelet cleaning its directories at start) is served again at the next
 * tick. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grpcrt/grpcrt.h"
#include "dra/dra_v1.pb-c.h"
#include "dra/internal.h"
#include "dra/slices.h"
#include "log.h"
#include "mem_trim.h"
#include "mkdir_p.h"
#include "pluginreg/pluginreg.h"

#define TICK_MS 1000
#define V1 "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/"
#define V1BETA1 "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/"

typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesRequest PrepareReq;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesResponse PrepareResp;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesResponse__ClaimsEntry PrepareEntry;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourceResponse PrepareOne;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Device PbDevice;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesRequest UnprepareReq;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesResponse UnprepareResp;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesResponse__ClaimsEntry UnprepareEntry;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourceResponse UnprepareOne;

struct rn_dra_server {
	pthread_t thread;
	atomic_bool stop;
	grpc_completion_queue *cq;
	struct rn_dra_config cfg;
	struct rn_dra_driver *drv;
	struct rn_grpc_endpoint reg, plugin;
	char reg_what[RN_DRA_DRIVER_LEN + 32], plugin_what[RN_DRA_DRIVER_LEN + 32];
	int pending_shutdowns;
	unsigned long long registrations;
	struct rn_dra_slicer *slicer;	/* NULL: slices not published */
	struct dra_live live;		/* for the health file (health.c) */
};

/* the one this process runs (rn_metrics_dra) */
static struct rn_dra_server *agent_server;

/* --- Registration ---------------------------------------------------------- */

/* kubelet's verdict on the driver's registration */
static void registered(void *ctx, bool ok, const char *error)
{
	struct rn_dra_server *s = ctx;

	atomic_store(&s->live.registered, ok);
	if (ok) {
		s->registrations++;
		rn_info("DRA driver %s: registered with kubelet", s->cfg.driver);
		/* served and registered: what setting up the two servers
		 * touched is given back once (the device plugin's settle) */
		if (s->registrations == 1)
			rn_mem_trim();
		/* a kubelet that starts deletes the node's slices, then
		 * registers the drivers it finds: publish them again now */
		rn_dra_slicer_kick(s->slicer);
	} else {
		rn_err("DRA driver %s: kubelet refused the registration: %s", s->cfg.driver,
		       error[0] ? error : "(no reason given)");
	}
}

static grpc_status_code reg_unary(void *ctx, const char *method, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, char *err, size_t esz)
{
	static const char *const versions[] = { RN_DRA_SERVICE_V1, RN_DRA_SERVICE_V1BETA1 };
	struct rn_dra_server *s = ctx;
	const struct rn_pluginreg reg = {
		.type = "DRAPlugin", .name = s->cfg.driver, .endpoint = s->plugin.path,
		.versions = versions, .n_versions = 2, .on_status = registered, .ctx = s,
	};

	return rn_pluginreg_unary(&reg, method, req, resp, err, esz);
}

/* --- DRAPlugin ------------------------------------------------------------- */

struct prepare_mem {
	struct rn_dra_prepared p;
	PrepareEntry entry;
	PrepareOne one;
	PbDevice dev[RN_DRA_MAX_RESULTS];
	PbDevice *devp[RN_DRA_MAX_RESULTS];
	char *req_names[RN_DRA_MAX_RESULTS][1];
	char req_base[RN_DRA_MAX_RESULTS][RN_DRA_NAME_LEN * 2];	/* without "/<subrequest>" */
	char *cdi[RN_DRA_MAX_RESULTS][1];
	char error[512];
};

static void prepare_answer(struct prepare_mem *m, bool ok)
{
	k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resources_response__claims_entry__init(
		&m->entry);
	k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resource_response__init(&m->one);
	m->entry.key = m->p.uid;
	m->entry.value = &m->one;
	if (!ok) {
		m->one.error = m->error;
		return;
	}
	for (int i = 0; i < m->p.n_devices; i++) {
		PbDevice *d = &m->dev[i];

		k8s__io__kubelet__pkg__apis__dra__v1__device__init(d);
		/* the request's own name: kubelet matches it with the
		 * containers' resources.claims[].request */
		snprintf(m->req_base[i], sizeof(m->req_base[i]), "%.*s",
			 (int)strcspn(m->p.devices[i].request, "/"), m->p.devices[i].request);
		m->req_names[i][0] = m->req_base[i];
		m->cdi[i][0] = m->p.devices[i].cdi_id;
		d->n_request_names = 1;
		d->request_names = m->req_names[i];
		d->pool_name = m->p.devices[i].pool;
		d->device_name = m->p.devices[i].device;
		d->n_cdi_device_ids = 1;
		d->cdi_device_ids = m->cdi[i];
		m->devp[i] = d;
	}
	m->one.n_devices = (size_t)m->p.n_devices;
	m->one.devices = m->devp;
}

static grpc_status_code prepare(struct rn_dra_server *s, grpc_byte_buffer *req,
				grpc_byte_buffer **resp, char *err, size_t esz)
{
	PrepareReq *q = (PrepareReq *)rn_grpc_pb_unpack(
		&k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resources_request__descriptor, req);
	PrepareResp out = K8S__IO__KUBELET__PKG__APIS__DRA__V1__NODE_PREPARE_RESOURCES_RESPONSE__INIT;
	struct prepare_mem *mem;
	PrepareEntry **entries;
	size_t n;

	if (!q) {
		snprintf(err, esz, "NodePrepareResources: undecodable request");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	n = q->n_claims;
	mem = calloc(n + 1, sizeof(*mem));
	entries = calloc(n + 1, sizeof(*entries));
	if (!mem || !entries) {
		free(mem);
		free(entries);
		protobuf_c_message_free_unpacked(&q->base, NULL);
		snprintf(err, esz, "out of memory");
		return GRPC_STATUS_RESOURCE_EXHAUSTED;
	}
	for (size_t i = 0; i < n; i++) {
		const K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Claim *c = q->claims[i];
		struct rn_error e = { 0 };
		int rc = rn_dra_prepare(s->drv, c->namespace_, c->name, c->uid, &mem[i].p, &e);

		if (rc) {
			snprintf(mem[i].p.uid, sizeof(mem[i].p.uid), "%.63s", c->uid);
			snprintf(mem[i].error, sizeof(mem[i].error), "%s", e.msg);
			rn_warn("DRA driver %s: %s", s->cfg.driver, e.msg);
		}
		dra_count(rc ? DRA_PREPARE_FAILED : DRA_PREPARE_OK);
		prepare_answer(&mem[i], !rc);
		entries[i] = &mem[i].entry;
	}
	atomic_store(&s->live.prepared, rn_dra_prepared_count(s->drv));
	out.n_claims = n;
	out.claims = entries;
	*resp = rn_grpc_pb_pack(&out.base);
	free(mem);
	free(entries);
	protobuf_c_message_free_unpacked(&q->base, NULL);
	return GRPC_STATUS_OK;
}

static grpc_status_code unprepare(struct rn_dra_server *s, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, char *err, size_t esz)
{
	UnprepareReq *q = (UnprepareReq *)rn_grpc_pb_unpack(
		&k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resources_request__descriptor,
		req);
	UnprepareResp out =
		K8S__IO__KUBELET__PKG__APIS__DRA__V1__NODE_UNPREPARE_RESOURCES_RESPONSE__INIT;
	UnprepareEntry *ent, **entp;
	UnprepareOne *one;
	char (*msgs)[512];
	size_t n;

	if (!q) {
		snprintf(err, esz, "NodeUnprepareResources: undecodable request");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	n = q->n_claims;
	ent = calloc(n + 1, sizeof(*ent));
	entp = calloc(n + 1, sizeof(*entp));
	one = calloc(n + 1, sizeof(*one));
	msgs = calloc(n + 1, sizeof(*msgs));
	if (!ent || !entp || !one || !msgs) {
		free(ent);
		free(entp);
		free(one);
		free(msgs);
		protobuf_c_message_free_unpacked(&q->base, NULL);
		snprintf(err, esz, "out of memory");
		return GRPC_STATUS_RESOURCE_EXHAUSTED;
	}
	for (size_t i = 0; i < n; i++) {
		struct rn_error e = { 0 };

		k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resources_response__claims_entry__init(
			&ent[i]);
		k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resource_response__init(&one[i]);
		ent[i].key = q->claims[i]->uid;
		ent[i].value = &one[i];
		if (rn_dra_unprepare(s->drv, q->claims[i]->uid, &e)) {
			snprintf(msgs[i], sizeof(msgs[i]), "%s", e.msg);
			one[i].error = msgs[i];
			rn_warn("DRA driver %s: claim %s/%s: %s", s->cfg.driver,
				q->claims[i]->namespace_, q->claims[i]->name, e.msg);
			dra_count(DRA_UNPREPARE_FAILED);
		} else {
			dra_count(DRA_UNPREPARE_OK);
		}
		entp[i] = &ent[i];
	}
	atomic_store(&s->live.prepared, rn_dra_prepared_count(s->drv));
	out.n_claims = n;
	out.claims = entp;
	*resp = rn_grpc_pb_pack(&out.base);
	free(ent);
	free(entp);
	free(one);
	free(msgs);
	protobuf_c_message_free_unpacked(&q->base, NULL);
	return GRPC_STATUS_OK;
}

static grpc_status_code plugin_unary(void *ctx, const char *method, grpc_byte_buffer *req,
				     grpc_byte_buffer **resp, char *err, size_t esz)
{
	const char *m = NULL;

	*resp = NULL;
	if (!strncmp(method, V1, strlen(V1)))
		m = method + strlen(V1);
	else if (!strncmp(method, V1BETA1, strlen(V1BETA1)))
		m = method + strlen(V1BETA1);
	if (m && !strcmp(m, "NodePrepareResources"))
		return prepare(ctx, req, resp, err, esz);
	if (m && !strcmp(m, "NodeUnprepareResources"))
		return unprepare(ctx, req, resp, err, esz);
	snprintf(err, esz, "unknown method %s", method);
	return GRPC_STATUS_UNIMPLEMENTED;
}

static const struct rn_grpc_service registration_service = { .unary = reg_unary };
static const struct rn_grpc_service dra_plugin_service = { .unary = plugin_unary };

/* --- the thread -------------------------------------------------------------- */

/* ours: the file at the path is the socket this server bound */
static bool still_there(const struct rn_grpc_endpoint *ep)
{
	struct stat st;

	return stat(ep->path, &st) == 0 && st.st_ino == ep->sock_ino && st.st_dev == ep->sock_dev;
}

static void keep_served(struct rn_dra_server *s, struct rn_grpc_endpoint *ep, const char *dir)
{
	if (ep->state == RN_GRPC_SRV_UP && !still_there(ep)) {
		rn_warn("%s: %s was removed; serving it again", ep->what, ep->path);
		/* kubelet forgets a plugin whose registration socket it
		 * deleted (it does when it starts): registered again only
		 * when it says so again */
		if (ep == &s->reg)
			atomic_store(&s->live.registered, false);
		rn_grpc_endpoint_unserve(ep);
		return;		/* served again once the old server let go */
	}
	if (ep->state != RN_GRPC_SRV_DOWN)
		return;
	/* the plugin dir is ours to make; the registry is kubelet's */
	if (ep == &s->plugin && rn_mkdir_p(dir, 0750))
		return;
	if (access(dir, F_OK))
		return;
	if (!rn_grpc_endpoint_serve(ep))
		rn_info("%s: serving on %s", ep->what, ep->path);
}

static void run_event(grpc_event ev)
{
	if (ev.type == GRPC_OP_COMPLETE)
		((struct rn_grpc_tag *)ev.tag)->done(ev.tag, ev.success);
}

static void *thread_main(void *arg)
{
	struct rn_dra_server *s = arg;
	grpc_event ev;

	while (!atomic_load(&s->stop)) {
		dra_live_beat(&s->live);
		/* the DRAPlugin socket first: GetInfo names it */
		keep_served(s, &s->plugin, s->cfg.plugin_dir);
		if (s->plugin.state == RN_GRPC_SRV_UP)
			keep_served(s, &s->reg, s->cfg.registry_dir);
		run_event(grpc_completion_queue_next(s->cq, rn_grpc_deadline_ms(TICK_MS), NULL));
	}
	/* the registration first: kubelet must not find a socket whose
	 * endpoint is gone */
	rn_grpc_endpoint_unserve(&s->reg);
	rn_grpc_endpoint_unserve(&s->plugin);
	while (s->pending_shutdowns > 0)
		run_event(grpc_completion_queue_next(s->cq, rn_grpc_deadline_ms(1000), NULL));
	grpc_completion_queue_shutdown(s->cq);
	do {
		ev = grpc_completion_queue_next(s->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		run_event(ev);
	} while (ev.type != GRPC_QUEUE_SHUTDOWN);
	grpc_completion_queue_destroy(s->cq);
	s->cq = NULL;
	return NULL;
}

static void endpoint_init(struct rn_dra_server *s, struct rn_grpc_endpoint *ep,
			  const struct rn_grpc_service *svc, char *what, size_t what_size,
			  const char *kind)
{
	snprintf(what, what_size, "DRA driver %s %s", s->cfg.driver, kind);
	ep->svc = svc;
	ep->ctx = s;
	ep->what = what;
	ep->cq = s->cq;
	ep->pending_shutdowns = &s->pending_shutdowns;
}

/* for the log: which API server an empty kubeconfig means (rn_kube_open) */
static const char *kube_default(void)
{
	const char *env = getenv("KUBECONFIG");

	return env && *env ? env : "in-cluster";
}

struct rn_dra_server *rn_dra_start(const struct rn_config *c, struct rn_error *e)
{
	struct rn_dra_server *s = calloc(1, sizeof(*s));
	struct rn_dra_claim_source *src;
	sigset_t all, old;
	int err;

	if (!s)
		return rn_fail(e, -ENOMEM, "DRA: out of memory"), NULL;
	if (rn_dra_config_parse(c, &s->cfg, e))
		goto fail;
	if (!s->cfg.enabled) {
		rn_fail(e, -ENOENT, "DRA: not enabled");
		goto fail;
	}
	src = s->cfg.claims_dir[0] ? rn_dra_claim_source_dir(s->cfg.claims_dir, e)
				   : rn_dra_claim_source_api(s->cfg.kubeconfig, e);
	if (!src || !(s->drv = rn_dra_driver_open(&s->cfg, src, e)) || rn_grpc_load(e))
		goto fail;
	atomic_store(&s->live.prepared, rn_dra_prepared_count(s->drv));
	rn_dra_socket_paths(&s->cfg, s->reg.path, sizeof(s->reg.path), s->plugin.path,
			    sizeof(s->plugin.path));
	/* as the device plugin's: gRPC's threads block every signal, and two
	 * malloc arenas serve them */
	mallopt(M_ARENA_MAX, 2);
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	grpc_init();
	s->cq = grpc_completion_queue_create_for_next(NULL);
	/* loading gRPC relocated it and its C++ libraries and ran their
	 * constructors: pages not needed again (as the device plugin) */
	rn_mem_trim();
	endpoint_init(s, &s->reg, &registration_service, s->reg_what, sizeof(s->reg_what),
		      "registration");
	endpoint_init(s, &s->plugin, &dra_plugin_service, s->plugin_what,
		      sizeof(s->plugin_what), "DRAPlugin");
	/* the publisher first, with every signal blocked too (they are the
	 * main loop's), and before the gRPC thread that kicks it */
	if (s->cfg.slices.publish) {
		struct rn_error se = { 0 };

		s->slicer = rn_dra_slicer_start(&s->cfg, &se);
		if (!s->slicer)
			rn_err("DRA driver %s: %s", s->cfg.driver, se.msg);
	}
	err = pthread_create(&s->thread, NULL, thread_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		rn_dra_slicer_stop(s->slicer);
		rn_fail(e, -err, "DRA: cannot start its thread");
		grpc_completion_queue_shutdown(s->cq);
		grpc_completion_queue_destroy(s->cq);
		grpc_shutdown();
		goto fail;
	}
	rn_info("DRA driver %s: pool %s, %d claim(s) prepared, claims from %s%s%s, ResourceSlices %s",
		s->cfg.driver, s->cfg.pool, rn_dra_prepared_count(s->drv),
		s->cfg.claims_dir[0] ? "the directory " : "the API server (",
		s->cfg.claims_dir[0] ? s->cfg.claims_dir :
		s->cfg.kubeconfig[0] ? s->cfg.kubeconfig : kube_default(),
		s->cfg.claims_dir[0] ? "" : ")",
		s->slicer ? (s->cfg.slices.kubeconfig[0] ? s->cfg.slices.kubeconfig : kube_default()) :
			    "not published");
	agent_server = s;
	return s;
fail:
	rn_dra_driver_close(s->drv);
	free(s);
	return NULL;
}

void rn_dra_stop(struct rn_dra_server *s)
{
	if (!s)
		return;
	if (agent_server == s)
		agent_server = NULL;
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
	rn_dra_slicer_stop(s->slicer);
	rn_dra_driver_close(s->drv);
	free(s);
	grpc_shutdown();
}

void rn_dra_health(struct rn_dra_server *s, struct rn_dra_health *h)
{
	dra_health_fill(&s->live, s->cfg.driver, s->slicer, h);
}

struct rn_dra_server *dra_agent_server(void)
{
	return agent_server;
}
