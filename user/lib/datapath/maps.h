/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* File descriptors of the pinned data-path maps. */
#ifndef RDMANET_MAPS_H
#define RDMANET_MAPS_H

#include <rdmanet/master.h>
#include <rdmanet/pod.h>

#include "error.h"

struct rn_maps {
	int masters;		/* rn_masters_v1 */
	int mst_ctr;		/* rn_mst_ctr_v1 */
	int pods;		/* rn_pods_v1 */
	int pod_ips;		/* rn_pod_ips_v1 */
	int pod_info;		/* rn_pod_info_v1 */
	int pod_ctr;		/* rn_pod_ctr_v1 */
	int pod_meta;		/* rn_pod_meta_v1 */
	int pod_idx;		/* rn_pod_idx_v1 */
	int pod_ovf;		/* rn_pod_ovf_v1 */
	int mst_ret;		/* rn_mst_ret_v1 */
	/* rn_pod_rsn_v1 (per-pod program refusals, pod_guard.h): -1 where
	 * the agent pinned none; not in rn_map_names, nothing needs it */
	int pod_rsn;
	unsigned int max_pods;	/* entries of the pinned pod maps */
	int ncpus;		/* possible CPUs: per-CPU value count */
};

/* Map names as pinned; their order matches the fields above. */
#define RN_N_MAPS 10
extern const char *const rn_map_names[RN_N_MAPS];

/* Opens every pinned map under pin_dir. Fails with a hint to start
 * rdmanetd if they are not there. */
int rn_maps_open(struct rn_maps *m, const char *pin_dir, struct rn_error *e);
void rn_maps_close(struct rn_maps *m);
/* Fails with one line saying what to do if pin_dir holds one of our maps
 * in another layout version (rn_pods_v2 where this build has rn_pods_v1):
 * an agent of that build attached programs that use those maps, and this
 * build cannot carry them over. */
int rn_maps_layout_check(const char *pin_dir, struct rn_error *e);
/* Removes the pins of this build's maps and of every other layout version
 * (rn_<name>_v<N>) in pin_dir (maps live on while programs hold them). */
int rn_maps_unpin(const char *pin_dir, struct rn_error *e);

/* Per-CPU values summed over CPUs into out, read with one lookup.
 * value_size is sizeof the struct, which must be a multiple of 8 bytes
 * of __u64 counters. */
int rn_maps_percpu_sum(const struct rn_maps *m, int fd, __u32 key, void *out, size_t value_size);

/* The pod slot of (MAC, master): index first, then the overflow hash. */
int rn_pod_lookup_key(const struct rn_maps *m, const struct rn_pod_key *key, __u32 *slot);

/* Reads up to max entries with BPF_MAP_LOOKUP_BATCH (a few syscalls for
 * the whole map instead of two per entry). value_size is per entry (for a
 * per-CPU map: the per-CPU size times ncpus). Returns the count read or a
 * negative errno. */
int rn_maps_dump(int fd, void *keys, size_t key_size, void *values, size_t value_size,
		 __u32 max);

int rn_master_get(const struct rn_maps *m, __u32 slot, struct rn_master *out);
/* Slot of the in-use master named ifname, or -ENOENT. */
int rn_master_find(const struct rn_maps *m, const char *ifname);

#endif
