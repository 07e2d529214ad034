/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Registering pod interfaces in the data path: the one code path used by
 * `rdmanetctl pod add|del` and the CNI plugin. */
#ifndef RDMANET_REGISTRY_H
#define RDMANET_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>
#include <rdmanet/pod.h>

#include "error.h"
#include "maps.h"
#include "netaddr.h"

#define RN_POD_MAX_IPS (RN_POD_MAX_IPV4 + RN_POD_MAX_IPV6)

struct rn_pod_spec {
	char ns[RN_NS_LEN];
	char name[RN_POD_NAME_LEN];
	char container_id[RN_CONTAINER_ID_LEN];
	char ifname[RN_IFNAMSIZ];
	char master[RN_IFNAMSIZ];
	uint8_t mac[6];
	struct rn_addr ips[RN_POD_MAX_IPS];
	int n_ips;
	int dscp;		/* -1: the master's */
	bool ip_keyed;		/* found by IP (ipvlan shares the master's MAC) */
};

/* One registered pod interface as read back from the maps. */
struct rn_pod_entry {
	__u32 slot;
	struct rn_pod pod;
	struct rn_pod_meta meta;
	char master[RN_IFNAMSIZ];
};

/* Checks a spec without touching the maps (lengths, IP counts, DSCP). */
int rn_pod_spec_check(const struct rn_pod_spec *s, struct rn_error *e);

/* Registers (or re-registers, replacing) the pod interface identified by
 * container id and ifname. Counters of a new registration start at zero.
 * Fails, changing nothing, if its MAC (or IP, when IP-keyed) is already
 * registered on that master by another interface. */
int rn_registry_add(const char *pin_dir, const struct rn_pod_spec *s, struct rn_error *e);
/* rn_registry_add that also gives the slot it registered in (*slot; may be
 * NULL), so that a caller attaching the per-pod program next need not read
 * the whole registry again to find it. */
int rn_registry_add_slot(const char *pin_dir, const struct rn_pod_spec *s, __u32 *slot,
			 struct rn_error *e);
/* Idempotent: removing what is not registered succeeds. *removed (may be
 * NULL) tells whether an entry was there. */
int rn_registry_del(const char *pin_dir, const char *container_id, const char *ifname,
		    bool *removed, struct rn_error *e);
/* All registered pod interfaces, sorted by namespace, pod, ifname. */
int rn_registry_list(const struct rn_maps *m, struct rn_pod_entry **out, int *n,
		     struct rn_error *e);
/* Writes a pod into a slot (counters zeroed if fresh) and publishes its
 * keys, without locking or slot search: the building block of
 * rn_registry_add, used directly by the BPF fixtures on unpinned maps. */
int rn_registry_publish(const struct rn_maps *m, const struct rn_pod_spec *s, __u16 master,
			__u32 slot, bool fresh, struct rn_error *e);
/* Unregisters one slot without taking the registry lock (the caller holds
 * it, or is the agent releasing a master). */
void rn_registry_remove_slot(const struct rn_maps *m, __u32 slot);
/* Finds the slot of (container_id, ifname); -ENOENT if none. */
int rn_registry_find(const struct rn_maps *m, const char *container_id, const char *ifname);

#endif
