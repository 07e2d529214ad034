// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A resource's gRPC server on its unix socket, and the life of each call
 * on it: the request message, then a unary answer with its status, or a
 * ListAndWatch stream that lives until kubelet goes away. Calls are taken
 * generically (grpc_server_request_call) and dispatched by method path, so
 * the DevicePlugin and, in watcher mode, the Registration service share
 * the socket, as kubelet's plugin watcher expects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <grpc/grpc_security.h>

#include "devplugin/grpc_internal.h"
#include "log.h"

#define LIST_AND_WATCH_METHOD "/v1beta1.DevicePlugin/ListAndWatch"

static void request_next(struct dp_res *r);

void dp_call_unref(struct dp_call *c)
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

static void unary_sent(struct dp_tag *t, bool ok)
{
	struct dp_call *c = (struct dp_call *)((char *)t - offsetof(struct dp_call, send_tag));

	(void)ok;
	dp_call_unref(c);	/* the batch */
	dp_call_unref(c);	/* the call is answered */
}

static void unary_answer(struct dp_call *c)
{
	char method[128], err[512] = "";
	grpc_byte_buffer *resp = NULL;
	grpc_status_code st;
	grpc_op ops[2] = { 0 };
	size_t n = 0;

	snprintf(method, sizeof(method), "%.*s", (int)GRPC_SLICE_LENGTH(c->details.method),
		 (const char *)GRPC_SLICE_START_PTR(c->details.method));
	st = dp_rpc_unary(c->res, method, c->recv_buf, &resp, err, sizeof(err));
	if (st != GRPC_STATUS_OK)
		rn_warn("device plugin %s: %s: %s", c->res->view.resource, method, err);
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
		dp_call_unref(c);
	}
}

static void received(struct dp_tag *t, bool ok)
{
	struct dp_call *c = (struct dp_call *)((char *)t - offsetof(struct dp_call, recv_tag));

	dp_call_unref(c);	/* the batch */
	if (!ok || c->closed) {
		if (!c->is_list_and_watch)
			dp_call_unref(c);	/* nothing to answer */
		return;
	}
	if (c->is_list_and_watch)
		dp_list_and_watch_start(c);
	else
		unary_answer(c);
}

static void closed(struct dp_tag *t, bool ok)
{
	struct dp_call *c = (struct dp_call *)((char *)t - offsetof(struct dp_call, close_tag));

	(void)ok;
	c->closed = true;
	if (c->is_list_and_watch) {
		struct dp_call **pp = &c->res->watchers;

		while (*pp && *pp != c)
			pp = &(*pp)->next;
		if (*pp)
			*pp = c->next;
		rn_debug("device plugin %s: ListAndWatch stream closed%s", c->res->view.resource,
			 c->cancelled ? " by kubelet" : "");
		dp_call_unref(c);	/* the stream is over */
	}
	dp_call_unref(c);		/* the batch */
}

static void requested(struct dp_tag *t, bool ok)
{
	struct dp_call *c = (struct dp_call *)((char *)t - offsetof(struct dp_call, req_tag));
	struct dp_res *r = c->res;
	grpc_op ops[2] = { 0 }, close_op = { 0 };

	if (!ok) {		/* the server is shutting down */
		c->refs = 1;
		dp_call_unref(c);
		return;
	}
	if (r->state == DP_SRV_UP && r->server == c->server)
		request_next(r);
	c->is_list_and_watch = grpc_slice_str_cmp(c->details.method, LIST_AND_WATCH_METHOD) == 0;
	c->refs = 1;		/* open: released when answered (unary) or closed (stream) */

	close_op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	close_op.data.recv_close_on_server.cancelled = &c->cancelled;
	c->close_tag.done = closed;
	c->refs++;
	if (grpc_call_start_batch(c->call, &close_op, 1, &c->close_tag, NULL) != GRPC_CALL_OK) {
		c->refs--;
		dp_call_unref(c);	/* open: nothing else holds the call */
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
		if (!c->is_list_and_watch)
			dp_call_unref(c);
	}
}

static void request_next(struct dp_res *r)
{
	struct dp_call *c = calloc(1, sizeof(*c));

	if (!c) {
		rn_err("device plugin %s: out of memory", r->view.resource);
		return;
	}
	c->res = r;
	c->server = r->server;
	c->req_tag.done = requested;
	c->status_details = grpc_empty_slice();
	grpc_call_details_init(&c->details);
	grpc_metadata_array_init(&c->md);
	if (grpc_server_request_call(r->server, &c->call, &c->details, &c->md, r->srv->cq,
				     r->srv->cq, &c->req_tag) != GRPC_CALL_OK) {
		c->refs = 1;
		dp_call_unref(c);
	}
}

int dp_serve(struct dp_res *r)
{
	struct dp_server *s = r->srv;
	grpc_server_credentials *creds;
	char uri[DP_SOCK_MAX + 8];
	struct stat st;
	int port;

	/* "unix:/abs": the form both gRPC clients and servers accept */
	snprintf(uri, sizeof(uri), "unix:%s", r->sock_path);
	r->server = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(r->server, s->cq, NULL);
	creds = grpc_insecure_server_credentials_create();
	port = grpc_server_add_http2_port(r->server, uri, creds);
	grpc_server_credentials_release(creds);
	if (!port) {
		rn_err("device plugin %s: cannot listen on %s", r->view.resource, r->sock_path);
		grpc_server_destroy(r->server);
		r->server = NULL;
		r->state = DP_SRV_DOWN;
		return -1;
	}
	grpc_server_start(r->server);
	if (stat(r->sock_path, &st) == 0) {
		r->sock_dev = st.st_dev;
		r->sock_ino = st.st_ino;
	}
	r->state = DP_SRV_UP;
	r->served++;
	request_next(r);
	rn_info("device plugin %s: serving on %s (%d devices)", r->view.resource, r->sock_path,
		r->view.n_units);
	return 0;
}

static void shut_down(struct dp_tag *t, bool ok)
{
	struct dp_res *r = (struct dp_res *)((char *)t - offsetof(struct dp_res, shutdown_tag));

	(void)ok;
	/* only now may a new server bind the path: this one unlinks it by name */
	grpc_server_destroy(r->server);
	r->server = NULL;
	r->state = DP_SRV_DOWN;
	r->srv->pending_shutdowns--;
}

void dp_unserve(struct dp_res *r)
{
	if (r->state != DP_SRV_UP)
		return;
	dp_register_cancel(r);
	r->state = DP_SRV_STOPPING;
	r->shutdown_tag.done = shut_down;
	r->srv->pending_shutdowns++;
	grpc_server_shutdown_and_notify(r->server, r->srv->cq, &r->shutdown_tag);
	grpc_server_cancel_all_calls(r->server);
}
