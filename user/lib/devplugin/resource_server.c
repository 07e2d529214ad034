// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A resource's gRPC endpoint: the DevicePlugin service and, in watcher
 * mode, kubelet's Registration service on one socket (rpc.c answers the
 * unary methods, list_and_watch.c the ListAndWatch stream). */
#include <stdio.h>

#include "devplugin/grpc_internal.h"
#include "log.h"

static grpc_status_code unary(void *ctx, const char *method, grpc_byte_buffer *req,
			      grpc_byte_buffer **resp, char *err, size_t esz)
{
	return dp_rpc_unary(ctx, method, req, resp, err, esz);
}

static void stream_closed(struct rn_grpc_call *c)
{
	struct dp_res *r = c->ep->ctx;
	struct rn_grpc_call **pp = &r->watchers;

	while (*pp && *pp != c)
		pp = &(*pp)->next;
	if (*pp)
		*pp = c->next;
	rn_debug("device plugin %s: ListAndWatch stream closed%s", r->view.resource,
		 c->cancelled ? " by kubelet" : "");
}

static const struct rn_grpc_service device_plugin_service = {
	.unary = unary,
	.stream_method = "/v1beta1.DevicePlugin/ListAndWatch",
	.stream_start = dp_list_and_watch_start,
	.stream_closed = stream_closed,
};

int dp_serve(struct dp_res *r)
{
	r->ep.svc = &device_plugin_service;
	r->ep.ctx = r;
	r->ep.what = r->what;
	r->ep.cq = r->srv->cq;
	r->ep.pending_shutdowns = &r->srv->pending_shutdowns;
	if (rn_grpc_endpoint_serve(&r->ep))
		return -1;
	r->served++;
	rn_info("device plugin %s: serving on %s (%d devices)", r->view.resource, r->ep.path,
		r->view.n_units);
	return 0;
}

void dp_unserve(struct dp_res *r)
{
	if (r->ep.state != RN_GRPC_SRV_UP)
		return;
	dp_register_cancel(r);
	rn_grpc_endpoint_unserve(&r->ep);
}
