/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The gRPC runtime of the kubelet plugins (the device plugin and the DRA
 * driver), the module's whole interface:
 *
 * - gRPC core, loaded with dlopen by rn_grpc_load() when a plugin is
 *   configured: an agent without one never maps libgrpc and its C++
 *   dependencies (about 5 MiB of resident pages and their start-up
 *   constructors on every node). Every gRPC function a caller uses is named
 *   in RN_GRPC_FUNCS and goes through the table rn_grpc_load() fills (the
 *   macros below turn the calls into calls through it).
 * - An endpoint: a gRPC server on one unix socket, driven from its owner's
 *   completion queue: every event's tag is a struct rn_grpc_tag whose done()
 *   runs on the owner's thread. Calls are taken generically
 *   (grpc_server_request_call) and dispatched by method path through the
 *   owner's service table, so several services can share one socket, as
 *   kubelet's plugin watcher expects. The device plugin serves each
 *   resource with one; the DRA driver its registration and DRAPlugin
 *   sockets.
 * - protobuf-c messages in and out of gRPC byte buffers, and deadlines. */
#ifndef RDMANET_GRPCRT_H
#define RDMANET_GRPCRT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>
#include <protobuf-c/protobuf-c.h>

#include "error.h"

#define RN_GRPC_FUNCS(X) \
	X(gpr_inf_future) \
	X(gpr_now) \
	X(gpr_time_add) \
	X(gpr_time_from_millis) \
	X(grpc_byte_buffer_destroy) \
	X(grpc_byte_buffer_reader_destroy) \
	X(grpc_byte_buffer_reader_init) \
	X(grpc_byte_buffer_reader_readall) \
	X(grpc_call_cancel) \
	X(grpc_call_details_destroy) \
	X(grpc_call_details_init) \
	X(grpc_call_start_batch) \
	X(grpc_call_unref) \
	X(grpc_channel_create) \
	X(grpc_channel_create_call) \
	X(grpc_channel_credentials_release) \
	X(grpc_channel_destroy) \
	X(grpc_completion_queue_create_for_next) \
	X(grpc_completion_queue_destroy) \
	X(grpc_completion_queue_next) \
	X(grpc_completion_queue_shutdown) \
	X(grpc_empty_slice) \
	X(grpc_init) \
	X(grpc_insecure_credentials_create) \
	X(grpc_insecure_server_credentials_create) \
	X(grpc_metadata_array_destroy) \
	X(grpc_metadata_array_init) \
	X(grpc_raw_byte_buffer_create) \
	X(grpc_server_add_http2_port) \
	X(grpc_server_cancel_all_calls) \
	X(grpc_server_create) \
	X(grpc_server_credentials_release) \
	X(grpc_server_destroy) \
	X(grpc_server_register_completion_queue) \
	X(grpc_server_request_call) \
	X(grpc_server_shutdown_and_notify) \
	X(grpc_server_start) \
	X(grpc_shutdown) \
	X(grpc_slice_from_copied_string) \
	X(grpc_slice_from_static_string) \
	X(grpc_slice_malloc) \
	X(grpc_slice_str_cmp) \
	X(grpc_slice_unref) \

struct rn_grpc_api {
#define RN_GRPC_PTR(f) __typeof__(f) *f;
	RN_GRPC_FUNCS(RN_GRPC_PTR)
#undef RN_GRPC_PTR
};
extern struct rn_grpc_api rn_grpc;

/* Loads libgrpc and libgpr (their sonames from the build) once; fails
 * naming the library or the symbol. */
int rn_grpc_load(struct rn_error *e);

#ifndef RN_GRPC_DL_IMPL
#define gpr_inf_future (*rn_grpc.gpr_inf_future)
#define gpr_now (*rn_grpc.gpr_now)
#define gpr_time_add (*rn_grpc.gpr_time_add)
#define gpr_time_from_millis (*rn_grpc.gpr_time_from_millis)
#define grpc_byte_buffer_destroy (*rn_grpc.grpc_byte_buffer_destroy)
#define grpc_byte_buffer_reader_destroy (*rn_grpc.grpc_byte_buffer_reader_destroy)
#define grpc_byte_buffer_reader_init (*rn_grpc.grpc_byte_buffer_reader_init)
#define grpc_byte_buffer_reader_readall (*rn_grpc.grpc_byte_buffer_reader_readall)
#define grpc_call_cancel (*rn_grpc.grpc_call_cancel)
#define grpc_call_details_destroy (*rn_grpc.grpc_call_details_destroy)
#define grpc_call_details_init (*rn_grpc.grpc_call_details_init)
#define grpc_call_start_batch (*rn_grpc.grpc_call_start_batch)
#define grpc_call_unref (*rn_grpc.grpc_call_unref)
#define grpc_channel_create (*rn_grpc.grpc_channel_create)
#define grpc_channel_create_call (*rn_grpc.grpc_channel_create_call)
#define grpc_channel_credentials_release (*rn_grpc.grpc_channel_credentials_release)
#define grpc_channel_destroy (*rn_grpc.grpc_channel_destroy)
#define grpc_completion_queue_create_for_next (*rn_grpc.grpc_completion_queue_create_for_next)
#define grpc_completion_queue_destroy (*rn_grpc.grpc_completion_queue_destroy)
#define grpc_completion_queue_next (*rn_grpc.grpc_completion_queue_next)
#define grpc_completion_queue_shutdown (*rn_grpc.grpc_completion_queue_shutdown)
#define grpc_empty_slice (*rn_grpc.grpc_empty_slice)
#define grpc_init (*rn_grpc.grpc_init)
#define grpc_insecure_credentials_create (*rn_grpc.grpc_insecure_credentials_create)
#define grpc_insecure_server_credentials_create (*rn_grpc.grpc_insecure_server_credentials_create)
#define grpc_metadata_array_destroy (*rn_grpc.grpc_metadata_array_destroy)
#define grpc_metadata_array_init (*rn_grpc.grpc_metadata_array_init)
#define grpc_raw_byte_buffer_create (*rn_grpc.grpc_raw_byte_buffer_create)
#define grpc_server_add_http2_port (*rn_grpc.grpc_server_add_http2_port)
#define grpc_server_cancel_all_calls (*rn_grpc.grpc_server_cancel_all_calls)
#define grpc_server_create (*rn_grpc.grpc_server_create)
#define grpc_server_credentials_release (*rn_grpc.grpc_server_credentials_release)
#define grpc_server_destroy (*rn_grpc.grpc_server_destroy)
#define grpc_server_register_completion_queue (*rn_grpc.grpc_server_register_completion_queue)
#define grpc_server_request_call (*rn_grpc.grpc_server_request_call)
#define grpc_server_shutdown_and_notify (*rn_grpc.grpc_server_shutdown_and_notify)
#define grpc_server_start (*rn_grpc.grpc_server_start)
#define grpc_shutdown (*rn_grpc.grpc_shutdown)
#define grpc_slice_from_copied_string (*rn_grpc.grpc_slice_from_copied_string)
#define grpc_slice_from_static_string (*rn_grpc.grpc_slice_from_static_string)
#define grpc_slice_malloc (*rn_grpc.grpc_slice_malloc)
#define grpc_slice_str_cmp (*rn_grpc.grpc_slice_str_cmp)
#define grpc_slice_unref (*rn_grpc.grpc_slice_unref)
#endif

/* the endpoint */

#define RN_GRPC_SOCK_MAX 108	/* sun_path */

struct rn_grpc_tag {
	void (*done)(struct rn_grpc_tag *t, bool ok);
};

struct rn_grpc_endpoint;

/* one server-side call */
struct rn_grpc_call {
	struct rn_grpc_tag req_tag;	/* grpc_server_request_call */
	struct rn_grpc_tag recv_tag;	/* the request message */
	struct rn_grpc_tag send_tag;	/* a response (unary: with the status) */
	struct rn_grpc_tag close_tag;	/* RECV_CLOSE_ON_SERVER: peer gone or done */
	struct rn_grpc_endpoint *ep;
	grpc_server *server;		/* the server that took it */
	grpc_call *call;
	grpc_call_details details;
	grpc_metadata_array md;
	grpc_byte_buffer *recv_buf;
	grpc_byte_buffer *send_buf;
	grpc_slice status_details;
	int cancelled;
	int refs;			/* batches outstanding + 1 while open */
	bool is_stream;
	bool send_busy, dirty, closed;
	struct rn_grpc_call *next;	/* the stream owner's list */
};

/* What an endpoint serves. unary answers one call: fills *resp (packed)
 * or fails with a status and err. A call to stream_method (NULL: none) is
 * handed to stream_start once its request arrived; the owner keeps it
 * until stream_closed (kubelet gone, or the server shutting down). */
struct rn_grpc_service {
	grpc_status_code (*unary)(void *ctx, const char *method, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, char *err, size_t err_size);
	const char *stream_method;
	void (*stream_start)(struct rn_grpc_call *c);
	void (*stream_closed)(struct rn_grpc_call *c);
};

enum rn_grpc_srv_state { RN_GRPC_SRV_DOWN, RN_GRPC_SRV_UP, RN_GRPC_SRV_STOPPING };

struct rn_grpc_endpoint {
	/* the owner's, set before rn_grpc_endpoint_serve */
	const struct rn_grpc_service *svc;
	void *ctx;			/* handed to svc->unary; the owner's object */
	const char *what;		/* for logs: "device plugin rdma/hca" */
	grpc_completion_queue *cq;
	int *pending_shutdowns;		/* counted while a shutdown is under way; or NULL */
	char path[RN_GRPC_SOCK_MAX];
	/* the endpoint's own */
	grpc_server *server;
	enum rn_grpc_srv_state state;
	struct rn_grpc_tag shutdown_tag;
	/* the socket file this server bound: a deletion event for any other
	 * file at that path (a stale one gRPC unlinks before binding, after
	 * an unclean exit) is not kubelet deleting ours */
	dev_t sock_dev;
	ino_t sock_ino;
};

/* Listens on ep->path and starts taking calls (state RN_GRPC_SRV_UP); -1
 * logged when it cannot listen. */
int rn_grpc_endpoint_serve(struct rn_grpc_endpoint *ep);
/* Shuts the server down (RN_GRPC_SRV_STOPPING, then RN_GRPC_SRV_DOWN on
 * the owner's queue once gRPC has let go of the socket, which it unlinks);
 * open calls are cancelled. Nothing when not up. */
void rn_grpc_endpoint_unserve(struct rn_grpc_endpoint *ep);
void rn_grpc_call_unref(struct rn_grpc_call *c);

/* protobuf.c: protobuf-c messages in and out of gRPC byte buffers */
grpc_byte_buffer *rn_grpc_pb_pack(const ProtobufCMessage *msg);
ProtobufCMessage *rn_grpc_pb_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb);

/* deadline.c: a deadline ms from now on gRPC's monotonic clock */
gpr_timespec rn_grpc_deadline_ms(long ms);

#endif
