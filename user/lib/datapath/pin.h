/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The pin directory on bpffs: where maps and links outlive the agent, and
 * the two locks taken on it (like xdp-tools, flock on directories). */
#ifndef RDMANET_PIN_H
#define RDMANET_PIN_H

#include <stddef.h>

#include "error.h"

#define RN_PIN_LINKS "links"
#define RN_PIN_REGISTRY "registry"

/* Makes sure dir lies on a bpffs (mounting one at /sys/fs/bpf if nothing is
 * mounted there) and exists, with mode 0700: pinned maps are root-only. */
int rn_pin_dir_prepare(const char *dir, struct rn_error *e);
/* True if dir exists on a bpffs. */
int rn_pin_dir_exists(const char *dir);

/* One rdmanetd per pin dir: an exclusive, non-blocking flock on the dir.
 * Returns the held fd or a negative errno (-EWOULDBLOCK: another holds it). */
int rn_pin_lock_agent(const char *dir, struct rn_error *e);
/* Serializes registry changes (slot allocation) among rdmanetctl, the CNI
 * plugin and the agent: a blocking flock on dir/registry. Returns the fd. */
int rn_pin_lock_registry(const char *dir, struct rn_error *e);
/* The same lock shared, for readers: a stats snapshot (master totals, the
 * pod list and their counters) never sees a pod half unregistered. */
int rn_pin_lock_registry_shared(const char *dir, struct rn_error *e);
void rn_pin_unlock(int fd);

/* path = dir/name; fails if it does not fit. */
int rn_pin_path(char *path, size_t size, const char *dir, const char *name);

#endif
