// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* datapath/map_syscall.c against libbpf on real maps: what one writes the
 * other reads, the same errors with errno set, a pinned map opened by
 * path, a batch read to the end of an array, and the same count of
 * possible CPUs (the size of every per-CPU value). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "check.h"
#include "datapath/map_syscall.h"

#define N_ARRAY 40

static void elements(int hash, struct tap *tap)
{
	struct check c = { 0 };
	__u32 key = 7, other = 8;
	__u64 val = 0x1122334455667788ull, got = 0;

	CHECK_EQ(&c, "update a new key", rn_bpf_map_update(hash, &key, &val, BPF_NOEXIST), 0);
	CHECK_EQ(&c, "libbpf reads it", bpf_map_lookup_elem(hash, &key, &got), 0);
	CHECK_EQ(&c, "libbpf reads the value written", got, val);
	val = 42;
	CHECK_EQ(&c, "libbpf writes", bpf_map_update_elem(hash, &other, &val, BPF_ANY), 0);
	CHECK_EQ(&c, "lookup what libbpf wrote", rn_bpf_map_lookup(hash, &other, &got), 0);
	CHECK_EQ(&c, "the value libbpf wrote", got, 42);
	errno = 0;
	CHECK_EQ(&c, "update with BPF_NOEXIST over a key", rn_bpf_map_update(hash, &key, &val,
		 BPF_NOEXIST), -EEXIST);
	CHECK_EQ(&c, "errno after it", errno, EEXIST);
	CHECK_EQ(&c, "delete", rn_bpf_map_delete(hash, &key), 0);
	errno = 0;
	CHECK_EQ(&c, "lookup of the deleted key", rn_bpf_map_lookup(hash, &key, &got), -ENOENT);
	CHECK_EQ(&c, "errno after it", errno, ENOENT);
	CHECK_EQ(&c, "delete of a missing key", rn_bpf_map_delete(hash, &key), -ENOENT);
	CHECK_EQ(&c, "lookup on a closed fd", rn_bpf_map_lookup(-1, &key, &got), -EBADF);
	tap_report(tap, "elements: written by one, read by the other; errors as libbpf's", &c);
}

static void info_and_pin(int hash, struct tap *tap)
{
	char dir[] = "/sys/fs/bpf/rn_map_syscall_XXXXXX", path[128];
	struct bpf_map_info info;
	struct check c = { 0 };
	__u32 key = 8;
	__u64 got = 0;
	int fd;

	CHECK_EQ(&c, "map info", rn_bpf_map_info(hash, &info), 0);
	CHECK_EQ(&c, "key size", info.key_size, 4);
	CHECK_EQ(&c, "value size", info.value_size, 8);
	CHECK_EQ(&c, "max entries", info.max_entries, 16);
	CHECK_EQ(&c, "type", info.type, BPF_MAP_TYPE_HASH);
	CHECK_TRUE(&c, "a bpffs directory", mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/m", dir);
	CHECK_EQ(&c, "pin with libbpf", bpf_obj_pin(hash, path), 0);
	fd = rn_bpf_obj_get(path);
	CHECK_TRUE(&c, "open the pin", fd >= 0);
	CHECK_EQ(&c, "lookup through the pin", rn_bpf_map_lookup(fd, &key, &got), 0);
	CHECK_EQ(&c, "the value", got, 42);
	if (fd >= 0)
		close(fd);
	unlink(path);
	errno = 0;
	CHECK_EQ(&c, "open a missing pin", rn_bpf_obj_get(path), -ENOENT);
	CHECK_EQ(&c, "errno after it", errno, ENOENT);
	rmdir(dir);
	tap_report(tap, "map info and a pinned map opened by path", &c);
}

static void batch(struct tap *tap)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "rn_t_batch", 4, 8, N_ARRAY, NULL);
	__u32 keys[N_ARRAY], in = 0, out = 0, count, got = 0;
	__u64 vals[N_ARRAY];
	struct check c = { 0 };
	int rc = 0;

	CHECK_TRUE(&c, "create an array", fd >= 0);
	for (__u32 k = 0; k < N_ARRAY; k++) {
		__u64 v = 1000 + k;

		bpf_map_update_elem(fd, &k, &v, BPF_ANY);
	}
	/* chunks of 16: 16, 16, then 8 with -ENOENT (the end) */
	for (int round = 0; round < 4 && got < N_ARRAY; round++) {
		count = 16;
		rc = rn_bpf_map_lookup_batch(fd, got ? &in : NULL, &out, keys + got, vals + got,
					     &count);
		got += count;
		in = out;
		if (rc)
			break;
	}
	CHECK_EQ(&c, "the last batch ends the array", rc, -ENOENT);
	CHECK_EQ(&c, "entries read", got, N_ARRAY);
	for (__u32 k = 0; k < got; k++) {
		CHECK_EQ(&c, "key in order", keys[k], k);
		CHECK_EQ(&c, "its value", vals[k], 1000 + k);
	}
	if (fd >= 0)
		close(fd);
	tap_report(tap, "batch lookup to the end of an array", &c);
}

int main(void)
{
	struct tap tap = { 0 };
	struct check c = { 0 };
	int hash = bpf_map_create(BPF_MAP_TYPE_HASH, "rn_t_hash", 4, 8, 16, NULL);

	if (hash < 0) {
		printf("not ok 1 - create a hash map: %s\n1..1\n", strerror(errno));
		return 1;
	}
	elements(hash, &tap);
	info_and_pin(hash, &tap);
	batch(&tap);
	CHECK_EQ(&c, "possible CPUs", rn_possible_cpus(), libbpf_num_possible_cpus());
	CHECK_EQ(&c, "\"0\\n\"", rn_cpu_list_count("0\n"), 1);
	CHECK_EQ(&c, "\"0-3,5,7-8\\n\"", rn_cpu_list_count("0-3,5,7-8\n"), 7);
	CHECK_EQ(&c, "\"0-255\"", rn_cpu_list_count("0-255"), 256);
	CHECK_EQ(&c, "empty", rn_cpu_list_count("\n"), -EINVAL);
	CHECK_EQ(&c, "\"3-1\"", rn_cpu_list_count("3-1"), -EINVAL);
	CHECK_EQ(&c, "\"0-\"", rn_cpu_list_count("0-"), -EINVAL);
	CHECK_EQ(&c, "\"0;1\"", rn_cpu_list_count("0;1"), -EINVAL);
	CHECK_EQ(&c, "\"-1\"", rn_cpu_list_count("-1"), -EINVAL);
	tap_report(&tap, "possible CPUs counted as libbpf counts them; CPU lists parsed", &c);
	close(hash);
	return tap_finish(&tap);
}
