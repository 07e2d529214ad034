// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Where a held VF is (sriov.h, rn_sriov_hold_where). The leak sweep gives a
 * VF back only on proof that nothing of it is in a pod any more: its netdev
 * is back in the host netns (the kernel returns a physical device to
 * init_net when the netns it was in is dismantled, and DEL moves it back
 * itself), or the VF no longer exists. That its netns path is missing is
 * no proof: the agent's container may not have the runtime's netns
 * directory mounted (then every live pod would look gone, and a running
 * pod's VF would be reset under it), and a netns removed from its path
 * lives on while anything holds it, with the VF inside. */
#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "sriov/sriov.h"

bool rn_sriov_netns_visible(const char *path, uint64_t dev, uint64_t ino)
{
	struct statfs sfs;
	struct stat st;

	if (!path[0] || statfs(path, &sfs) || (unsigned long)sfs.f_type != NSFS_MAGIC ||
	    stat(path, &st))
		return false;
	return !ino || ((uint64_t)st.st_dev == dev && (uint64_t)st.st_ino == ino);
}

/* Why the hold's netns is not seen: the directory, the path, the identity. */
static void unseen_why(const struct rn_sriov_hold *h, char *why, size_t size)
{
	char dir[sizeof(h->netns)];
	struct statfs sfs;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", h->netns);
	if (!h->netns[0])
		snprintf(why, size, "the hold names no netns");
	else if (stat(dirname(dir), &st))
		snprintf(why, size, "the netns directory %.200s is not visible to this process (not "
			 "mounted into its container?)", dir);
	else if (stat(h->netns, &st))
		snprintf(why, size, "its netns %.200s is not visible here (removed and still being "
			 "torn down, or not mounted here)", h->netns);
	else if (statfs(h->netns, &sfs) || (unsigned long)sfs.f_type != NSFS_MAGIC)
		snprintf(why, size, "%.200s is not a netns here (the runtime's bind mount did not "
			 "propagate into this mount namespace?)", h->netns);
	else
		snprintf(why, size, "%.200s names another netns now", h->netns);
}

enum rn_sriov_hold_where rn_sriov_hold_where(const struct rn_rdma_roots *roots,
					     const struct rn_sriov_hold *h, char *why,
					     size_t size)
{
	enum rn_sriov_hold_where w = RN_SRIOV_HOLD_UNSEEN;
	struct rn_sriov_host host;
	const struct rn_sriov_vf *vf;
	size_t off;

	if (size)
		why[0] = '\0';
	if (rn_sriov_netns_visible(h->netns, h->netns_dev, h->netns_ino))
		return RN_SRIOV_HOLD_IN_POD;
	if (rn_sriov_discover(&host, roots, false, NULL)) {
		snprintf(why, size, "the VFs cannot be read under %.200s", roots->sys);
		return RN_SRIOV_HOLD_UNSEEN;
	}
	vf = rn_sriov_find_vf(&host, h->pci, NULL);
	if (!vf)
		w = RN_SRIOV_HOLD_VF_GONE;
	else if (vf->netdev[0])
		w = RN_SRIOV_HOLD_RETURNED;
	rn_sriov_host_free(&host);
	if (w != RN_SRIOV_HOLD_UNSEEN)
		return w;
	unseen_why(h, why, size);
	off = strlen(why);
	snprintf(why + off, size - off, ", and its netdev is not back in this netns%s",
		 h->released ? " (DEL has run: the pod's netns is still being torn down)" : "");
	return RN_SRIOV_HOLD_UNSEEN;
}
