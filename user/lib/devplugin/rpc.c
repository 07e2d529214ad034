// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The unary methods of the DevicePlugin service and, on the same socket in
 * watcher mode, of kubelet's plugin Registration service. Each decodes its
 * request, answers from the resource's current view, and packs the reply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin/deviceplugin_v1beta1.pb-c.h"
#include "devplugin/grpc_internal.h"
#include "log.h"
#include "pluginreg/pluginreg.h"

#define DP "/v1beta1.DevicePlugin/"

static grpc_status_code options(grpc_byte_buffer **resp)
{
	V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;

	o.pre_start_required = false;
	o.get_preferred_allocation_available = true;
	*resp = rn_grpc_pb_pack(&o.base);
	return GRPC_STATUS_OK;
}

static grpc_status_code preferred(struct dp_res *r, grpc_byte_buffer *req,
				  grpc_byte_buffer **resp, char *err, size_t esz)
{
	V1beta1__PreferredAllocationRequest *q = (V1beta1__PreferredAllocationRequest *)
		rn_grpc_pb_unpack(&v1beta1__preferred_allocation_request__descriptor, req);
	V1beta1__PreferredAllocationResponse out = V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
	V1beta1__ContainerPreferredAllocationResponse *cr = NULL, **crp = NULL;
	grpc_status_code st = GRPC_STATUS_OK;

	if (!q) {
		snprintf(err, esz, "GetPreferredAllocation: undecodable request");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	cr = calloc(q->n_container_requests + 1, sizeof(*cr));
	crp = calloc(q->n_container_requests + 1, sizeof(*crp));
	if (!cr || !crp) {
		st = GRPC_STATUS_RESOURCE_EXHAUSTED;
		snprintf(err, esz, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < q->n_container_requests; i++) {
		V1beta1__ContainerPreferredAllocationRequest *c = q->container_requests[i];
		int size = c->allocation_size < 0 ? 0 : c->allocation_size;
		const char **pick = calloc((size_t)size + 1, sizeof(*pick));

		v1beta1__container_preferred_allocation_response__init(&cr[i]);
		crp[i] = &cr[i];
		if (!pick) {
			st = GRPC_STATUS_RESOURCE_EXHAUSTED;
			snprintf(err, esz, "out of memory");
			goto out;
		}
		cr[i].n_deviceids = (size_t)rn_dp_preferred(
			&r->view, (const char *const *)c->available_deviceids,
			(int)c->n_available_deviceids, (const char *const *)c->must_include_deviceids,
			(int)c->n_must_include_deviceids, size, pick);
		cr[i].deviceids = (char **)pick;	/* borrowed from q until packed */
	}
	out.n_container_responses = q->n_container_requests;
	out.container_responses = crp;
	*resp = rn_grpc_pb_pack(&out.base);
out:
	for (size_t i = 0; cr && i < q->n_container_requests; i++)
		free(cr[i].deviceids);
	free(cr);
	free(crp);
	protobuf_c_message_free_unpacked(&q->base, NULL);
	return st;
}

struct container_mem {
	struct rn_dp_alloc a;
	V1beta1__ContainerAllocateResponse cr;
	V1beta1__DeviceSpec *specs;
	V1beta1__DeviceSpec **specp;
	V1beta1__CDIDevice cdi[RN_DP_MAX_HCAS];
	V1beta1__CDIDevice *cdip[RN_DP_MAX_HCAS];
	V1beta1__ContainerAllocateResponse__EnvsEntry env, *envp[1];
	V1beta1__ContainerAllocateResponse__AnnotationsEntry ann, *annp[1];
	char annot_key[128];
	char annot_val[RN_DP_MAX_HCAS * 80];
};

/* one container's answer; every string points into m, which outlives the pack */
static int container_answer(struct dp_res *r, struct container_mem *m)
{
	V1beta1__ContainerAllocateResponse *cr = &m->cr;
	const struct rn_dp_alloc *a = &m->a;
	size_t off = 0;

	v1beta1__container_allocate_response__init(cr);
	m->specs = calloc((size_t)a->n_specs + 1, sizeof(*m->specs));
	m->specp = calloc((size_t)a->n_specs + 1, sizeof(*m->specp));
	if (!m->specs || !m->specp)
		return -1;
	for (int i = 0; i < a->n_specs; i++) {
		v1beta1__device_spec__init(&m->specs[i]);
		m->specs[i].host_path = (char *)a->specs[i].host_path;
		m->specs[i].container_path = (char *)a->specs[i].container_path;
		m->specs[i].permissions = (char *)a->specs[i].permissions;
		m->specp[i] = &m->specs[i];
	}
	cr->n_devices = (size_t)a->n_specs;
	cr->devices = m->specp;
	v1beta1__container_allocate_response__envs_entry__init(&m->env);
	m->env.key = (char *)a->env_name;
	m->env.value = (char *)a->env_value;
	m->envp[0] = &m->env;
	cr->envs = m->envp;
	cr->n_envs = 1;
	if (!r->srv->cfg.cdi || !a->n_cdi)
		return 0;
	for (int i = 0; i < a->n_cdi; i++) {
		v1beta1__cdidevice__init(&m->cdi[i]);
		m->cdi[i].name = (char *)a->cdi_names[i];
		m->cdip[i] = &m->cdi[i];
		off += (size_t)snprintf(m->annot_val + off,
					off < sizeof(m->annot_val) ? sizeof(m->annot_val) - off : 0,
					"%s%s", i ? "," : "", a->cdi_names[i]);
	}
	cr->n_cdi_devices = (size_t)a->n_cdi;
	cr->cdi_devices = m->cdip;
	/* runtimes older than the CRI CDI field read the annotation */
	rn_dp_cdi_annotation_key(&r->rc, m->annot_key, sizeof(m->annot_key));
	v1beta1__container_allocate_response__annotations_entry__init(&m->ann);
	m->ann.key = m->annot_key;
	m->ann.value = m->annot_val;
	m->annp[0] = &m->ann;
	cr->annotations = m->annp;
	cr->n_annotations = 1;
	return 0;
}

static grpc_status_code allocate(struct dp_res *r, grpc_byte_buffer *req, grpc_byte_buffer **resp,
				 char *err, size_t esz)
{
	V1beta1__AllocateRequest *q = (V1beta1__AllocateRequest *)
		rn_grpc_pb_unpack(&v1beta1__allocate_request__descriptor, req);
	V1beta1__AllocateResponse out = V1BETA1__ALLOCATE_RESPONSE__INIT;
	V1beta1__ContainerAllocateResponse **crp = NULL;
	struct container_mem *mem = NULL;
	grpc_status_code st = GRPC_STATUS_OK;
	struct rn_error e = { 0 };
	size_t n;

	if (!q) {
		snprintf(err, esz, "Allocate: undecodable request");
		return GRPC_STATUS_INVALID_ARGUMENT;
	}
	n = q->n_container_requests;
	mem = calloc(n + 1, sizeof(*mem));
	crp = calloc(n + 1, sizeof(*crp));
	if (!mem || !crp) {
		snprintf(err, esz, "out of memory");
		st = GRPC_STATUS_RESOURCE_EXHAUSTED;
		goto out;
	}
	if (!r->srv->have_model) {
		snprintf(err, esz, "%s: the RDMA device model could not be read", r->view.resource);
		st = GRPC_STATUS_UNAVAILABLE;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		V1beta1__ContainerAllocateRequest *c = q->container_requests[i];

		if (rn_dp_allocate(&r->view, &r->srv->model, (const char *const *)c->devices_ids,
				   (int)c->n_devices_ids, &mem[i].a, &e)) {
			snprintf(err, esz, "%s", e.msg);
			st = GRPC_STATUS_FAILED_PRECONDITION;
			goto out;
		}
		if (container_answer(r, &mem[i])) {
			snprintf(err, esz, "out of memory");
			st = GRPC_STATUS_RESOURCE_EXHAUSTED;
			goto out;
		}
		crp[i] = &mem[i].cr;
	}
	out.n_container_responses = n;
	out.container_responses = crp;
	*resp = rn_grpc_pb_pack(&out.base);
out:
	for (size_t i = 0; mem && i < n; i++) {
		rn_dp_alloc_free(&mem[i].a);
		free(mem[i].specs);
		free(mem[i].specp);
	}
	free(mem);
	free(crp);
	protobuf_c_message_free_unpacked(&q->base, NULL);
	return st;
}

/* kubelet's verdict on the watcher's registration of a resource */
static void registered(void *ctx, bool ok, const char *error)
{
	struct dp_res *r = ctx;

	if (ok) {
		r->registrations++;
		rn_info("device plugin %s: registered with kubelet (plugin watcher)",
			r->view.resource);
	} else {
		rn_err("device plugin %s: kubelet refused the registration: %s", r->view.resource,
		       error[0] ? error : "(no reason given)");
	}
}

static grpc_status_code registration(struct dp_res *r, const char *method, grpc_byte_buffer *req,
				     grpc_byte_buffer **resp, char *err, size_t esz)
{
	static const char *const versions[] = { RN_DP_API_VERSION };
	const struct rn_pluginreg reg = {
		.type = "DevicePlugin", .name = r->view.resource, .endpoint = r->ep.path,
		.versions = versions, .n_versions = 1, .on_status = registered, .ctx = r,
	};

	return rn_pluginreg_unary(&reg, method, req, resp, err, esz);
}

grpc_status_code dp_rpc_unary(struct dp_res *r, const char *method, grpc_byte_buffer *req,
			      grpc_byte_buffer **resp, char *err, size_t esz)
{
	*resp = NULL;
	if (!strcmp(method, DP "GetDevicePluginOptions"))
		return options(resp);
	if (!strcmp(method, DP "GetPreferredAllocation"))
		return preferred(r, req, resp, err, esz);
	if (!strcmp(method, DP "Allocate"))
		return allocate(r, req, resp, err, esz);
	if (!strcmp(method, DP "PreStartContainer")) {
		V1beta1__PreStartContainerResponse o = V1BETA1__PRE_START_CONTAINER_RESPONSE__INIT;

		*resp = rn_grpc_pb_pack(&o.base);
		return GRPC_STATUS_OK;
	}
	if (r->srv->watcher && rn_pluginreg_method(method))
		return registration(r, method, req, resp, err, esz);
	snprintf(err, esz, "unknown method %s", method);
	return GRPC_STATUS_UNIMPLEMENTED;
}
