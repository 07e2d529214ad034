// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Register with kubelet.sock, asynchronously on the thread's completion
 * queue: kubelet (>= 1.25) answers Register only after dialing the plugin
 * back and calling GetDevicePluginOptions, which this same thread serves,
 * so waiting for the answer would deadlock. Every attempt gets a fresh
 * channel (a cached one to a restarted kubelet may sit in reconnect
 * backoff) and a deadline; failures retry with backoff, and a new
 * kubelet.sock (events.c) retries at once. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <grpc/grpc_security.h>

#include "devplugin/deviceplugin_v1beta1.pb-c.h"
#include "devplugin/grpc_internal.h"
#include "log.h"

#define REGISTER_METHOD "/v1beta1.Registration/Register"
#define REGISTER_TIMEOUT_MS 15000	/* kubelet's dial-back alone may take 10 s */

static void reg_cleanup(struct dp_res *r)
{
	if (r->reg_call)
		grpc_call_unref(r->reg_call);
	if (r->reg_chan)
		grpc_channel_destroy(r->reg_chan);
	if (r->reg_send)
		grpc_byte_buffer_destroy(r->reg_send);
	if (r->reg_recv)
		grpc_byte_buffer_destroy(r->reg_recv);
	grpc_metadata_array_destroy(&r->reg_md_init);
	grpc_metadata_array_destroy(&r->reg_md_trail);
	grpc_slice_unref(r->reg_details);
	r->reg_call = NULL;
	r->reg_chan = NULL;
	r->reg_send = r->reg_recv = NULL;
	r->reg_details = grpc_empty_slice();
}

static void registered(struct rn_grpc_tag *t, bool ok)
{
	struct dp_res *r = (struct dp_res *)((char *)t - offsetof(struct dp_res, reg_tag));
	char why[256];
	double backoff;

	snprintf(why, sizeof(why), "%.*s", (int)GRPC_SLICE_LENGTH(r->reg_details),
		 (const char *)GRPC_SLICE_START_PTR(r->reg_details));
	if (r->reg_cancelled && r->reg_status == GRPC_STATUS_CANCELLED) {
		/* ours (the socket is served again, or the agent stops): the
		 * next serve registers at once, nothing was refused */
		r->reg = DP_REG_IDLE;
		rn_debug("device plugin %s: Register cancelled", r->view.resource);
	} else if (ok && r->reg_status == GRPC_STATUS_OK) {
		r->reg = DP_REG_DONE;
		r->reg_failures = 0;
		r->registrations++;
		rn_info("device plugin %s: registered with kubelet (%s)", r->view.resource,
			r->srv->kubelet_sock);
	} else {
		r->reg = DP_REG_WAIT;
		r->reg_failures++;
		backoff = r->reg_failures < 6 ? (double)(1 << (r->reg_failures - 1)) : 30.0;
		r->reg_retry_at = dp_now() + backoff;
		if (r->reg_status == GRPC_STATUS_UNAVAILABLE)
			rn_warn("device plugin %s: kubelet not reachable on %s (%s); retrying in "
				"%.0f s", r->view.resource, r->srv->kubelet_sock, why, backoff);
		else
			rn_err("device plugin %s: kubelet refused the registration: %s (status "
			       "%d); retrying in %.0f s", r->view.resource, why[0] ? why : "no reason",
			       (int)r->reg_status, backoff);
	}
	reg_cleanup(r);
	/* kubelet could not dial us back: our socket is gone, serve again */
	if (r->reg == DP_REG_WAIT && r->ep.state == RN_GRPC_SRV_UP && access(r->ep.path, F_OK)) {
		rn_info("device plugin %s: %s is gone: serving again", r->view.resource,
			r->ep.path);
		dp_unserve(r);
	}
}

void dp_register_start(struct dp_res *r)
{
	V1beta1__RegisterRequest q = V1BETA1__REGISTER_REQUEST__INIT;
	V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
	grpc_channel_credentials *creds;
	char uri[RN_GRPC_SOCK_MAX + 8];
	grpc_op ops[6] = { 0 };

	if (r->reg == DP_REG_PENDING || r->ep.state != RN_GRPC_SRV_UP)
		return;
	q.version = (char *)RN_DP_API_VERSION;
	q.endpoint = r->sock_name;
	q.resource_name = r->view.resource;
	o.get_preferred_allocation_available = true;
	q.options = &o;

	snprintf(uri, sizeof(uri), "unix:%s", r->srv->kubelet_sock);
	creds = grpc_insecure_credentials_create();
	r->reg_chan = grpc_channel_create(uri, creds, NULL);
	grpc_channel_credentials_release(creds);
	r->reg_call = grpc_channel_create_call(r->reg_chan, NULL, GRPC_PROPAGATE_DEFAULTS,
					       r->srv->cq,
					       grpc_slice_from_static_string(REGISTER_METHOD), NULL,
					       rn_grpc_deadline_ms(REGISTER_TIMEOUT_MS), NULL);
	r->reg_send = rn_grpc_pb_pack(&q.base);
	grpc_metadata_array_init(&r->reg_md_init);
	grpc_metadata_array_init(&r->reg_md_trail);
	r->reg_details = grpc_empty_slice();
	r->reg_status = GRPC_STATUS_UNKNOWN;
	r->reg_cancelled = false;
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = r->reg_send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &r->reg_md_init;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &r->reg_recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &r->reg_md_trail;
	ops[5].data.recv_status_on_client.status = &r->reg_status;
	ops[5].data.recv_status_on_client.status_details = &r->reg_details;
	r->reg_tag.done = registered;
	if (grpc_call_start_batch(r->reg_call, ops, 6, &r->reg_tag, NULL) != GRPC_CALL_OK) {
		rn_err("device plugin %s: cannot start Register", r->view.resource);
		reg_cleanup(r);
		r->reg = DP_REG_WAIT;
		r->reg_retry_at = dp_now() + 5;
		return;
	}
	r->reg = DP_REG_PENDING;
	rn_debug("device plugin %s: Register sent to %s", r->view.resource, r->srv->kubelet_sock);
}

void dp_register_cancel(struct dp_res *r)
{
	/* the completion still arrives (cancelled) and retries */
	if (r->reg == DP_REG_PENDING && r->reg_call) {
		r->reg_cancelled = true;
		grpc_call_cancel(r->reg_call, NULL);
	}
	else
		r->reg = DP_REG_IDLE;
}
