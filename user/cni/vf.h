/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* mode "sriov": the VF named by deviceID is taken for the pod. Its state
 * before ADD and the pod's identity are written to its hold record
 * (sriov/sriov.h) before anything changes, under the VF's lock; then its
 * admin settings are applied through the PF, its netdev moved into the pod
 * netns (renamed to a temporary name in the host first, so the pod never
 * sees a name clash, then to CNI_IFNAME with the "rdmanet:<container id>"
 * alias), and its RDMA device moved with RDMA netlink (isRdma PFs, in
 * exclusive netns mode only). Restoring undoes all of it from whatever is
 * left: with the pod netns it moves both devices back, without it (the
 * kernel has returned them to the host) it finds the netdev by the VF's
 * PCI address; then name, MTU, MAC and every VF setting go back as the
 * hold recorded them and the hold is removed. */
#ifndef RDMANET_CNI_VF_H
#define RDMANET_CNI_VF_H

#include <stdbool.h>
#include <netlink/netlink.h>

#include "cmd.h"
#include "config.h"
#include "netdev.h"
#include "netns.h"
#include "sriov/sriov.h"

struct cni_vf {
	int lock_fd;			/* -1: not locked */
	struct rn_sriov_hold hold;
	bool held;			/* the hold record is ours and on disk */
	bool is_rdma;
	char tmpname[RN_IFNAMSIZ];
};

/* Validates deviceID against the node (a VF of a PF the node config's
 * "sriov" section manages; exclusive netns mode for RDMA VFs), takes the
 * VF's lock and fills pf (the attachment's master). Changes nothing. */
int cni_vf_prepare(struct cni_req *r, const struct rn_config *cfg, struct cni_vf *v,
		   struct rn_netdev *pf);
/* Records the VF's state, applies the settings, moves netdev and RDMA
 * device into the pod; fills ifindex, MAC and MTU of the pod interface. */
int cni_vf_attach(struct cni_req *r, struct cni_vf *v, struct nl_sock *host,
		  const struct cni_netns *ns, int *ifindex, uint8_t mac[6], unsigned int *mtu);
/* Marks the hold complete (ADD succeeded). */
int cni_vf_commit(struct cni_req *r, struct cni_vf *v);
void cni_vf_unlock(struct cni_vf *v);

/* Puts the VF back as h recorded it and removes the hold (a DRA claim's
 * VF: holds it for the claim again). cfg: the node config whose sysfs root
 * finds the VF (NULL: the live /sys). netns may be NULL or gone. When the VF's netdev has not come back from a netns that
 * is gone from its path but still dying, nothing is touched and the hold
 * stays, marked released (0 all the same: the pod's part is done; the
 * agent's sweep, or the next ADD on the VF, restores it once the kernel
 * has returned it). Takes the VF's lock unless locked (the caller holds
 * it). */
int cni_vf_restore(const struct rn_config *cfg, const char *state_dir,
		   const struct rn_sriov_hold *h, const char *netns, bool locked, struct rn_error *e);
/* CHECK inside the pod (ns entered and left): ifname is the VF's own
 * netdev (the bus address its driver reports there), and with an RDMA VF
 * its RDMA device is in the pod's netns, its port on ifname, and not in
 * the host's. 0 with why "" when so, 0 with why set when not; an error
 * only when it cannot be asked. */
int cni_vf_in_pod(const struct cni_netns *ns, const struct rn_sriov_hold *h, const char *ifname,
		  char *why, size_t size, struct rn_error *e);
/* The hold of (container id, ifname), if any: 1 found, 0 none. */
int cni_vf_find_hold(const char *state_dir, const char *container_id, const char *ifname,
		     struct rn_sriov_hold *out);

#endif
