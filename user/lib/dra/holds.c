// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A VF allocated to a claim is held as the CNI's exclusive mode holds one
 * (user/lib/sriov/hold.c: the per-VF lock, then the record), with the
 * claim's UID and no netns: shown in use by the claim, another claim
 * refused, and the leak sweep leaves it until NodeUnprepareResources gives
 * it back. Nothing of the VF is touched. The CNI attaches the VF to the pod
 * the claim is reserved for under the same hold (the claim's UID kept), and
 * its DEL puts the claim's hold back as it was (rn_sriov_restore_host). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dra/internal.h"
#include "sriov/sriov.h"

int dra_vf_hold(const struct rn_dra_config *cfg, const struct rn_dra_device *vf,
		const struct rn_dra_prepared *p, struct rn_error *e)
{
	struct rn_sriov_hold v = { 0 }, h, old;
	struct rn_error re = { 0 };
	int fd, rc;

	if (rn_sriov_hold_lock(cfg->hold_dir, vf->pci, true, &fd, e))
		return e ? e->code : -EBUSY;
	rc = rn_sriov_hold_read(cfg->hold_dir, vf->pci, &old, &re);
	if (rc == 0) {
		close(fd);
		if (!strcmp(old.claim_uid, p->uid))
			return 0;	/* ours already (a prepare retried) */
		if (old.claim_uid[0])
			return rn_fail(e, -EBUSY, "VF %s is held for claim %s (%s/%s)", vf->pci,
				       old.claim_uid, old.pod_namespace, old.pod_name);
		return rn_fail(e, -EBUSY, "VF %s is held by pod %s/%s", vf->pci, old.pod_namespace,
			       old.pod_name);
	}
	if (rc != -ENOENT) {
		close(fd);
		return rn_fail(e, rc, "VF %s: %s", vf->pci, re.msg);
	}
	snprintf(v.pci, sizeof(v.pci), "%s", vf->pci);
	snprintf(v.pf_ifname, sizeof(v.pf_ifname), "%s", vf->pf_netdev);
	v.vf = vf->vf_index;
	snprintf(v.claim_uid, sizeof(v.claim_uid), "%s", p->uid);
	snprintf(v.claim_namespace, sizeof(v.claim_namespace), "%s", p->namespace_);
	snprintf(v.claim_name, sizeof(v.claim_name), "%s", p->name);
	snprintf(v.claim_network, sizeof(v.claim_network), "dra:%s", cfg->driver);
	snprintf(v.orig_netdev, sizeof(v.orig_netdev), "%s", vf->netdev);
	snprintf(v.orig_rdma_dev, sizeof(v.orig_rdma_dev), "%s", vf->rdma_dev);
	rn_sriov_hold_for_claim(&v, &h);
	rc = rn_sriov_hold_write(cfg->hold_dir, &h, e);
	close(fd);
	return rc;
}

int dra_vf_release(const struct rn_dra_config *cfg, const char *pci, const char *uid,
		   struct rn_error *e)
{
	struct rn_sriov_hold h;
	int fd, rc;

	if (rn_sriov_hold_lock(cfg->hold_dir, pci, true, &fd, e))
		return e ? e->code : -EBUSY;
	rc = rn_sriov_hold_read(cfg->hold_dir, pci, &h, e);
	if (rc == -ENOENT) {
		rc = 0;		/* given back already */
	} else if (!rc && !strcmp(h.claim_uid, uid) && !h.netns[0]) {
		rc = rn_sriov_hold_remove(cfg->hold_dir, pci, e);
	} else if (!rc && !strcmp(h.claim_uid, uid)) {
		/* in a pod still (the CNI attached it and DEL has not run): the
		 * claim lets go, the hold is the pod's alone, and DEL, GC or the
		 * leak sweep give the VF back to the host as for any pod */
		h.claim_uid[0] = '\0';
		rc = rn_sriov_hold_write(cfg->hold_dir, &h, e);
	}
	/* else someone else's now: not ours to drop */
	close(fd);
	return rc;
}
