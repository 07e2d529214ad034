// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* VF provisioning, one PF at a time: sriov_numvfs, then the VFs' MTU, then
 * the zero GUIDs of RDMA VFs. Nothing is done to a PF no config entry
 * selects, to a PF asked for more VFs than sriov_totalvfs, or to a VF a pod
 * holds; sriov_numvfs is not changed while any VF of the PF is held (the
 * kernel would destroy the pod's VF). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rdma/rdma.h"
#include "sriov/sriov.h"
#include "monotonic.h"

void rn_sriov_report_add(struct rn_sriov_report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r || r->n_actions >= RN_SRIOV_MAX_ACTIONS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->actions[r->n_actions++], sizeof(r->actions[0]), fmt, ap);
	va_end(ap);
}

void rn_sriov_vf_mac(const struct rn_sriov_pf *pf, int vf, uint8_t mac[6])
{
	mac[0] = 0x02;
	memcpy(mac + 1, pf->mac + 2, 4);
	mac[5] = (uint8_t)(vf + 1);
}

static bool vf_held(const struct rn_sriov_config *c, const char *pci)
{
	struct rn_sriov_hold h;

	return rn_sriov_hold_read(c->state_dir, pci, &h, NULL) != -ENOENT;
}

/* Takes a free VF for provisioning: its per-VF lock (nonblocking; *fd, -1
 * where the lock cannot be had for another reason than a CNI holding it,
 * say a read-only state dir: then as before, on the hold alone), and no
 * hold on it once locked. A hold's file is written under that lock, so an
 * ADD in flight (its lock taken, its hold not yet written) is seen here
 * and never raced. 0: ours, 1: not free. */
static int vf_claim(const struct rn_sriov_config *c, const char *pci, int *fd,
		    struct rn_sriov_report *r, const char *name, int index)
{
	int rc = rn_sriov_hold_lock(c->state_dir, pci, true, fd, NULL);

	if (rc == -EWOULDBLOCK) {
		r->n_busy++;
		rn_sriov_report_add(r, "%s vf %d (%s): a CNI is attaching or detaching it: left "
				    "for the next pass", name, index, pci);
		return 1;
	}
	if (vf_held(c, pci)) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return 1;
	}
	return 0;
}

/* Re-reads the PF; true once it has n VFs, each bound one with a netdev
 * (and an RDMA device with is_rdma) unless a pod holds it. */
static bool vfs_ready(const struct rn_sriov_config *c, const struct rn_sriov_pf_config *pc,
		      const struct rn_rdma_roots *roots, const char *pci, struct rn_sriov_host *h,
		      char *missing, size_t size)
{
	const struct rn_sriov_pf *pf;

	rn_sriov_host_free(h);
	if (rn_sriov_discover(h, roots, false, NULL))
		return false;
	pf = rn_sriov_find_pf(h, pci);
	if (!pf)
		return false;
	if (pf->n_vfs != pc->num_vfs) {
		snprintf(missing, size, "%d of %d VFs", pf->n_vfs, pc->num_vfs);
		return false;
	}
	for (int i = 0; i < pf->n_vfs; i++) {
		const struct rn_sriov_vf *vf = &pf->vfs[i];

		if (!vf->driver[0] || vf_held(c, vf->pci))
			continue;
		if (!vf->netdev[0]) {
			snprintf(missing, size, "VF %s has no netdev", vf->pci);
			return false;
		}
		if (pc->is_rdma && !vf->rdma_dev[0]) {
			snprintf(missing, size, "VF %s has no RDMA device", vf->pci);
			return false;
		}
	}
	return true;
}

static int wait_vfs(const struct rn_sriov_config *c, const struct rn_sriov_pf_config *pc,
		    const struct rn_rdma_roots *roots, const char *pci, const char *name,
		    struct rn_sriov_host *h, struct rn_error *e)
{
	long deadline = rn_monotonic_ms() + c->wait_ms;
	char missing[128] = "";

	for (;;) {
		if (vfs_ready(c, pc, roots, pci, h, missing, sizeof(missing)))
			return 0;
		if (rn_monotonic_ms() >= deadline)
			return rn_fail(e, -ETIMEDOUT, "%s: VFs not ready after %d ms: %s", name,
				       c->wait_ms, missing);
		usleep(100 * 1000);
	}
}

static int set_numvfs(const struct rn_sriov_config *c, const struct rn_sriov_pf_config *pc,
		      const struct rn_sriov_pf *pf, const struct rn_rdma_roots *roots,
		      const char *name, struct rn_sriov_report *r, struct rn_error *e)
{
	char v[16];
	int rc;

	for (int i = 0; i < pf->n_vfs; i++) {
		int fd = -1;

		if (vf_held(c, pf->vfs[i].pci))
			return rn_fail(e, -EBUSY, "%s: sriov_numvfs is %d, config asks %d, but VF "
				       "%s is held by a pod: not changed", name, pf->numvfs,
				       pc->num_vfs, pf->vfs[i].pci);
		/* a CNI at work on one (its hold maybe not written yet) */
		if (rn_sriov_hold_lock(c->state_dir, pf->vfs[i].pci, true, &fd, NULL) ==
		    -EWOULDBLOCK) {
			r->n_busy++;
			return rn_fail(e, -EBUSY, "%s: sriov_numvfs is %d, config asks %d, but VF "
				       "%s is being attached by a CNI: not changed", name,
				       pf->numvfs, pc->num_vfs, pf->vfs[i].pci);
		}
		if (fd >= 0)
			close(fd);
	}
	if (pf->numvfs > 0) {
		rc = rn_sysfs_write("0", "%s/bus/pci/devices/%s/sriov_numvfs", roots->sys, pf->pci);
		if (rc)
			return rn_fail(e, rc, "%s: sriov_numvfs 0: %s", name, strerror(-rc));
	}
	if (pc->num_vfs > 0) {
		snprintf(v, sizeof(v), "%d", pc->num_vfs);
		rc = rn_sysfs_write(v, "%s/bus/pci/devices/%s/sriov_numvfs", roots->sys, pf->pci);
		if (rc)
			return rn_fail(e, rc, "%s: sriov_numvfs %d: %s", name, pc->num_vfs,
				       strerror(-rc));
	}
	rn_sriov_report_add(r, "%s: sriov_numvfs %d -> %d", name, pf->numvfs, pc->num_vfs);
	return 0;
}

static void fmt_guid(uint64_t g, char *buf, size_t size)
{
	snprintf(buf, size, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48) & 0xffff,
		 (unsigned int)(g >> 32) & 0xffff, (unsigned int)(g >> 16) & 0xffff,
		 (unsigned int)g & 0xffff);
}

int rn_sriov_vf_ib_guid(const struct rn_sriov_pf *pf, int vf, uint64_t *guid)
{
	uint64_t g = pf->port_guid;

	if (!g)
		return -ENODATA;
	g ^= 0x02ULL << 56;				/* locally administered */
	g = (g & ~(0xffULL << 32)) | ((uint64_t)(vf + 1) & 0xff) << 32;
	*guid = g;
	return 0;
}

/* After a driver rebind: the VF's RDMA device back with a non-zero node
 * GUID (want "": any; else exactly that one). now gets what it has. */
static int wait_guid(const struct rn_sriov_config *c, const struct rn_rdma_roots *roots,
		     const struct rn_sriov_vf *vf, const char *want, const char *name,
		     char now[RN_GUID_STRLEN], struct rn_error *e)
{
	long deadline = rn_monotonic_ms() + c->wait_ms;

	for (;;) {
		char dev[RN_RDMA_NAME_LEN] = "";
		struct rn_sriov_host h;
		const struct rn_sriov_vf *nvf;

		now[0] = '\0';
		if (!rn_sriov_discover(&h, roots, false, NULL)) {
			nvf = rn_sriov_find_vf(&h, vf->pci, NULL);
			if (nvf) {
				snprintf(now, RN_GUID_STRLEN, "%s", nvf->node_guid);
				snprintf(dev, sizeof(dev), "%s", nvf->rdma_dev);
			}
			rn_sriov_host_free(&h);
		}
		if (dev[0] && now[0] && !rn_rdma_guid_is_zero(now) && (!want[0] || !strcmp(now, want)))
			return 0;
		if (rn_monotonic_ms() >= deadline)
			break;
		usleep(100 * 1000);
	}
	if (want[0] && now[0] && !rn_rdma_guid_is_zero(now))
		return rn_fail(e, -EIO, "%s vf %d (%s): node GUID %s set through the PF, the VF "
			       "reports %s after a driver rebind", name, vf->index, vf->pci, want, now);
	return rn_fail(e, -ETIMEDOUT, "%s vf %d (%s): node GUID still zero after %s and driver "
		       "rebind", name, vf->index, vf->pci, want[0] ? "setting it" : "admin MAC");
}

static int fix_guid(const struct rn_sriov_config *c, const struct rn_sriov_pf *pf,
		    const struct rn_sriov_vf *vf, const struct rn_rdma_roots *roots,
		    const struct rn_sriov_ops *ops, const char *name, struct rn_sriov_report *r,
		    struct rn_error *e)
{
	struct rn_vf_settings s = { .has_mac = true };
	char guid[RN_GUID_STRLEN], now[RN_GUID_STRLEN] = "";
	int rc;

	if (!strcmp(vf->link_layer, "InfiniBand")) {
		uint64_t node;

		/* from the port's own GUID: unique per port and VF on every node */
		if (rn_sriov_vf_ib_guid(pf, vf->index, &node))
			return rn_fail(e, -ENODATA, "%s vf %d (%s): the PF's port GUID is unknown "
				       "(no IPoIB address, no RDMA device): no GUID derived", name,
				       vf->index, vf->pci);
		fmt_guid(node, guid, sizeof(guid));
		rc = ops->vf_set_guids(ops->ctx, pf->ifname, vf->index, node, node, e);
		if (!rc)	/* the VF driver reads them when it probes */
			rc = ops->vf_rebind(ops->ctx, roots, vf->pci, vf->driver, e);
		if (!rc)
			rc = wait_guid(c, roots, vf, guid, name, now, e);
		if (rc)
			return rc;
		rn_sriov_report_add(r, "%s vf %d (%s): node_guid/port_guid %s through the PF, %s "
				    "rebound", name, vf->index, vf->pci, guid, vf->driver);
		return 0;
	}
	rn_sriov_vf_mac(pf, vf->index, s.mac);
	rc = ops->vf_apply(ops->ctx, pf->ifname, vf->index, &s, e);
	if (rc)
		return rc;
	rc = ops->vf_rebind(ops->ctx, roots, vf->pci, vf->driver, e);
	if (rc)
		return rc;
	/* the driver comes back with a new RDMA device: wait for its GUID */
	rc = wait_guid(c, roots, vf, "", name, now, e);
	if (rc)
		return rc;
	rn_sriov_report_add(r, "%s vf %d (%s): admin MAC %02x:%02x:%02x:%02x:%02x:%02x, %s "
			    "rebound, node GUID %s", name, vf->index, vf->pci, s.mac[0], s.mac[1],
			    s.mac[2], s.mac[3], s.mac[4], s.mac[5], vf->driver, now);
	return 0;
}

static int provision_pf(const struct rn_sriov_config *c, const struct rn_sriov_pf_config *pc,
			const struct rn_sriov_pf *pf0, const struct rn_rdma_roots *roots,
			const struct rn_sriov_ops *ops, struct rn_sriov_report *r,
			struct rn_error *e)
{
	const char *name = pf0->ifname[0] ? pf0->ifname : pf0->pci;
	struct rn_sriov_host h = { 0 };
	const struct rn_sriov_pf *pf;
	int rc = 0, first = 0;

	if (pc->num_vfs > pf0->totalvfs)
		return rn_fail(e, -EINVAL, "%s: numVfs %d is more than sriov_totalvfs %d: not "
			       "changed", name, pc->num_vfs, pf0->totalvfs);
	if (pf0->numvfs != pc->num_vfs) {
		rc = set_numvfs(c, pc, pf0, roots, name, r, e);
		if (rc)
			return rc;
		/* new VFs: wait for their netdevs and RDMA devices */
		rc = wait_vfs(c, pc, roots, pf0->pci, name, &h, e);
		if (rc) {
			rn_sriov_host_free(&h);
			return rc;
		}
	} else {
		rc = rn_sriov_discover(&h, roots, false, e);
		if (rc)
			return rc;
	}
	pf = rn_sriov_find_pf(&h, pf0->pci);
	for (int i = 0; pf && i < pf->n_vfs; i++) {
		const struct rn_sriov_vf *vf = &pf->vfs[i];
		struct rn_error ve = { 0 };
		int vrc = 0, fd = -1;

		if (vf_claim(c, vf->pci, &fd, r, name, vf->index))
			continue;
		if (vf->driver[0] && !vf->netdev[0])
			rn_sriov_report_add(r, "%s vf %d (%s): no netdev in this netns and no pod "
					    "holds it (the leak sweep restores it)", name, vf->index,
					    vf->pci);
		else if (pc->is_rdma && vf->driver[0] && !vf->rdma_dev[0])
			rn_sriov_report_add(r, "%s vf %d (%s): no RDMA device in this netns and no "
					    "pod holds it", name, vf->index, vf->pci);
		if (pc->mtu && vf->netdev[0] && vf->mtu != pc->mtu) {
			vrc = ops->netdev_set_mtu(ops->ctx, vf->netdev, pc->mtu, &ve);
			if (!vrc)
				rn_sriov_report_add(r, "%s vf %d (%s): mtu %u -> %u", name, vf->index,
						    vf->netdev, vf->mtu, pc->mtu);
		}
		if (!vrc && pc->is_rdma && vf->rdma_dev[0] && rn_rdma_guid_is_zero(vf->node_guid)) {
			vrc = fix_guid(c, pf, vf, roots, ops, name, r, &ve);
			if (!vrc)
				r->guids_fixed++;
			else
				r->guids_zero++;
		}
		if (fd >= 0)
			close(fd);
		if (vrc) {
			r->n_errors++;
			rn_sriov_report_add(r, "error: %s", ve.msg);
			if (!first) {
				first = vrc;
				rn_fail(e, vrc, "%s", ve.msg);
			}
		}
	}
	rn_sriov_host_free(&h);
	return first;
}

int rn_sriov_provision(const struct rn_sriov_config *c, const struct rn_rdma_roots *roots,
		       const struct rn_sriov_ops *ops, struct rn_sriov_report *r,
		       struct rn_error *e)
{
	struct rn_sriov_host h;
	int first = 0, rc;

	if (!ops)
		ops = &rn_sriov_live_ops;
	memset(r, 0, sizeof(*r));
	if (!c->n)
		return 0;
	rc = rn_sriov_discover(&h, roots, false, e);
	if (rc)
		return rc;
	for (int i = 0; i < c->n; i++) {
		const struct rn_sriov_pf_config *pc = &c->pfs[i];
		int matched = 0;

		for (int j = 0; j < h.n_pfs; j++) {
			struct rn_error pe = { 0 };
			int errors = r->n_errors;

			/* the first entry that selects a PF owns it */
			if (rn_sriov_config_for_pf(c, &h.pfs[j]) != pc)
				continue;
			matched++;
			rc = provision_pf(c, pc, &h.pfs[j], roots, ops, r, &pe);
			if (rc) {
				if (r->n_errors == errors) {	/* not a VF's, already reported */
					r->n_errors++;
					rn_sriov_report_add(r, "error: %s", pe.msg);
				}
				if (!first) {
					first = rc;
					rn_fail(e, rc, "%s", pe.msg);
				}
			}
		}
		if (!matched) {
			struct rn_error ne = { 0 };

			rn_fail(&ne, -ENODEV, "sriov[%d]: %s%s selects no SR-IOV PF on this node", i,
				pc->pf[0] ? "pf " : "selectors", pc->pf);
			r->n_errors++;
			rn_sriov_report_add(r, "error: %s", ne.msg);
			if (!first) {
				first = ne.code;
				*e = ne;
			}
		}
	}
	rn_sriov_host_free(&h);
	return first;
}

bool rn_sriov_will_fix_guid(const struct rn_sriov_config *c, const struct rn_sriov_host *h,
			    const char *vf_pci, char *why, size_t size)
{
	const struct rn_sriov_pf *pf = NULL;
	const struct rn_sriov_pf_config *pc;

	if (!rn_sriov_find_vf(h, vf_pci, &pf) || !pf) {
		snprintf(why, size, "VF %s is not a VF of an SR-IOV PF on this node", vf_pci);
		return false;
	}
	pc = rn_sriov_config_for_pf(c, pf);
	if (!pc) {
		snprintf(why, size, "rdmanetd will not fix it: no \"sriov\" config entry manages "
			 "PF %s; add one with \"isRdma\": true, or set it by hand", pf->ifname[0] ?
			 pf->ifname : pf->pci);
		return false;
	}
	if (!pc->is_rdma) {
		snprintf(why, size, "rdmanetd will not fix it: the \"sriov\" entry of PF %s has "
			 "\"isRdma\": false", pf->ifname[0] ? pf->ifname : pf->pci);
		return false;
	}
	snprintf(why, size, "rdmanetd fixes it at start-up (admin MAC through PF %s and a driver "
		 "rebind)", pf->ifname[0] ? pf->ifname : pf->pci);
	return true;
}
