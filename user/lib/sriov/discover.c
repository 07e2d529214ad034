// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* SR-IOV discovery from sysfs: <sys>/bus/pci/devices/<pf> with
 * sriov_totalvfs is a PF; its virtfnN links are its VFs; a function's
 * net/<ifname> and infiniband/<dev> are its netdev and RDMA device as the
 * caller's netns sees them (both classes are netns-tagged in sysfs, so a VF
 * moved into a pod has neither here). The PF's VF admin settings come from
 * rtnetlink on the live host only. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "netaddr.h"
#include "rdma/rdma.h"
#include "sriov/sriov.h"

bool rn_sriov_pci_valid(const char *s)
{
	/* dddd:bb:dd.f */
	static const char shape[] = "xxxx:xx:xx.x";

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'x') {
			if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
				return false;
		} else if (s[i] != shape[i]) {
			return false;
		}
	}
	return s[11] >= '0' && s[11] <= '7';
}

static void hex_id(char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		memmove(s, s + 2, strlen(s + 2) + 1);
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* The one entry of dir (net/, infiniband/), "" if none or unreadable. */
static void first_entry(char *out, size_t size, const char *fmt, const char *sys,
			const char *pci)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	if (rn_pathf(path, sizeof(path), fmt, sys, pci))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!out[0] || strcmp(de->d_name, out) < 0)
			snprintf(out, size, "%.*s", (int)size - 1, de->d_name);
	}
	closedir(d);
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

/* "ec0d:9a03:0078:6fa2" as a number; 0 if it is not one. */
static uint64_t guid_value(const char *s)
{
	unsigned int w[4];

	if (sscanf(s, "%4x:%4x:%4x:%4x", &w[0], &w[1], &w[2], &w[3]) != 4)
		return 0;
	return (uint64_t)w[0] << 48 | (uint64_t)w[1] << 32 | (uint64_t)w[2] << 16 | w[3];
}

/* The port GUID in a 20-byte IPoIB hardware address (4 bytes of QPN and
 * flags, then the port GID: the fe80:: subnet prefix and the port GUID);
 * 0 for any other address. */
static uint64_t ipoib_port_guid(const char *s)
{
	unsigned int b[20];
	uint64_t g = 0;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x:%x", &b[0], &b[1],
		   &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12],
		   &b[13], &b[14], &b[15], &b[16], &b[17], &b[18], &b[19]) != 20)
		return 0;
	for (int i = 12; i < 20; i++)
		g = g << 8 | (b[i] & 0xff);
	return g;
}

/* A soft RDMA device (rxe) whose parent netdev is ifname: what a VF
 * without an RDMA function of its own can carry (the VM testbed's igb VFs). */
static void soft_rdma_on(const char *sys, const char *ifname, char *out, size_t size)
{
	char path[PATH_MAX], parent[RN_IFNAMSIZ + 8];
	struct dirent *de;
	DIR *d;

	if (rn_pathf(path, sizeof(path), "%s/class/infiniband", sys))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' &&
		    !rn_sysfs_read(parent, sizeof(parent), "%s/%s/parent", path, de->d_name) &&
		    !strcmp(parent, ifname)) {
			snprintf(out, size, "%.*s", (int)size - 1, de->d_name);
			break;
		}
	closedir(d);
}

static void read_vf(const char *sys, struct rn_sriov_vf *vf)
{
	char buf[64];
	long v;

	rn_sysfs_link_name(vf->driver, sizeof(vf->driver), "%s/bus/pci/devices/%s/driver", sys,
			   vf->pci);
	first_entry(vf->netdev, sizeof(vf->netdev), "%s/bus/pci/devices/%s/net", sys, vf->pci);
	first_entry(vf->rdma_dev, sizeof(vf->rdma_dev), "%s/bus/pci/devices/%s/infiniband", sys,
		    vf->pci);
	if (vf->netdev[0] && !rn_sysfs_read_long(&v, "%s/class/net/%s/mtu", sys, vf->netdev))
		vf->mtu = (unsigned int)v;
	if (!vf->rdma_dev[0] && vf->netdev[0])
		soft_rdma_on(sys, vf->netdev, vf->rdma_dev, sizeof(vf->rdma_dev));
	if (vf->rdma_dev[0]) {
		rn_sysfs_read(vf->node_guid, sizeof(vf->node_guid),
			      "%s/class/infiniband/%s/node_guid", sys, vf->rdma_dev);
		if (!rn_sysfs_read(buf, sizeof(buf), "%s/class/infiniband/%s/ports/1/link_layer",
				   sys, vf->rdma_dev))
			snprintf(vf->link_layer, sizeof(vf->link_layer), "%.15s", buf);
	}
	vf->admin.spoofchk = vf->admin.trust = vf->admin.link_state = -1;
}

static int read_pf(const char *sys, struct rn_sriov_pf *pf, struct rn_error *e)
{
	char path[PATH_MAX], name[RN_PCI_ADDR_LEN], buf[64];
	long v;
	int max = -1;
	struct dirent *de;
	DIR *d;

	rn_sysfs_read(pf->vendor, sizeof(pf->vendor), "%s/bus/pci/devices/%s/vendor", sys, pf->pci);
	hex_id(pf->vendor);
	rn_sysfs_read(pf->device, sizeof(pf->device), "%s/bus/pci/devices/%s/device", sys, pf->pci);
	hex_id(pf->device);
	rn_sysfs_link_name(pf->driver, sizeof(pf->driver), "%s/bus/pci/devices/%s/driver", sys,
			   pf->pci);
	first_entry(pf->ifname, sizeof(pf->ifname), "%s/bus/pci/devices/%s/net", sys, pf->pci);
	first_entry(pf->rdma_dev, sizeof(pf->rdma_dev), "%s/bus/pci/devices/%s/infiniband", sys,
		    pf->pci);
	if (pf->ifname[0]) {
		if (!rn_sysfs_read_long(&v, "%s/class/net/%s/ifindex", sys, pf->ifname))
			pf->ifindex = (int)v;
		if (!rn_sysfs_read(buf, sizeof(buf), "%s/class/net/%s/address", sys, pf->ifname)) {
			parse_mac(buf, pf->mac);
			pf->port_guid = ipoib_port_guid(buf);
		}
		if (!rn_sysfs_read(buf, sizeof(buf), "%s/class/net/%s/operstate", sys, pf->ifname))
			pf->up = !strcmp(buf, "up");
	}
	if (!pf->port_guid && pf->rdma_dev[0] &&
	    !rn_sysfs_read(buf, sizeof(buf), "%s/class/infiniband/%s/node_guid", sys, pf->rdma_dev))
		pf->port_guid = guid_value(buf);
	pf->numvfs = pf->totalvfs = -1;
	if (!rn_sysfs_read_long(&v, "%s/bus/pci/devices/%s/sriov_numvfs", sys, pf->pci))
		pf->numvfs = (int)v;
	if (!rn_sysfs_read_long(&v, "%s/bus/pci/devices/%s/sriov_totalvfs", sys, pf->pci))
		pf->totalvfs = (int)v;
	pf->drivers_autoprobe = -1;
	if (!rn_sysfs_read_long(&v, "%s/bus/pci/devices/%s/sriov_drivers_autoprobe", sys, pf->pci))
		pf->drivers_autoprobe = (int)v;

	if (rn_pathf(path, sizeof(path), "%s/bus/pci/devices/%s", sys, pf->pci))
		return rn_fail(e, -ENAMETOOLONG, "sysfs path too long");
	d = opendir(path);
	if (!d)
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "virtfn", 6) && isdigit((unsigned char)de->d_name[6]) &&
		    atoi(de->d_name + 6) > max)
			max = atoi(de->d_name + 6);
	closedir(d);
	if (max < 0)
		return 0;
	pf->vfs = calloc((size_t)max + 1, sizeof(*pf->vfs));
	if (!pf->vfs)
		return rn_fail(e, -ENOMEM, "out of memory");
	for (int i = 0; i <= max; i++) {
		struct rn_sriov_vf *vf = &pf->vfs[pf->n_vfs];

		if (rn_sysfs_link_name(name, sizeof(name), "%s/virtfn%d", path, i))
			continue;
		vf->index = i;
		snprintf(vf->pci, sizeof(vf->pci), "%s", name);
		read_vf(sys, vf);
		pf->n_vfs++;
	}
	return 0;
}

static int cmp_pf(const void *a, const void *b)
{
	return strcmp(((const struct rn_sriov_pf *)a)->pci, ((const struct rn_sriov_pf *)b)->pci);
}

static void read_admin(struct rn_sriov_host *h)
{
	struct rn_error e = { 0 };

	h->admin_read = true;
	for (int i = 0; i < h->n_pfs; i++) {
		struct rn_sriov_pf *pf = &h->pfs[i];

		if (!pf->ifname[0])
			continue;
		for (int j = 0; j < pf->n_vfs; j++) {
			int rc = rn_sriov_vf_admin_get(pf->ifname, pf->vfs[j].index,
						       &pf->vfs[j].admin, &e);

			if (rc && rc != -ENOENT && !h->note[0])
				snprintf(h->note, sizeof(h->note), "VF admin settings of %s: %.200s",
					 pf->ifname, e.msg);
		}
	}
}

int rn_sriov_discover(struct rn_sriov_host *h, const struct rn_rdma_roots *roots,
		      bool with_admin, struct rn_error *e)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc;

	memset(h, 0, sizeof(*h));
	h->roots = *roots;
	if (rn_pathf(path, sizeof(path), "%s/bus/pci/devices", roots->sys))
		return rn_fail(e, -ENAMETOOLONG, "sysfs path too long");
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
	}
	while ((de = readdir(d))) {
		struct rn_sriov_pf *pf, *grown;

		if (de->d_name[0] == '.' ||
		    rn_sysfs_exists("%s/%s/sriov_totalvfs", path, de->d_name) != 1)
			continue;
		if (h->n_pfs == RN_SRIOV_MAX_PFS)
			break;
		grown = realloc(h->pfs, (size_t)(h->n_pfs + 1) * sizeof(*h->pfs));
		if (!grown) {
			closedir(d);
			rn_sriov_host_free(h);
			return rn_fail(e, -ENOMEM, "out of memory");
		}
		h->pfs = grown;
		pf = &h->pfs[h->n_pfs++];
		memset(pf, 0, sizeof(*pf));
		snprintf(pf->pci, sizeof(pf->pci), "%.15s", de->d_name);
		rc = read_pf(roots->sys, pf, e);
		if (rc) {
			closedir(d);
			rn_sriov_host_free(h);
			return rc;
		}
	}
	closedir(d);
	if (h->n_pfs)
		qsort(h->pfs, (size_t)h->n_pfs, sizeof(*h->pfs), cmp_pf);
	if (with_admin && !roots->overridden)
		read_admin(h);
	else if (with_admin)
		snprintf(h->note, sizeof(h->note), "VF admin settings: not read (sysfs root %.180s is "
			 "not this host)", roots->sys);
	return 0;
}

void rn_sriov_host_free(struct rn_sriov_host *h)
{
	for (int i = 0; i < h->n_pfs; i++)
		free(h->pfs[i].vfs);
	free(h->pfs);
	h->pfs = NULL;
	h->n_pfs = 0;
}

const struct rn_sriov_pf *rn_sriov_find_pf(const struct rn_sriov_host *h, const char *name_or_pci)
{
	for (int i = 0; i < h->n_pfs; i++)
		if (!strcmp(h->pfs[i].pci, name_or_pci) ||
		    (h->pfs[i].ifname[0] && !strcmp(h->pfs[i].ifname, name_or_pci)))
			return &h->pfs[i];
	return NULL;
}

const struct rn_sriov_vf *rn_sriov_find_vf(const struct rn_sriov_host *h, const char *pci,
					   const struct rn_sriov_pf **pf_out)
{
	for (int i = 0; i < h->n_pfs; i++)
		for (int j = 0; j < h->pfs[i].n_vfs; j++)
			if (!strcmp(h->pfs[i].vfs[j].pci, pci)) {
				if (pf_out)
					*pf_out = &h->pfs[i];
				return &h->pfs[i].vfs[j];
			}
	return NULL;
}
