// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "dp_env.h"
#include "tc_egress.skel.h"

int dp_env_open(struct dp_env *env)
{
	int *fds[] = { &env->m.masters, &env->m.mst_ctr, &env->m.pods, &env->m.pod_ips,
		       &env->m.pod_info, &env->m.pod_ctr, &env->m.pod_meta, &env->m.pod_idx,
		       &env->m.pod_ovf, &env->m.mst_ret };
	struct bpf_map *map;

	memset(env, 0, sizeof(*env));
	env->maps_obj = tc_egress__open();
	if (!env->maps_obj)
		return -errno;
	bpf_object__for_each_map(map, env->maps_obj->obj)
		bpf_map__set_pin_path(map, NULL);
	bpf_program__set_autoload(env->maps_obj->progs.rn_tc_egress, false);
	if (tc_egress__load(env->maps_obj))
		return -EINVAL;
	for (int i = 0; i < RN_N_MAPS; i++) {
		map = bpf_object__find_map_by_name(env->maps_obj->obj, rn_map_names[i]);
		*fds[i] = map ? bpf_map__fd(map) : -1;
		if (*fds[i] < 0)
			return -ENOENT;
	}
	env->m.max_pods = 8;
	env->m.ncpus = libbpf_num_possible_cpus();
	return 0;
}

int dp_env_share(struct dp_env *env, struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		struct bpf_map *mine = bpf_object__find_map_by_name(env->maps_obj->obj,
								    bpf_map__name(map));

		bpf_map__set_pin_path(map, NULL);
		if (mine && bpf_map__reuse_fd(map, bpf_map__fd(mine)))
			return -errno;
	}
	return 0;
}

void dp_env_close(struct dp_env *env)
{
	tc_egress__destroy(env->maps_obj);
	env->maps_obj = NULL;
}

void dp_env_master(struct dp_env *env, enum rn_policy policy, enum rn_ecn_mode ecn,
		   __u8 dscp_roce, __u8 dscp_cnp, __u32 mtu, enum rn_xdp_state xdp)
{
	struct rn_master ms = {
		.ifindex = 1, .mtu = mtu, .policy = (__u8)policy, .ecn = (__u8)ecn,
		.dscp_roce = dscp_roce, .dscp_cnp = dscp_cnp, .xdp = (__u8)xdp,
		.tc = RN_TC_TCX, .flags = RN_MASTER_F_IN_USE | RN_MASTER_F_IP_KEYED,
		.ifname = "fixture0",
	};
	__u32 slot = 0;

	if (bpf_map_update_elem(env->m.masters, &slot, &ms, BPF_ANY))
		fprintf(stderr, "# master update: %s\n", strerror(errno));
}

static int publish(struct dp_env *env, __u32 slot, const char *mac, const char *const ips[],
		   int dscp, bool ip_keyed)
{
	struct rn_pod_spec s;
	struct rn_error e = { 0 };

	memset(&s, 0, sizeof(s));
	snprintf(s.ns, sizeof(s.ns), "fixture");
	snprintf(s.name, sizeof(s.name), "pod%u", slot);
	snprintf(s.container_id, sizeof(s.container_id), "c%u", slot);
	snprintf(s.ifname, sizeof(s.ifname), "net1");
	snprintf(s.master, sizeof(s.master), "fixture0");
	s.dscp = dscp;
	s.ip_keyed = ip_keyed;
	if (mac && rn_mac_parse(mac, s.mac))
		return -EINVAL;
	for (int i = 0; ips && ips[i]; i++)
		if (rn_addr_parse(ips[i], &s.ips[s.n_ips++]))
			return -EINVAL;
	if (rn_registry_publish(&env->m, &s, 0, slot, true, &e)) {
		fprintf(stderr, "# publish pod: %s\n", e.msg);
		return e.code;
	}
	return 0;
}

int dp_env_pod(struct dp_env *env, __u32 slot, const char *mac, const char *const ips[], int dscp)
{
	return publish(env, slot, mac, ips, dscp, false);
}

int dp_env_pod_ip_keyed(struct dp_env *env, __u32 slot, const char *const ips[])
{
	return publish(env, slot, NULL, ips, -1, true);
}

void dp_snapshot(const struct dp_env *env, struct dp_snapshot *s)
{
	memset(s, 0, sizeof(*s));
	for (__u32 i = 0; i < 8; i++)
		rn_maps_percpu_sum(&env->m, env->m.pod_ctr, i, &s->pod[i], sizeof(s->pod[i]));
	rn_maps_percpu_sum(&env->m, env->m.mst_ctr, 0, &s->master, sizeof(s->master));
}

int dp_run_tc(const struct dp_env *env, void *frame, __u32 *len, __u32 gso_segs,
	      __u32 gso_size, __u32 *retval)
{
	struct __sk_buff ctx = { .gso_segs = gso_segs, .gso_size = gso_size };
	static unsigned char out[65536];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = *len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	int err;

	if (gso_segs) {
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	err = bpf_prog_test_run_opts(env->prog_fd, &opts);
	if (err)
		return -errno;
	*retval = opts.retval;
	*len = opts.data_size_out;
	memcpy(frame, out, *len);
	return 0;
}

int dp_run_xdp(const struct dp_env *env, void *frame, __u32 *len, __u32 *retval)
{
	static unsigned char out[65536];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = frame, .data_size_in = *len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	int err;

	err = bpf_prog_test_run_opts(env->prog_fd, &opts);
	if (err)
		return -errno;
	*retval = opts.retval;
	*len = opts.data_size_out;
	memcpy(frame, out, *len);
	return 0;
}
