/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* kubelet's plugin watcher, the plugin's side, the module's whole
 * interface. A plugin puts a socket in kubelet's plugins_registry that
 * serves pluginregistration.Registration (api/pluginregistration_v1.proto):
 * kubelet asks GetInfo (what the plugin is, where its service listens, which
 * versions it speaks), then says with NotifyRegistrationStatus whether it
 * took the plugin. The device plugin (watcher mode) and the DRA driver both
 * answer it; each keeps its own gRPC endpoint and passes the Registration
 * methods here. */
#ifndef RDMANET_PLUGINREG_H
#define RDMANET_PLUGINREG_H

#include <stdbool.h>
#include <stddef.h>

#include "grpcrt/grpcrt.h"

struct rn_pluginreg {
	const char *type;		/* "DevicePlugin", "DRAPlugin" */
	const char *name;		/* the resource or the driver */
	const char *endpoint;		/* the socket of the plugin's own service */
	const char *const *versions;	/* preferred first */
	size_t n_versions;
	/* kubelet's verdict: REGISTERED, or not with kubelet's ERROR ("" if it
	 * gave none); called on the endpoint's thread */
	void (*on_status)(void *ctx, bool registered, const char *error);
	void *ctx;
};

/* true for a method path of the Registration service */
bool rn_pluginreg_method(const char *method);

/* Answers a Registration METHOD for P: GetInfo from P's fields,
 * NotifyRegistrationStatus through P's on_status (a status that does not
 * decode counts as refused). A method of another service: UNIMPLEMENTED,
 * ERR says which. */
grpc_status_code rn_pluginreg_unary(const struct rn_pluginreg *p, const char *method,
				    grpc_byte_buffer *req, grpc_byte_buffer **resp,
				    char *err, size_t esz);

#endif
