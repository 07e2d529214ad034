/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The RDMA model as `rdmanetctl dev -j` and `rdmanetctl gid -j` print it. */
#ifndef RDMANET_RDMA_MODEL_JSON_H
#define RDMANET_RDMA_MODEL_JSON_H

#include <jansson.h>

#include "rdma/model.h"

/* { "netns_mode", "sources": [...], "verbs_devices", "notes": [...],
 *   "devices": [ { name, ..., "pci": {...} | null, "chardevs": [...],
 *                  "ports": [ {...} ] } ] }; dev NULL for all devices. */
json_t *rn_rdma_model_json(const struct rn_rdma_model *m, const char *dev);
/* { "source": "verbs"|"sysfs", "notes": [...], "gids": [ { device, port,
 *   index, gid, type, netdev, address } ] } */
json_t *rn_rdma_gids_json(const struct rn_rdma_model *m, const char *dev);
json_t *rn_rdma_gid_json(const struct rn_rdma_dev *d, const struct rn_rdma_port *p,
			 const struct rn_rdma_gid *g);

#endif
