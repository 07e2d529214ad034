/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The node agent's config file, which the plugin reads for the IPAM store,
 * the pools, the pin dir and its own state dir, so a network attachment
 * stays a few lines.
 *
 * Host paths come only from the node, never from the network config (a
 * NetworkAttachmentDefinition, which namespace tenants write, while the
 * plugin runs as root on the host): the config file is RDMANET_CONFIG in
 * the runtime's environment (default /etc/rdmanet/config.json), the state
 * dir that file's cni.state_dir. A network config may still carry
 * "configFile"/"stateDir" naming exactly those (older NADs do); any other
 * value is refused. Errors never quote the file's content: they reach pod
 * events, which tenants read. */
#ifndef RDMANET_CNI_NODE_CONFIG_H
#define RDMANET_CNI_NODE_CONFIG_H

#include "cmd.h"
#include "cni_error.h"
#include "config.h"
#include "netconf.h"
#include "ipam/ipam.h"

/* Fills r->conf.config_file and r->conf.state_dir from the node side. The
 * default file missing means defaults; a file RDMANET_CONFIG names must
 * exist. Errors are code 7 (DEL only warns about a network config naming
 * other paths: it cleans up with the node's). With the etcd store, the
 * static plugin hands the request to rdmanet-etcd here (handoff.h). */
int cni_node_load(struct cni_req *r, struct rn_config *cfg);
/* When the config cannot be loaded as a whole: bpf.pin_dir and
 * cni.state_dir if the file is still JSON naming absolute paths there,
 * else the defaults. */
void cni_node_fallback(const struct cni_netconf *c, char *pin_dir, size_t pin_size,
		       char *state_dir, size_t state_size);
/* The node's path for the plugin's config file (r->env, else the default). */
void cni_node_config_path(struct cni_req *r);
/* A network's "dscp" must be one of the node's cni.allowed_dscp: tenants
 * must not pick the CNP class or the switch's lossless classes. Code 7,
 * naming the allowed set. */
int cni_node_check_dscp(struct cni_req *r, const struct rn_config *cfg);
/* Code 11 when the store does not answer within its timeout. */
int cni_ipam_open(const struct rn_config *cfg, struct rn_ipam **ipam, struct cni_err *err);

#endif
