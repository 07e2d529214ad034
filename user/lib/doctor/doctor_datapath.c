// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Doctor checks of rdmanet's own side: bpffs, programs attached to the
 * masters, a RoCE v2 GID for every registered pod address. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor/doctor.h"

/* The pin dir, else its nearest existing parent: the directory the
 * bpffs_mounted fact is about (the pin dir is made by rdmanetd on its
 * first start). Returns 1 if the pin dir exists, 0 if not, -errno if the
 * walk could not tell (a parent that cannot be searched). */
static int pin_dir_or_parent(const char *pin_dir, char *at, size_t size)
{
	struct stat st;
	char *slash;
	int n = snprintf(at, size, "%s", pin_dir);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (!stat(at, &st))
		return 1;
	while (errno == ENOENT && (slash = strrchr(at, '/'))) {
		if (slash == at)
			slash[1] = '\0';	/* "/" itself */
		else
			*slash = '\0';
		if (!stat(at, &st))
			return 0;
		if (slash == at)
			break;
	}
	return -errno;
}

void rn_check_bpffs(const struct rn_doctor_facts *f, struct rn_check *c)
{
	char at[PATH_MAX];
	int exists = pin_dir_or_parent(f->pin_dir, at, sizeof(at));

	if (exists < 0) {
		rn_check_set(c, RN_CHECK_WARN, "cannot tell whether %s is on bpffs: %s: %s",
			     f->pin_dir, at, strerror(-exists));
		if (exists == -EACCES || exists == -EPERM)
			rn_check_fix(c, "run rdmanetctl doctor as root (the pin dir is root-only)");
		return;
	}
	if (exists && f->bpffs_mounted) {
		rn_check_set(c, RN_CHECK_PASS, "bpffs holds pin dir %s", f->pin_dir);
		return;
	}
	if (f->bpffs_mounted) {
		/* the missing agent is the datapath check's failure, not this one's */
		rn_check_set(c, RN_CHECK_PASS, "bpffs at %s (pin dir %s not created yet: rdmanetd "
			     "has not run with it)", at, f->pin_dir);
		return;
	}
	if (exists)
		rn_check_set(c, RN_CHECK_FAIL, "pin dir %s is not on a bpf filesystem: rdmanetd "
			     "cannot pin its maps there", f->pin_dir);
	else
		rn_check_set(c, RN_CHECK_FAIL, "no bpf filesystem at %s, where pin dir %s would be "
			     "created: rdmanetd cannot pin its maps", at, f->pin_dir);
	rn_check_fix(c, "mount -t bpf bpf /sys/fs/bpf (the DaemonSet needs the host's /sys/fs/bpf "
		     "mounted), or point bpf.pin_dir at a directory on bpffs");
}

static const struct rn_doctor_master *attached(const struct rn_doctor_facts *f,
					       const char *ifname)
{
	for (int i = 0; i < f->n_attached; i++)
		if (!strcmp(f->attached[i].ifname, ifname))
			return &f->attached[i];
	return NULL;
}

void rn_check_datapath(const struct rn_doctor_facts *f, struct rn_check *c)
{
	static const char *const xdp_names[] = { "none", "native", "skb" };
	static const char *const tc_names[] = { "none", "tcx", "clsact" };

	if (f->maps_err) {
		rn_check_set(c, RN_CHECK_FAIL, "no pinned data-path maps under %s: rdmanetd is not "
			     "running there", f->pin_dir);
		rn_check_fix(c, "start rdmanetd (the DaemonSet, or rdmanetd --config FILE), or "
			     "point --pin-dir at the one it uses");
		return;
	}
	if (!f->n_masters) {
		rn_check_set(c, RN_CHECK_WARN, "no masters configured or discovered");
		return;
	}
	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (int i = 0; i < f->n_masters; i++) {
		const struct rn_doctor_master *a = attached(f, f->masters[i]);
		const char *xdp, *tc;

		if (!a || !a->in_map) {
			c->status = RN_CHECK_FAIL;
			rn_check_add(c, "%s is not attached", f->masters[i]);
			rn_check_fix(c, "rdmanetd has not attached %s: see its log (a missing "
				     "netdev is retried every tick)", f->masters[i]);
			continue;
		}
		xdp = xdp_names[a->xdp >= 0 && a->xdp < 3 ? a->xdp : 0];
		tc = tc_names[a->tc >= 0 && a->tc < 3 ? a->tc : 0];
		/* tc does the marking and, where XDP is off, the rx counting:
		 * without it the master is not covered at all */
		if (a->tc == 0 || (a->xdp == 0 && (a->xdp_mode == RN_XDP_MODE_NATIVE ||
						   a->xdp_mode == RN_XDP_MODE_SKB))) {
			c->status = RN_CHECK_FAIL;
			rn_check_add(c, "%s: xdp %s, tc %s%s", a->ifname, xdp, tc,
				     a->tc ? " (xdp_mode asks for XDP)" : "");
			rn_check_fix(c, "see rdmanetd's log for the attach error on %s", a->ifname);
			continue;
		}
		if (a->xdp == 0 && a->xdp_mode == RN_XDP_MODE_AUTO && strcmp(a->kind, "veth")) {
			/* counts stay right (tc ingress), at a higher cost per packet */
			if (c->status == RN_CHECK_PASS)
				c->status = RN_CHECK_WARN;
			rn_check_add(c, "%s: XDP did not attach (see rdmanetd's log), rx counted by "
				     "tc ingress; tc %s", a->ifname, tc);
			continue;
		}
		rn_check_add(c, "%s: xdp %s%s, tc %s", a->ifname, xdp,
			     a->xdp ? "" : a->xdp_mode == RN_XDP_MODE_OFF ? " (xdp_mode off)" :
			     " (veth: rx counted by tc ingress)", tc);
	}
}

void rn_check_pod_gids(const struct rn_doctor_facts *f, struct rn_check *c)
{
	int bad = 0;

	if (f->maps_err) {
		rn_check_set(c, RN_CHECK_WARN, "cannot read pod registrations from %s", f->pin_dir);
		return;
	}
	if (!f->n_pods) {
		rn_check_set(c, RN_CHECK_PASS, "no pod interfaces registered");
		return;
	}
	rn_check_set(c, RN_CHECK_PASS, "%s", "");
	for (int i = 0; i < f->n_pods; i++) {
		const struct rn_pod_addr *pa = &f->pods[i];
		struct rn_rdma_dev *d;
		struct rn_rdma_port *p;
		const struct rn_rdma_gid *g = rn_pod_addr_gid(f->model, pa, &d, &p);
		char addr[RN_ADDR_STRLEN];

		rn_addr_format(&pa->addr, addr);
		if (g)
			continue;
		bad++;
		c->status = RN_CHECK_FAIL;
		if (!p)
			rn_check_add(c, "%s/%s %s %s: master %s backs no RDMA port", pa->ns,
				     pa->pod, pa->ifname, addr, pa->master);
		else
			rn_check_add(c, "%s/%s %s %s has no RoCE v2 GID on %s/%u", pa->ns, pa->pod,
				     pa->ifname, addr, d->name, p->num);
		rn_check_fix(c, "the pod interface must be a macvlan/ipvlan child of %s with %s up "
			     "(the kernel adds the GID when the address is assigned); without it "
			     "RDMA fails with \"ibv_modify_qp failed: No such device\"", pa->master,
			     addr);
	}
	if (!bad)
		rn_check_add(c, f->n_pods == 1 ? "the pod address has a RoCE v2 GID" :
			     "all %d pod addresses have a RoCE v2 GID", f->n_pods);
}
