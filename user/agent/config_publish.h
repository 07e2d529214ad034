/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The node's copy of the config: in Kubernetes the agent reads its
 * ConfigMap mount, while the CNI plugin (exec'd on the host by kubelet)
 * and rdmanetctl on the host read /etc/rdmanet/config.json. The agent
 * writes there each config it has loaded and applied, so the plugin reads
 * the live config, and never one the agent rejected. */
#ifndef RDMANET_AGENT_CONFIG_PUBLISH_H
#define RDMANET_AGENT_CONFIG_PUBLISH_H

#include <stddef.h>

/* Atomically (temporary file in the same directory, fsync, rename,
 * directory fsync) replaces path with text; a failure is logged. A text
 * without "node" gets the agent's node name (from RDMANET_NODE_NAME, the
 * pod's spec.nodeName): the plugin on the host has no other way to learn
 * the Kubernetes node name, and the host's name may differ from it. */
int rn_config_publish(const char *path, const char *text, size_t len, const char *node);

#endif
