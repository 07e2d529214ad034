/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the device plugin's thread: one gRPC completion queue carries
 * every server call, ListAndWatch send and Register attempt; each event's
 * tag is a struct rn_grpc_tag whose done() runs on the thread. Nothing here is
 * touched by another thread except dp_server.stop. Not part of the
 * module's interface (that is devplugin.h). */
#ifndef RDMANET_DEVPLUGIN_GRPC_INTERNAL_H
#define RDMANET_DEVPLUGIN_GRPC_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>
#include <grpc/grpc.h>
#include <protobuf-c/protobuf-c.h>

#include "grpcrt/grpcrt.h"

#include "devplugin/devplugin.h"
#include "rdma/rdma.h"

enum dp_reg_state { DP_REG_IDLE, DP_REG_PENDING, DP_REG_DONE, DP_REG_WAIT };

struct dp_res {
	struct dp_server *srv;
	struct rn_dp_resource_config rc;
	struct rn_dp_view view;
	bool unservable;		/* rn_dp_resource_servable said no: never served */
	char sock_name[RN_GRPC_SOCK_MAX];	/* "rdmanet-<prefix>-<name>.sock" */
	char what[RN_DP_PREFIX_LEN + RN_DP_NAME_LEN + 16];	/* "device plugin rdma/x" */
	struct rn_grpc_endpoint ep;	/* its socket (ep.path) and server */
	struct rn_grpc_call *watchers;	/* open ListAndWatch streams */
	unsigned long long served;	/* times served (re-serves after deletion) */
	double serve_retry_at;
	/* Register with kubelet.sock (not in watcher mode) */
	enum dp_reg_state reg;
	struct rn_grpc_tag reg_tag;
	grpc_channel *reg_chan;
	grpc_call *reg_call;
	grpc_byte_buffer *reg_send, *reg_recv;
	grpc_metadata_array reg_md_init, reg_md_trail;
	grpc_status_code reg_status;
	bool reg_cancelled;		/* we cancelled it (unserve, stop): not kubelet's answer */
	grpc_slice reg_details;
	double reg_retry_at;
	int reg_failures;
	unsigned long long registrations;
};

struct dp_health_pub {
	_Atomic long long beat_ms;	/* CLOCK_MONOTONIC ms of the last pass */
	atomic_int resources, unservable, served, registered;
};

struct dp_server {
	pthread_t thread;
	atomic_bool stop;
	grpc_completion_queue *cq;
	struct rn_dp_config cfg;
	struct rn_rdma_roots roots;
	struct rn_rdma_model model;
	bool have_model;
	bool watcher;			/* plugins_registry exists: kubelet finds us there */
	char plugin_dir[PATH_MAX];	/* where our sockets live */
	char kubelet_sock[RN_GRPC_SOCK_MAX];
	struct dp_res *res;
	int n_res;
	int inotify_fd;
	int hold_wd;			/* the VF holds' directory; -1 not watched */
	double hold_watch_at;		/* next try while it does not exist */
	void *nl_sock;			/* struct nl_sock *: link events */
	double reload_at[4];		/* model reloads due (0: none) */
	double periodic_at;
	int pending_shutdowns;
	bool settled;			/* start-up over (every resource served and registered) */
	struct dp_health_pub health;	/* what rn_dp_health reads from other threads */
	double settle_by;		/* or over anyway at this time */
};

/* clock.c: seconds on CLOCK_MONOTONIC, the thread's own schedule */
double dp_now(void);

/* health.c: published at every housekeeping pass */
void dp_health_publish(struct dp_server *s);

/* resource_server.c: a resource's socket (its endpoint) */
int dp_serve(struct dp_res *r);
void dp_unserve(struct dp_res *r);

/* rpc.c: the unary methods; fill *resp (packed) or fail with a status */
grpc_status_code dp_rpc_unary(struct dp_res *r, const char *method, grpc_byte_buffer *req,
			      grpc_byte_buffer **resp, char *err, size_t err_size);
/* list_and_watch.c: ListAndWatch */
void dp_list_and_watch_start(struct rn_grpc_call *c);
void dp_list_and_watch_push(struct dp_res *r);	/* the view changed: send the whole list */
grpc_byte_buffer *dp_list_and_watch_message(const struct dp_res *r);

/* register.c: Register with kubelet.sock, asynchronously */
void dp_register_start(struct dp_res *r);
void dp_register_cancel(struct dp_res *r);

/* events.c: our sockets deleted, kubelet.sock created, links changing */
int dp_events_open(struct dp_server *s);
void dp_events_poll(struct dp_server *s);
int dp_events_rewatch(struct dp_server *s);
void dp_events_close(struct dp_server *s);
/* VF resources: watch <stateDir>/sriov (a hold written or removed reloads
 * at once); while it does not exist yet, try again every few seconds */
void dp_events_watch_holds(struct dp_server *s, double now);
void dp_schedule_reload(struct dp_server *s);

/* plugin_thread.c: the device plugin thread */
void dp_reload(struct dp_server *s);

#endif
