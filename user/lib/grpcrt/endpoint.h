/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A gRPC server on one unix socket, driven from its owner's completion
 * queue: every event's tag is a struct dp_tag whose done() runs on the
 * owner's thread. Calls are taken generically (grpc_server_request_call)
 * and dispatched by method path through the owner's service table, so
 * several services can share one socket, as kubelet's plugin watcher
 * expects. The device plugin serves each resource with one; the DRA driver
 * its registration and DRAPlugin sockets. Include after grpc_dl.h. */
#ifndef RDMANET_DEVPLUGIN_GRPC_ENDPOINT_H
#define RDMANET_DEVPLUGIN_GRPC_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <grpc/grpc.h>
#include <protobuf-c/protobuf-c.h>

#define DP_SOCK_MAX 108			/* sun_path */

struct dp_tag {
	void (*done)(struct dp_tag *t, bool ok);
};

struct dp_endpoint;
struct dp_res;

/* one server-side call */
struct dp_call {
	struct dp_tag req_tag;		/* grpc_server_request_call */
	struct dp_tag recv_tag;		/* the request message */
	struct dp_tag send_tag;		/* a response (unary: with the status) */
	struct dp_tag close_tag;	/* RECV_CLOSE_ON_SERVER: peer gone or done */
	struct dp_endpoint *ep;
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
	struct dp_call *next;		/* the stream owner's list */
};

/* What an endpoint serves. unary answers one call: fills *resp (packed)
 * or fails with a status and err. A call to stream_method (NULL: none) is
 * handed to stream_start once its request arrived; the owner keeps it
 * until stream_closed (kubelet gone, or the server shutting down). */
struct dp_service {
	grpc_status_code (*unary)(void *ctx, const char *method, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, char *err, size_t err_size);
	const char *stream_method;
	void (*stream_start)(struct dp_call *c);
	void (*stream_closed)(struct dp_call *c);
};

enum dp_srv_state { DP_SRV_DOWN, DP_SRV_UP, DP_SRV_STOPPING };

struct dp_endpoint {
	/* the owner's, set before dp_endpoint_serve */
	const struct dp_service *svc;
	void *ctx;			/* handed to svc->unary; the owner's object */
	const char *what;		/* for logs: "device plugin rdma/hca" */
	grpc_completion_queue *cq;
	int *pending_shutdowns;		/* counted while a shutdown is under way; or NULL */
	char path[DP_SOCK_MAX];
	/* the endpoint's own */
	grpc_server *server;
	enum dp_srv_state state;
	struct dp_tag shutdown_tag;
	/* the socket file this server bound: a deletion event for any other
	 * file at that path (a stale one gRPC unlinks before binding, after
	 * an unclean exit) is not kubelet deleting ours */
	dev_t sock_dev;
	ino_t sock_ino;
};

/* Listens on ep->path and starts taking calls (state DP_SRV_UP); -1
 * logged when it cannot listen. */
int dp_endpoint_serve(struct dp_endpoint *ep);
/* Shuts the server down (DP_SRV_STOPPING, then DP_SRV_DOWN on the owner's
 * queue once gRPC has let go of the socket, which it unlinks); open calls
 * are cancelled. Nothing when not up. */
void dp_endpoint_unserve(struct dp_endpoint *ep);
void dp_call_unref(struct dp_call *c);

/* protobuf.c: protobuf-c <-> gRPC byte buffers */
grpc_byte_buffer *dp_pb_pack(const ProtobufCMessage *msg);
ProtobufCMessage *dp_pb_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb);

/* clock.c: monotonic seconds; a gRPC deadline ms from now */
double dp_now(void);
gpr_timespec dp_deadline_ms(long ms);

#endif
