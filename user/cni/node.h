/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The node agent's config file, which the plugin reads for the IPAM store,
 * the pools and the pin dir, so a network attachment stays a few lines. */
#ifndef RDMANET_CNI_NODE_H
#define RDMANET_CNI_NODE_H

#include "cni_error.h"
#include "config.h"
#include "netconf.h"
#include "ipam/ipam.h"

/* The default file missing means defaults; a file the config names
 * explicitly must exist. Errors are code 7. */
int cni_node_load(const struct cni_netconf *c, struct rn_config *cfg, struct cni_err *err);
/* The pin dir when the config cannot be loaded as a whole: bpf.pin_dir if
 * the file is still JSON naming an absolute path there, else the default. */
void cni_node_pin_dir_fallback(const struct cni_netconf *c, char *out, size_t size);
/* Code 11 when the store does not answer within its timeout. */
int cni_ipam_open(const struct rn_config *cfg, struct rn_ipam **ipam, struct cni_err *err);

#endif
