// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "map_syscall.h"

#define POSSIBLE_CPUS "/sys/devices/system/cpu/possible"

int rn_sys_bpf(enum bpf_cmd cmd, union bpf_attr *attr)
{
	/* the whole union, zeroed past what is set: a kernel that knows fewer
	 * fields accepts a tail of zeros */
	long rc = syscall(__NR_bpf, cmd, attr, sizeof(*attr));

	return rc < 0 ? -errno : (int)rc;
}

int rn_bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = rn_bpf_ptr(path);
	return rn_sys_bpf(BPF_OBJ_GET, &a);
}

int rn_bpf_map_info(int fd, struct bpf_map_info *info)
{
	union bpf_attr a;
	int rc;

	memset(info, 0, sizeof(*info));
	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = fd;
	a.info.info_len = sizeof(*info);
	a.info.info = rn_bpf_ptr(info);
	rc = rn_sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
	return rc < 0 ? rc : 0;
}

static int map_elem(enum bpf_cmd cmd, int fd, const void *key, const void *value, __u64 flags)
{
	union bpf_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = rn_bpf_ptr(key);
	a.value = rn_bpf_ptr(value);
	a.flags = flags;
	rc = rn_sys_bpf(cmd, &a);
	return rc < 0 ? rc : 0;
}

int rn_bpf_map_lookup(int fd, const void *key, void *value)
{
	return map_elem(BPF_MAP_LOOKUP_ELEM, fd, key, value, 0);
}

int rn_bpf_map_update(int fd, const void *key, const void *value, __u64 flags)
{
	return map_elem(BPF_MAP_UPDATE_ELEM, fd, key, value, flags);
}

int rn_bpf_map_delete(int fd, const void *key)
{
	return map_elem(BPF_MAP_DELETE_ELEM, fd, key, NULL, 0);
}

int rn_bpf_map_next_key(int fd, const void *key, void *next)
{
	union bpf_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = rn_bpf_ptr(key);
	a.next_key = rn_bpf_ptr(next);
	rc = rn_sys_bpf(BPF_MAP_GET_NEXT_KEY, &a);
	return rc < 0 ? rc : 0;
}

int rn_bpf_map_lookup_batch(int fd, void *in_batch, void *out_batch, void *keys,
			    void *values, __u32 *count)
{
	union bpf_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	a.batch.map_fd = fd;
	a.batch.in_batch = rn_bpf_ptr(in_batch);
	a.batch.out_batch = rn_bpf_ptr(out_batch);
	a.batch.keys = rn_bpf_ptr(keys);
	a.batch.values = rn_bpf_ptr(values);
	a.batch.count = *count;
	rc = rn_sys_bpf(BPF_MAP_LOOKUP_BATCH, &a);
	*count = a.batch.count;
	return rc < 0 ? rc : 0;
}

int rn_cpu_list_count(const char *s)
{
	int n = 0;

	while (*s && *s != '\n') {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;

		if (end == s || lo < 0)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			hi = strtol(s + 1, &end, 10);
			if (end == s + 1 || hi < lo)
				return -EINVAL;
			s = end;
		}
		if (hi - lo + 1 > (1L << 20) - n)
			return -EINVAL;
		n += (int)(hi - lo + 1);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

int rn_possible_cpus(void)
{
	static int cached;
	char buf[4096];
	FILE *f;
	size_t len;

	if (cached > 0)
		return cached;
	f = fopen(POSSIBLE_CPUS, "re");
	if (!f)
		return -errno;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	cached = rn_cpu_list_count(buf);
	if (cached < 0)
		errno = -cached;
	return cached;
}
