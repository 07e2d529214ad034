// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pluginregistration.Registration: the two methods kubelet's plugin
 * watcher calls on a plugin's registration socket. */
#include <stdio.h>
#include <string.h>

#include "pluginreg/pluginreg.h"
#include "pluginreg/pluginregistration_v1.pb-c.h"

#define REG "/pluginregistration.Registration/"

bool rn_pluginreg_method(const char *method)
{
	return !strncmp(method, REG, strlen(REG));
}

static grpc_status_code get_info(const struct rn_pluginreg *p, grpc_byte_buffer **resp)
{
	Pluginregistration__PluginInfo o = PLUGINREGISTRATION__PLUGIN_INFO__INIT;

	o.type = (char *)p->type;
	o.name = (char *)p->name;
	o.endpoint = (char *)p->endpoint;
	o.n_supported_versions = p->n_versions;
	o.supported_versions = (char **)p->versions;
	*resp = rn_grpc_pb_pack(&o.base);
	return GRPC_STATUS_OK;
}

static grpc_status_code notify(const struct rn_pluginreg *p, grpc_byte_buffer *req,
			       grpc_byte_buffer **resp)
{
	Pluginregistration__RegistrationStatus *q = (Pluginregistration__RegistrationStatus *)
		rn_grpc_pb_unpack(&pluginregistration__registration_status__descriptor, req);
	Pluginregistration__RegistrationStatusResponse o =
		PLUGINREGISTRATION__REGISTRATION_STATUS_RESPONSE__INIT;

	/* a status that does not decode is no registration */
	p->on_status(p->ctx, q && q->plugin_registered, q && q->error ? q->error : "");
	if (q)
		protobuf_c_message_free_unpacked(&q->base, NULL);
	*resp = rn_grpc_pb_pack(&o.base);
	return GRPC_STATUS_OK;
}

grpc_status_code rn_pluginreg_unary(const struct rn_pluginreg *p, const char *method,
				    grpc_byte_buffer *req, grpc_byte_buffer **resp,
				    char *err, size_t esz)
{
	*resp = NULL;
	if (!strcmp(method, REG "GetInfo"))
		return get_info(p, resp);
	if (!strcmp(method, REG "NotifyRegistrationStatus"))
		return notify(p, req, resp);
	snprintf(err, esz, "unknown method %s", method);
	return GRPC_STATUS_UNIMPLEMENTED;
}
