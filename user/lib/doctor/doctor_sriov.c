// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* doctor "vf-holds": the VF holds the leak sweep cannot judge from where
 * this process runs (rn_sriov_hold_where): a pod's netns path it cannot
 * see while the VF's netdev is not back. The sweep keeps such holds (a
 * live pod's VF is never reset under it); this check says why, and what
 * to mount so the agent can see the pods' netns. */
#include <stdlib.h>

#include "doctor/doctor.h"
#include "sriov/sriov.h"

void rn_check_vf_holds(const struct rn_doctor_facts *f, struct rn_check *c)
{
	struct rn_sriov_hold *list = NULL;
	int n = 0, in_pod = 0, unseen = 0;

	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	if (!f->sriov || !f->sriov_host || !f->sriov->n) {
		rn_check_add(c, "no \"sriov\" section");
		return;
	}
	if (rn_sriov_hold_list(f->sriov->state_dir, &list, &n, NULL)) {
		rn_check_set(c, RN_CHECK_WARN, "the VF holds under %s cannot be read",
			     f->sriov->state_dir[0] ? f->sriov->state_dir : RN_SRIOV_DEFAULT_STATE_DIR);
		return;
	}
	for (int i = 0; i < n; i++) {
		char why[600];

		switch (rn_sriov_hold_where(&f->sriov_host->roots, &list[i], why, sizeof(why))) {
		case RN_SRIOV_HOLD_IN_POD:
			in_pod++;
			break;
		case RN_SRIOV_HOLD_UNSEEN:
			unseen++;
			rn_check_add(c, "VF %s of %s/%s: %s", list[i].pci, list[i].pod_namespace,
				     list[i].pod_name, why);
			break;
		default:	/* the sweep gives it back at its next tick */
			break;
		}
	}
	free(list);
	if (unseen) {
		c->status = RN_CHECK_WARN;
		rn_check_fix(c, "the leak sweep keeps these holds until it can see the VF is out "
			     "of its pod; run rdmanetd where the runtime's netns directory "
			     "(/run/netns, /var/run/netns) is mounted (read-only, HostToContainer "
			     "propagation) and in the host network namespace");
	} else {
		rn_check_add(c, "%d VF%s held, every pod netns visible", in_pod,
			     in_pod == 1 ? "" : "s");
	}
}
