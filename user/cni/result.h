/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The ADD result in the version the config asked for. With a prevResult
 * (a chained ADD), that result is passed through, fields we do not know
 * included, with this attachment appended. */
#ifndef RDMANET_CNI_RESULT_H
#define RDMANET_CNI_RESULT_H

#include <jansson.h>

#include "attachment.h"
#include "cni_error.h"
#include "netconf.h"

/* 0.4.0 adds ips[].version; 1.1.0 adds interfaces[].mtu and the routes'
 * table (routes of a policy table are only reported where the version can
 * say which table they are in). */
json_t *cni_result_build(const struct cni_netconf *c, const struct cni_attachment *a,
			 struct cni_err *err);

#endif
