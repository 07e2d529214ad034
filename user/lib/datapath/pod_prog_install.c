// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetd's half of the per-pod program (pod_prog.h): load, pin, and move
 * the pods' pinned tcx links to this build's program; --uninstall takes
 * them off. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "attach.h"
#include "log.h"
#include "pin.h"
#include "pod_egress.skel.h"
#include "pod_prog.h"
#include "prog_tag.h"

/* The pinned program's fd if it is this build's (same tag), else -1. */
static int pinned_if_same(const char *path, const struct rn_prog_tag *want)
{
	struct rn_prog_tag have;
	int fd = bpf_obj_get(path);

	if (fd < 0)
		return -1;
	if (!rn_prog_tag_of_fd(fd, &have) && rn_prog_tag_eq(&have, want))
		return fd;
	close(fd);
	return -1;
}

/* Pins fd at path in one step (a pin under another name, renamed over the
 * old one): an ADD opening the pin meanwhile finds the old or the new. */
static int pin_replace(int fd, const char *path)
{
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s_new", path);

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	if (bpf_obj_pin(fd, tmp))
		return -errno;
	if (rename(tmp, path)) {
		int err = -errno;

		unlink(tmp);
		return err;
	}
	return 0;
}

/* Every pinned pod link whose program is not prog_fd's moves to it (a
 * link update swaps the program under RCU: no frame meets neither). */
static int links_move(const char *pin_dir, int prog_fd, __u32 prog_id)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	int moved = 0;
	DIR *d;

	if (rn_pin_path(dir, sizeof(dir), pin_dir, RN_PIN_LINKS))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		struct bpf_link_info info;
		__u32 len = sizeof(info);
		int fd;

		if (strncmp(de->d_name, "pod_", 4) ||
		    rn_pin_path(path, sizeof(path), dir, de->d_name))
			continue;
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_link_get_info_by_fd(fd, &info, &len) && info.prog_id != prog_id) {
			if (bpf_link_update(fd, prog_fd, NULL))
				rn_warn("per-pod link %s: update to this build's program: %s", path,
					strerror(errno));
			else
				moved++;
		}
		close(fd);
	}
	closedir(d);
	return moved;
}

/* The program at pin_name if it is this build's fd_new (same tag), else
 * fd_new pinned there in its place. Returns the fd to use (the pinned one
 * or fd_new), or a negative errno. */
static int pin_this_build(const char *pin_dir, const char *pin_name, int fd_new)
{
	struct rn_prog_tag want;
	char path[PATH_MAX];
	int same, err;

	if (rn_pin_path(path, sizeof(path), pin_dir, pin_name))
		return -ENAMETOOLONG;
	err = rn_prog_tag_of_fd(fd_new, &want);
	if (err)
		return err;
	same = pinned_if_same(path, &want);
	if (same >= 0)
		return same;
	err = pin_replace(fd_new, path);
	return err ? err : fd_new;
}

/* Points the clsact pods' tail call at prog_fd; says so when it moved
 * them from another program. */
static int jmp_point(int jmp_fd, int prog_fd, __u32 prog_id)
{
	__u32 zero = 0, cur = 0;

	if (!bpf_map_lookup_elem(jmp_fd, &zero, &cur) && cur == prog_id)
		return 0;
	if (bpf_map_update_elem(jmp_fd, &zero, &prog_fd, BPF_ANY))
		return -errno;
	if (cur)
		rn_info("pods with a clsact filter moved to this build's %s", RN_POD_PROG_NAME);
	return 0;
}

int rn_pod_prog_install(const char *pin_dir, unsigned int max_pods, struct rn_error *e)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_dir);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	struct pod_egress *skel;
	int err, fd, stub, moved = 0;

	skel = pod_egress__open_opts(&opts);
	if (!skel)
		return rn_fail(e, -errno, "open pod_egress object: %s", strerror(errno));
	rn_maps_size_like_pins(skel->obj, pin_dir, max_pods);
	err = pod_egress__load(skel);
	if (err) {
		pod_egress__destroy(skel);
		return rn_fail(e, err, "load %s: %s (the per-pod program needs "
			       "bpf_cast_to_kern_ctx and kernel BTF, Linux 6.3)", RN_POD_PROG_NAME,
			       strerror(-err));
	}
	/* links of an agent that died mid-upgrade still move */
	fd = pin_this_build(pin_dir, RN_POD_PROG_PIN, bpf_program__fd(skel->progs.rn_pod_egress));
	if (fd < 0) {
		pod_egress__destroy(skel);
		return rn_fail(e, fd, "pin %s/%s: %s", pin_dir, RN_POD_PROG_PIN, strerror(-fd));
	}
	memset(&info, 0, sizeof(info));
	err = bpf_prog_get_info_by_fd(fd, &info, &len) ? -errno : 0;
	if (!err)
		err = jmp_point(bpf_map__fd(skel->maps.rn_pod_jmp_v1), fd, info.id);
	if (err)
		rn_fail(e, err, "%s: %s", RN_POD_JMP_MAP, strerror(-err));
	if (!err) {
		stub = pin_this_build(pin_dir, RN_POD_CLSACT_PROG_PIN,
				      bpf_program__fd(skel->progs.rn_pod_egress_clsact));
		if (stub < 0)
			err = rn_fail(e, stub, "pin %s/%s: %s", pin_dir, RN_POD_CLSACT_PROG_PIN,
				      strerror(-stub));
		else if (stub != bpf_program__fd(skel->progs.rn_pod_egress_clsact))
			close(stub);
	}
	if (!err)
		moved = links_move(pin_dir, fd, info.id);
	if (fd != bpf_program__fd(skel->progs.rn_pod_egress))
		close(fd);
	pod_egress__destroy(skel);
	if (err)
		return err;
	if (moved > 0)
		rn_info("%d pod(s) moved to this build's %s", moved, RN_POD_PROG_NAME);
	return moved < 0 ? 0 : moved;
}

void rn_pod_prog_uninstall(const char *pin_dir)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if (!rn_pin_path(dir, sizeof(dir), pin_dir, RN_PIN_LINKS) && (d = opendir(dir))) {
		while ((de = readdir(d))) {
			int fd;

			if (strncmp(de->d_name, "pod_", 4) ||
			    rn_pin_path(path, sizeof(path), dir, de->d_name))
				continue;
			fd = bpf_obj_get(path);
			if (fd >= 0) {
				bpf_link_detach(fd);
				close(fd);
			}
			unlink(path);
		}
		closedir(d);
	}
	if (!rn_pin_path(path, sizeof(path), pin_dir, RN_POD_PROG_PIN))
		unlink(path);
	if (!rn_pin_path(path, sizeof(path), pin_dir, RN_POD_CLSACT_PROG_PIN))
		unlink(path);
}
