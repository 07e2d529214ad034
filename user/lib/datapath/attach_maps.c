// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "maps.h"
#include "pin.h"
#include "tc_egress.skel.h"

/* An existing pin keeps its size (libbpf refuses to reuse a map whose
 * definition differs), so a changed max_pods applies after --uninstall. */
static unsigned int pinned_size(const char *pin_dir, const char *name, unsigned int want)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);
	char path[PATH_MAX];
	int fd;

	if (rn_pin_path(path, sizeof(path), pin_dir, name))
		return want;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return want;
	memset(&info, 0, sizeof(info));
	if (!bpf_map_get_info_by_fd(fd, &info, &len))
		want = info.max_entries;
	close(fd);
	return want;
}

void rn_maps_size_like_pins(struct bpf_object *obj, const char *pin_dir, unsigned int max_pods)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		unsigned int want;

		/* the maps indexed or bounded by pod slot follow max_pods */
		if (!strcmp(name, "rn_pod_ips_v1"))
			want = max_pods * 2;
		else if (!strcmp(name, "rn_pods_v1") || !strcmp(name, "rn_pod_info_v1") ||
			 !strcmp(name, "rn_pod_ctr_v1") || !strcmp(name, "rn_pod_meta_v1") ||
			 !strcmp(name, "rn_pod_rsn_v1"))
			want = max_pods;
		else
			continue;
		bpf_map__set_max_entries(map, pinned_size(pin_dir, name, want));
	}
}

int rn_maps_create(const char *pin_dir, unsigned int max_pods, struct rn_error *e)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
	struct tc_egress *skel;
	int err;

	skel = tc_egress__open_opts(&opts);
	if (!skel)
		return rn_fail(e, -errno, "open tc_egress object: %s", strerror(errno));
	/* maps only: the programs are loaded per master, with its slot */
	bpf_program__set_autoload(skel->progs.rn_tc_egress, false);
	rn_maps_size_like_pins(skel->obj, pin_dir, max_pods);
	err = tc_egress__load(skel);
	if (err)
		rn_fail(e, err, "create maps under %s: %s (an incompatible map of the same "
			"name? `rdmanetd --uninstall` removes it)", pin_dir, strerror(-err));
	tc_egress__destroy(skel);
	return err;
}
