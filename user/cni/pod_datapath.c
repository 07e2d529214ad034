// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pod_datapath.h"
#include "datapath/datapath.h"
#include "netns.h"

bool cni_datapath_present(const char *pin_dir)
{
	char path[PATH_MAX];

	return rn_pin_dir_exists(pin_dir) &&
	       !rn_pin_path(path, sizeof(path), pin_dir, rn_map_names[0]) && !access(path, F_OK);
}

int cni_datapath_register(const char *pin_dir, const struct rn_pod_spec *s, int *slot,
			  struct rn_error *e)
{
	__u32 at;
	int rc;

	*slot = -1;
	if (!cni_datapath_present(pin_dir))
		return rn_fail(e, 1, "rdmanetd's maps are not pinned at %s", pin_dir);
	rc = rn_registry_add_slot(pin_dir, s, &at, e);
	if (!rc)
		*slot = (int)at;
	/* a master rdmanetd does not manage: the pod still gets its network */
	return rc == -ENODEV ? 1 : rc;
}

int cni_datapath_master_attached(const char *pin_dir, const char *master)
{
	struct rn_maps m;
	int rc;

	if (!cni_datapath_present(pin_dir) || rn_maps_open(&m, pin_dir, NULL))
		return 0;
	rc = rn_master_find(&m, master) >= 0;
	rn_maps_close(&m);
	return rc;
}

/* The registered slot of (container id, ifname), -ENOENT, or an error. */
static int slot_of(const char *pin_dir, const char *container_id, const char *ifname,
		   struct rn_error *e)
{
	struct rn_maps m;
	int slot;

	if (rn_maps_open(&m, pin_dir, e))
		return e->code;
	slot = rn_registry_find(&m, container_id, ifname);
	rn_maps_close(&m);
	return slot;
}

int cni_datapath_guard(const char *pin_dir, const struct cni_netns *ns, struct nl_sock *pod,
		       int slot, int ifindex, enum rn_tc_mode mode, struct rn_error *e)
{
	enum rn_pod_attach how;
	int rc;

	if (!cni_datapath_present(pin_dir))
		return rn_fail(e, 1, "rdmanetd's maps are not pinned at %s", pin_dir);
	/* the slot the registration just gave (finding it again by container
	 * id and ifname read every pinned map and the whole owner table) */
	if (slot < 0)
		return rn_fail(e, 1, "not registered");
	/* the tcx attach names the interface by its ifindex in the pod's netns */
	if (cni_netns_enter(ns, e))
		return e->code;
	rc = rn_pod_prog_attach(pin_dir, pod, ifindex, (__u32)slot, mode, &how, e);
	cni_netns_leave(ns);
	return rc;
}

int cni_datapath_unregister(const char *pin_dir, const char *container_id, const char *ifname,
			    struct rn_error *e)
{
	int slot;

	if (!cni_datapath_present(pin_dir))
		return 0;
	slot = slot_of(pin_dir, container_id, ifname, e);
	if (slot >= 0 && rn_pod_prog_detach(pin_dir, (__u32)slot, e))
		return e->code;
	return rn_registry_del(pin_dir, container_id, ifname, NULL, e);
}

int cni_datapath_lookup(const char *pin_dir, const char *container_id, const char *ifname,
			struct rn_pod_entry *out, struct rn_error *e)
{
	struct rn_pod_entry *all = NULL;
	struct rn_maps m;
	int n = 0, rc = -ENOENT;

	if (rn_maps_open(&m, pin_dir, e))
		return e->code;
	if (rn_registry_list(&m, &all, &n, e)) {
		rn_maps_close(&m);
		return e->code;
	}
	for (int i = 0; i < n; i++) {
		if (!strcmp(all[i].meta.container_id, container_id) &&
		    !strcmp(all[i].meta.ifname, ifname)) {
			*out = all[i];
			rc = 0;
		}
	}
	free(all);
	rn_maps_close(&m);
	return rc;
}
