// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* An endpoint's gRPC server on its unix socket, and the life of each call
 * on it: the request message, then a unary answer with its status, or a
 * server stream its owner keeps until the peer goes away (see
 * grpcrt.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grpcrt/grpcrt.h"
#include "log.h"

static void request_next(struct rn_grpc_endpoint *ep);

void rn_grpc_call_unref(struct rn_grpc_call *c)
{
	if (--c->refs > 0)
		return;
	if (c->call)
		grpc_call_unref(c->call);
	grpc_call_details_destroy(&c->details);
	grpc_metadata_array_destroy(&c->md);
	if (c->recv_buf)
		grpc_byte_buffer_destroy(c->recv_buf);
	if (c->send_buf)
		grpc_byte_buffer_destroy(c->send_buf);
	grpc_slice_unref(c->status_details);
	free(c);
}

static void unary_sent(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_call *c = (struct rn_grpc_call *)((char *)t -
						     offsetof(struct rn_grpc_call, send_tag));

	(void)ok;
	rn_grpc_call_unref(c);	/* the batch */
	rn_grpc_call_unref(c);	/* the call is answered */
}

static void unary_answer(struct rn_grpc_call *c)
{
	char method[128], err[512] = "";
	grpc_byte_buffer *resp = NULL;
	grpc_status_code st;
	grpc_op ops[2] = { 0 };
	size_t n = 0;

	snprintf(method, sizeof(method), "%.*s", (int)GRPC_SLICE_LENGTH(c->details.method),
		 (const char *)GRPC_SLICE_START_PTR(c->details.method));
	st = c->ep->svc->unary(c->ep->ctx, method, c->recv_buf, &resp, err, sizeof(err));
	if (st != GRPC_STATUS_OK)
		rn_warn("%s: %s: %s", c->ep->what, method, err);
	if (resp && st == GRPC_STATUS_OK) {
		c->send_buf = resp;
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n++].data.send_message.send_message = resp;
	} else if (resp) {
		grpc_byte_buffer_destroy(resp);
	}
	c->status_details = grpc_slice_from_copied_string(err);
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = st;
	ops[n++].data.send_status_from_server.status_details =
		st == GRPC_STATUS_OK ? NULL : &c->status_details;
	c->send_tag.done = unary_sent;
	c->refs++;
	if (grpc_call_start_batch(c->call, ops, n, &c->send_tag, NULL) != GRPC_CALL_OK) {
		c->refs--;
		rn_grpc_call_unref(c);
	}
}

static void received(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_call *c = (struct rn_grpc_call *)((char *)t -
						     offsetof(struct rn_grpc_call, recv_tag));

	rn_grpc_call_unref(c);	/* the batch */
	if (!ok || c->closed) {
		if (!c->is_stream)
			rn_grpc_call_unref(c);	/* nothing to answer */
		return;
	}
	if (c->is_stream)
		c->ep->svc->stream_start(c);
	else
		unary_answer(c);
}

static void closed(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_call *c = (struct rn_grpc_call *)((char *)t -
						     offsetof(struct rn_grpc_call, close_tag));

	(void)ok;
	c->closed = true;
	if (c->is_stream) {
		c->ep->svc->stream_closed(c);
		rn_grpc_call_unref(c);	/* the stream is over */
	}
	rn_grpc_call_unref(c);		/* the batch */
}

static void requested(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_call *c = (struct rn_grpc_call *)((char *)t -
						     offsetof(struct rn_grpc_call, req_tag));
	struct rn_grpc_endpoint *ep = c->ep;
	grpc_op ops[2] = { 0 }, close_op = { 0 };

	if (!ok) {		/* the server is shutting down */
		c->refs = 1;
		rn_grpc_call_unref(c);
		return;
	}
	if (ep->state == RN_GRPC_SRV_UP && ep->server == c->server)
		request_next(ep);
	c->is_stream = ep->svc->stream_method &&
		       grpc_slice_str_cmp(c->details.method, ep->svc->stream_method) == 0;
	c->refs = 1;		/* open: released when answered (unary) or closed (stream) */

	close_op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	close_op.data.recv_close_on_server.cancelled = &c->cancelled;
	c->close_tag.done = closed;
	c->refs++;
	if (grpc_call_start_batch(c->call, &close_op, 1, &c->close_tag, NULL) != GRPC_CALL_OK) {
		c->refs--;
		rn_grpc_call_unref(c);	/* open: nothing else holds the call */
		return;
	}
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_RECV_MESSAGE;
	ops[1].data.recv_message.recv_message = &c->recv_buf;
	c->recv_tag.done = received;
	c->refs++;
	if (grpc_call_start_batch(c->call, ops, 2, &c->recv_tag, NULL) != GRPC_CALL_OK) {
		c->refs--;
		grpc_call_cancel(c->call, NULL);	/* close_tag fires and releases */
		if (!c->is_stream)
			rn_grpc_call_unref(c);
	}
}

static void request_next(struct rn_grpc_endpoint *ep)
{
	struct rn_grpc_call *c = calloc(1, sizeof(*c));

	if (!c) {
		rn_err("%s: out of memory", ep->what);
		return;
	}
	c->ep = ep;
	c->server = ep->server;
	c->req_tag.done = requested;
	c->status_details = grpc_empty_slice();
	grpc_call_details_init(&c->details);
	grpc_metadata_array_init(&c->md);
	if (grpc_server_request_call(ep->server, &c->call, &c->details, &c->md, ep->cq, ep->cq,
				     &c->req_tag) != GRPC_CALL_OK) {
		c->refs = 1;
		rn_grpc_call_unref(c);
	}
}

int rn_grpc_endpoint_serve(struct rn_grpc_endpoint *ep)
{
	grpc_server_credentials *creds;
	char uri[RN_GRPC_SOCK_MAX + 8];
	struct stat st;
	int port;

	/* "unix:/abs": the form both gRPC clients and servers accept */
	snprintf(uri, sizeof(uri), "unix:%s", ep->path);
	ep->server = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(ep->server, ep->cq, NULL);
	creds = grpc_insecure_server_credentials_create();
	port = grpc_server_add_http2_port(ep->server, uri, creds);
	grpc_server_credentials_release(creds);
	if (!port) {
		rn_err("%s: cannot listen on %s", ep->what, ep->path);
		grpc_server_destroy(ep->server);
		ep->server = NULL;
		ep->state = RN_GRPC_SRV_DOWN;
		return -1;
	}
	grpc_server_start(ep->server);
	ep->sock_dev = 0;
	ep->sock_ino = 0;
	if (stat(ep->path, &st) == 0) {
		ep->sock_dev = st.st_dev;
		ep->sock_ino = st.st_ino;
	}
	ep->state = RN_GRPC_SRV_UP;
	request_next(ep);
	return 0;
}

static void shut_down(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_endpoint *ep = (struct rn_grpc_endpoint *)((char *)t -
					offsetof(struct rn_grpc_endpoint, shutdown_tag));

	(void)ok;
	/* only now may a new server bind the path: this one unlinks it by name */
	grpc_server_destroy(ep->server);
	ep->server = NULL;
	ep->state = RN_GRPC_SRV_DOWN;
	if (ep->pending_shutdowns)
		(*ep->pending_shutdowns)--;
}

void rn_grpc_endpoint_unserve(struct rn_grpc_endpoint *ep)
{
	if (ep->state != RN_GRPC_SRV_UP)
		return;
	ep->state = RN_GRPC_SRV_STOPPING;
	ep->shutdown_tag.done = shut_down;
	if (ep->pending_shutdowns)
		(*ep->pending_shutdowns)++;
	grpc_server_shutdown_and_notify(ep->server, ep->cq, &ep->shutdown_tag);
	grpc_server_cancel_all_calls(ep->server);
}
