// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ListAndWatch: a stream kubelet keeps open; every message is the whole
 * device list. gRPC allows one send outstanding per call, so a change
 * while a send is in flight only marks the stream dirty, and the send's
 * completion sends the list as it is then: changes coalesce, the last
 * state always arrives. The plugin never ends a stream itself. */
#include <stdlib.h>

#include "devplugin/deviceplugin_v1beta1.pb-c.h"
#include "devplugin/grpc_internal.h"
#include "log.h"

#define HEALTHY "Healthy"
#define UNHEALTHY "Unhealthy"

grpc_byte_buffer *dp_list_and_watch_message(const struct dp_res *r)
{
	const struct rn_dp_view *v = &r->view;
	V1beta1__ListAndWatchResponse out = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
	size_t n = (size_t)v->n_units;
	V1beta1__Device *devs = calloc(n + 1, sizeof(*devs));
	V1beta1__Device **devp = calloc(n + 1, sizeof(*devp));
	V1beta1__TopologyInfo *topo = calloc(n + 1, sizeof(*topo));
	V1beta1__NUMANode nodes[64], **nodep = NULL, **slice = NULL;
	grpc_byte_buffer *bb = NULL;
	size_t n_nodes = 0, used = 0, total = 0;
	uint64_t last = ~0ull;

	/* each distinct node set gets its own slice of nodep: a device's
	 * TopologyInfo points into it until the pack (VFs of one resource may
	 * sit on different nodes) */
	for (size_t i = 0; i < n; i++)
		total += (size_t)__builtin_popcountll(rn_dp_unit_numa(v, &v->units[i]));
	nodep = calloc(total + 1, sizeof(*nodep));
	if (!devs || !devp || !topo || !nodep)
		goto out;
	for (int i = 0; i < 64; i++) {
		v1beta1__numanode__init(&nodes[i]);
		nodes[i].id = i;
	}
	for (size_t i = 0; i < n; i++) {
		const struct rn_dp_unit *u = &v->units[i];
		uint64_t numa = rn_dp_unit_numa(v, u);

		v1beta1__device__init(&devs[i]);
		devs[i].id = (char *)u->id;
		devs[i].health = (char *)(rn_dp_unit_healthy(v, u) ? HEALTHY : UNHEALTHY);
		if (numa) {
			/* units of a shared resource have the same HCAs: one slice */
			if (numa != last) {
				slice = nodep + used;
				n_nodes = 0;
				for (int b = 0; b < 64; b++)
					if (numa >> b & 1)
						slice[n_nodes++] = &nodes[b];
				used += n_nodes;
				last = numa;
			}
			v1beta1__topology_info__init(&topo[i]);
			topo[i].n_nodes = n_nodes;
			topo[i].nodes = slice;
			devs[i].topology = &topo[i];
		}
		devp[i] = &devs[i];
	}
	out.n_devices = n;
	out.devices = devp;
	bb = rn_grpc_pb_pack(&out.base);
out:
	free(devs);
	free(devp);
	free(topo);
	free(nodep);
	return bb;
}

static void send_list(struct rn_grpc_call *c);

/* a stream's resource: its endpoint's owner */
static struct dp_res *res_of(const struct rn_grpc_call *c)
{
	return c->ep->ctx;
}

static void sent(struct rn_grpc_tag *t, bool ok)
{
	struct rn_grpc_call *c = (struct rn_grpc_call *)((char *)t -
						     offsetof(struct rn_grpc_call, send_tag));

	c->send_busy = false;
	grpc_byte_buffer_destroy(c->send_buf);
	c->send_buf = NULL;
	if (ok && !c->closed && c->dirty && !atomic_load(&res_of(c)->srv->stop))
		send_list(c);
	rn_grpc_call_unref(c);	/* the batch */
}

static void send_list(struct rn_grpc_call *c)
{
	grpc_op op = { 0 };

	c->dirty = false;
	c->send_buf = dp_list_and_watch_message(res_of(c));
	if (!c->send_buf) {
		rn_err("device plugin %s: out of memory building the device list",
		       res_of(c)->view.resource);
		c->dirty = true;	/* the next change retries */
		return;
	}
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = c->send_buf;
	c->send_tag.done = sent;
	c->send_busy = true;
	c->refs++;
	if (grpc_call_start_batch(c->call, &op, 1, &c->send_tag, NULL) != GRPC_CALL_OK) {
		c->refs--;
		c->send_busy = false;
		grpc_byte_buffer_destroy(c->send_buf);
		c->send_buf = NULL;
	}
}

void dp_list_and_watch_start(struct rn_grpc_call *c)
{
	c->next = res_of(c)->watchers;
	res_of(c)->watchers = c;
	rn_debug("device plugin %s: ListAndWatch stream opened", res_of(c)->view.resource);
	send_list(c);
}

void dp_list_and_watch_push(struct dp_res *r)
{
	for (struct rn_grpc_call *c = r->watchers; c; c = c->next) {
		if (c->send_busy)
			c->dirty = true;
		else
			send_list(c);
	}
}
