/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The bpf(2) map commands the registry, the map reader and the stats use
 * (the data path's part in the CNI plugin and the CLI), as thin wrappers
 * of the syscall.
 *
 * libbpf has the same wrappers, but its bpf.o refers to its logging, which
 * lives in the object loader, so calling one of them links the whole
 * loader and with it libelf, zlib and zstd. The CNI plugin only reads and
 * writes pinned maps; linked without libbpf it starts faster (it is exec'd
 * for every ADD and DEL) and needs no ELF libraries on the host. Loading
 * and attaching (attach_*.c) and the agent's own map writes stay with
 * libbpf, which the agent links anyway.
 *
 * Each returns 0 (rn_bpf_obj_get: the fd) or a negative errno, with errno
 * set, as libbpf's do. */
#ifndef RDMANET_DATAPATH_MAP_SYSCALL_H
#define RDMANET_DATAPATH_MAP_SYSCALL_H

#include <linux/bpf.h>

/* bpf(2) with the whole attr union (link_syscall.c shares it). */
int rn_sys_bpf(enum bpf_cmd cmd, union bpf_attr *attr);
static inline __u64 rn_bpf_ptr(const void *p)
{
	return (__u64)(unsigned long)p;
}

int rn_bpf_obj_get(const char *path);
int rn_bpf_map_info(int fd, struct bpf_map_info *info);
int rn_bpf_map_lookup(int fd, const void *key, void *value);
int rn_bpf_map_update(int fd, const void *key, const void *value, __u64 flags);
int rn_bpf_map_delete(int fd, const void *key);
/* BPF_MAP_GET_NEXT_KEY: key NULL starts at the first; -ENOENT after the last. */
int rn_bpf_map_next_key(int fd, const void *key, void *next);
/* BPF_MAP_LOOKUP_BATCH: in_batch NULL starts at the beginning; *count is
 * the room in keys/values before, the entries returned after (also when
 * the answer is -ENOENT: the last batch). */
int rn_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
			    void *values, __u32 *count);
/* The possible CPUs (/sys/devices/system/cpu/possible), which size every
 * per-CPU map value; a negative errno if it cannot be read or parsed. */
int rn_possible_cpus(void);
/* The CPUs a kernel CPU list names ("0-3,5,7-8\n": 7), or -EINVAL. */
int rn_cpu_list_count(const char *list);

#endif
