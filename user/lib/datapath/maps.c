// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "map_syscall.h"
#include "maps.h"
#include "pin.h"
#include <rdmanet/pod_index.h>

const char *const rn_map_names[RN_N_MAPS] = {
	"rn_masters_v1", "rn_mst_ctr_v1", "rn_pods_v1", "rn_pod_ips_v1",
	"rn_pod_info_v1", "rn_pod_ctr_v1", "rn_pod_meta_v1", "rn_pod_idx_v1",
	"rn_pod_ovf_v1", "rn_mst_ret_v1",
};

static int *map_field(struct rn_maps *m, int i)
{
	int *fields[] = { &m->masters, &m->mst_ctr, &m->pods, &m->pod_ips,
			  &m->pod_info, &m->pod_ctr, &m->pod_meta, &m->pod_idx, &m->pod_ovf,
			  &m->mst_ret };

	return fields[i];
}

void rn_maps_close(struct rn_maps *m)
{
	for (int i = 0; i < RN_N_MAPS; i++) {
		int *fd = map_field(m, i);

		if (*fd > 0)
			close(*fd);
		*fd = -1;
	}
	if (m->pod_rsn > 0)
		close(m->pod_rsn);
	m->pod_rsn = -1;
}

int rn_maps_open(struct rn_maps *m, const char *pin_dir, struct rn_error *e)
{
	struct bpf_map_info info;
	char path[PATH_MAX];

	memset(m, 0, sizeof(*m));
	for (int i = 0; i < RN_N_MAPS; i++)
		*map_field(m, i) = -1;
	m->pod_rsn = -1;
	for (int i = 0; i < RN_N_MAPS; i++) {
		int fd;

		if (rn_pin_path(path, sizeof(path), pin_dir, rn_map_names[i]))
			return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
		fd = rn_bpf_obj_get(path);
		if (fd < 0) {
			int err = -errno;

			rn_maps_close(m);
			/* the CNI plugin and the CLI of a new build beside an old
			 * build's data path: say that, not "not running" */
			if (err == -ENOENT && rn_maps_layout_check(pin_dir, e))
				return err;
			if (err == -ENOENT)
				return rn_fail(e, err, "%s is not pinned: is rdmanetd running?", path);
			return rn_fail(e, err, "open %s: %s", path, strerror(-err));
		}
		*map_field(m, i) = fd;
	}
	if (rn_bpf_map_info(m->pod_info, &info)) {
		int err = -errno;

		rn_maps_close(m);
		return rn_fail(e, err, "bpf map info: %s", strerror(-err));
	}
	m->max_pods = info.max_entries;
	m->ncpus = rn_possible_cpus();
	if (m->ncpus <= 0) {
		rn_maps_close(m);
		return rn_fail(e, -EINVAL, "cannot count possible CPUs");
	}
	if (!rn_pin_path(path, sizeof(path), pin_dir, "rn_pod_rsn_v1"))
		m->pod_rsn = rn_bpf_obj_get(path);
	return 0;
}

/* A map pin of any layout version: rn_<name>_v<digits>. */
static bool is_versioned_map_pin(const char *name)
{
	const char *v = strrchr(name, '_');

	if (strncmp(name, "rn_", 3) || !v || v == name + 2 || v[1] != 'v' || !v[2])
		return false;
	for (v += 2; *v; v++)
		if (*v < '0' || *v > '9')
			return false;
	return true;
}

/* The length of name without its "_v<N>" suffix. */
static size_t base_len(const char *name)
{
	return (size_t)(strrchr(name, '_') - name);
}

int rn_maps_layout_check(const char *pin_dir, struct rn_error *e)
{
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir(pin_dir);
	if (!d)
		return errno == ENOENT ? 0 : rn_fail(e, -errno, "open %s: %s", pin_dir,
						      strerror(errno));
	while (!err && (de = readdir(d))) {
		size_t n;

		if (!is_versioned_map_pin(de->d_name))
			continue;
		n = base_len(de->d_name);
		for (int i = 0; i < RN_N_MAPS && !err; i++) {
			if (base_len(rn_map_names[i]) != n ||
			    strncmp(de->d_name, rn_map_names[i], n) ||
			    !strcmp(de->d_name, rn_map_names[i]))
				continue;
			err = rn_fail(e, -EPROTO, "%s/%s is a map of another layout than this "
				      "build's %s: the programs attached now use it and would not "
				      "see pods registered by this build. Stop, run `rdmanetd "
				      "--uninstall` (of this build or that one), start this build "
				      "and register the pods again (counters start from zero)",
				      pin_dir, de->d_name, rn_map_names[i]);
		}
	}
	closedir(d);
	return err;
}

int rn_maps_unpin(const char *pin_dir, struct rn_error *e)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	for (int i = 0; i < RN_N_MAPS; i++) {
		if (rn_pin_path(path, sizeof(path), pin_dir, rn_map_names[i]))
			return rn_fail(e, -ENAMETOOLONG, "pin dir %s: path too long", pin_dir);
		if (unlink(path) && errno != ENOENT)
			return rn_fail(e, -errno, "unlink %s: %s", path, strerror(errno));
	}
	/* pins of other layout versions, left by an older or newer build:
	 * nothing but an rdmanet map is named like one */
	d = opendir(pin_dir);
	if (!d)
		return errno == ENOENT ? 0 : rn_fail(e, -errno, "open %s: %s", pin_dir,
						      strerror(errno));
	while ((de = readdir(d))) {
		if (!is_versioned_map_pin(de->d_name) ||
		    rn_pin_path(path, sizeof(path), pin_dir, de->d_name))
			continue;
		if (unlink(path) && errno != ENOENT) {
			int err = -errno;

			closedir(d);
			return rn_fail(e, err, "unlink %s: %s", path, strerror(-err));
		}
	}
	closedir(d);
	return 0;
}

int rn_maps_percpu_sum(const struct rn_maps *m, int fd, __u32 key, void *out, size_t value_size)
{
	size_t words = value_size / sizeof(__u64);
	__u64 *all = calloc((size_t)m->ncpus, value_size), *sum = out;

	if (!all)
		return -ENOMEM;
	if (rn_bpf_map_lookup(fd, &key, all)) {
		int err = -errno;

		free(all);
		return err;
	}
	memset(out, 0, value_size);
	for (int cpu = 0; cpu < m->ncpus; cpu++)
		for (size_t w = 0; w < words; w++)
			sum[w] += all[(size_t)cpu * words + w];
	free(all);
	return 0;
}

int rn_master_get(const struct rn_maps *m, __u32 slot, struct rn_master *out)
{
	if (rn_bpf_map_lookup(m->masters, &slot, out))
		return -errno;
	return 0;
}

int rn_master_find(const struct rn_maps *m, const char *ifname)
{
	struct rn_master ms;

	for (__u32 slot = 0; slot < RN_MAX_MASTERS; slot++) {
		if (rn_master_get(m, slot, &ms))
			continue;
		if ((ms.flags & RN_MASTER_F_IN_USE) &&
		    !strncmp(ms.ifname, ifname, sizeof(ms.ifname)))
			return (int)slot;
	}
	return -ENOENT;
}

int rn_pod_lookup_key(const struct rn_maps *m, const struct rn_pod_key *key, __u32 *slot)
{
	__u64 bits = rn_pod_key_bits(key);
	__u32 bucket = rn_pod_index_bucket(bits), ovf = 0;

	for (__u32 way = 0; way < RN_POD_INDEX_WAYS; way++) {
		__u32 idx = bucket * RN_POD_INDEX_WAYS + way;
		struct rn_pod_index_entry ent;

		if (!rn_bpf_map_lookup(m->pod_idx, &idx, &ent) && ent.used && ent.key == bits) {
			*slot = ent.slot;
			return 0;
		}
	}
	if (!rn_bpf_map_lookup(m->pod_ovf, &bucket, &ovf) && ovf &&
	    !rn_bpf_map_lookup(m->pods, key, slot))
		return 0;
	return -ENOENT;
}

int rn_maps_dump(int fd, void *keys, size_t key_size, void *values, size_t value_size,
		 __u32 max)
{
	__u64 token = 0;
	__u32 got = 0;
	bool first = true;

	while (got < max) {
		__u32 count = max - got;
		int err = rn_bpf_map_lookup_batch(fd, first ? NULL : &token, &token,
						  (char *)keys + got * key_size,
						  (char *)values + got * value_size, &count);

		got += count;
		first = false;
		if (err) {
			if (errno == ENOENT)
				break;	/* the end of the map, count is valid */
			return -errno;
		}
	}
	return (int)got;
}
