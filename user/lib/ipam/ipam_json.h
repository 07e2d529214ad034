/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* JSON forms of IPAM objects, shared by rdmanetctl and the CNI plugin. */
#ifndef RDMANET_IPAM_JSON_H
#define RDMANET_IPAM_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "error.h"
#include "ipam/ipam.h"

#define RN_IPAM_TIME_STRLEN 32

/* {"pool","ip","container_id","ifname","namespace","pod","node","created"} */
json_t *rn_ipam_allocation_to_json(const struct rn_ipam_allocation *a);
/* The pool's JSON plus "total", "allocated", "free", "from_config". */
json_t *rn_ipam_pool_info_to_json(const struct rn_ipam_pool_info *p);
/* "2026-01-31T12:00:00Z" */
const char *rn_ipam_time_format(int64_t t, char buf[RN_IPAM_TIME_STRLEN]);

/* Valid attachments for GC: an array of {"containerID","ifname"} objects,
 * or an object carrying one under "cni.dev/valid-attachments" or
 * "cni.dev/attachments" (the CNI GC forms). The strings point into v:
 * keep v alive while *out is used; free(*out). */
int rn_ipam_owners_from_json(json_t *v, struct rn_ipam_owner **out, size_t *n,
			     struct rn_error *e);

#endif
