/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Registration of the pod interface in rdmanetd's pinned maps (MAC, IPs,
 * master, DSCP; IP-keyed for ipvlan, whose children share the master's
 * MAC). Without the agent's maps the attachment still works, unaccounted:
 * STATUS says so. */
#ifndef RDMANET_CNI_POD_DATAPATH_H
#define RDMANET_CNI_POD_DATAPATH_H

#include <stdbool.h>

#include "error.h"
#include "datapath/datapath.h"

/* The maps are pinned under pin_dir (rdmanetd has run). */
bool cni_datapath_present(const char *pin_dir);
/* 0 registered, in *slot; 1 skipped: the maps are absent, or rdmanetd
 * does not run the data path on this master (e holds why); < 0 error.
 * *slot is -1 unless registered. */
int cni_datapath_register(const char *pin_dir, const struct rn_pod_spec *s, int *slot,
			  struct rn_error *e);
/* 1 if rdmanetd has the data path attached to master, 0 if not (or no maps). */
int cni_datapath_master_attached(const char *pin_dir, const char *master);
struct cni_netns;
struct nl_sock;
/* Attaches rdmanetd's per-pod program to the pod interface registered in
 * slot (cni_datapath_register's; -1: not registered) at ifindex in the
 * netns ns (pod a netlink socket there), mode as the master's tc_mode.
 * 0 attached; 1 skipped (no program pinned, or the pod is not registered:
 * e holds why); < 0 error, nothing left attached. */
int cni_datapath_guard(const char *pin_dir, const struct cni_netns *ns, struct nl_sock *pod,
		       int slot, int ifindex, enum rn_tc_mode mode, struct rn_error *e);
/* Idempotent; absent maps are not an error. The per-pod program comes off
 * first. */
int cni_datapath_unregister(const char *pin_dir, const char *container_id, const char *ifname,
			    struct rn_error *e);
/* CHECK: the registration of (container id, ifname); -ENOENT if none. */
int cni_datapath_lookup(const char *pin_dir, const char *container_id, const char *ifname,
			struct rn_pod_entry *out, struct rn_error *e);

#endif
