// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The RDMA model from sysfs: class/infiniband/<dev> (GUIDs, ports, GID
 * tables with gid_attrs), its PCI device (vendor, device, driver, physfn,
 * virtfnN, sriov_*), class/infiniband_verbs and class/infiniband_mad for
 * the character devices, module/ib_core for the netns mode. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/drivers.h"
#include "rdma/gid.h"
#include "rdma/model_sources.h"
#include "rdma/sysfs_attr.h"

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "4: ACTIVE" -> 4 and "ACTIVE" */
static int parse_numbered(const char *s, char *name, size_t size)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != ':')
		return -1;
	for (end++; *end == ' '; end++)
		;
	if (name)
		snprintf(name, size, "%s", end);
	return (int)v;
}

static void strip_hex_prefix(char *s)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		memmove(s, s + 2, strlen(s + 2) + 1);
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* A read the device and port lists depend on failed for another reason
 * than the thing being absent (ENOENT; ENODEV from a device going away):
 * the model is incomplete, and says where. */
static void read_failed(struct rn_rdma_model *m, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void read_failed(struct rn_rdma_model *m, int err, const char *fmt, ...)
{
	char msg[sizeof(m->read_err_msg)] = "cannot read ";
	size_t len = strlen(msg);
	va_list ap;

	if (err >= 0 || err == -ENOENT || err == -ENODEV)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + len, sizeof(msg) - len, fmt, ap);
	va_end(ap);
	len = strlen(msg);
	snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(-err));
	rn_rdma_model_note(m, "%s", msg);
	if (m->read_err)
		return;
	m->read_err = err;
	memcpy(m->read_err_msg, msg, sizeof(msg));
}

/* readdir that tells the end of a directory from a failure to read it */
static struct dirent *next_entry(struct rn_rdma_model *m, DIR *dir, const char *path)
{
	struct dirent *de;

	errno = 0;
	de = readdir(dir);
	if (!de && errno)
		read_failed(m, -errno, "%s", path);
	return de;
}

/* virtfnN links of a PF, in N order; also tells a VF its N */
static void read_vfs(const char *devdir, struct rn_rdma_pci *pci)
{
	char name[RN_PCI_ADDR_LEN];
	struct dirent *de;
	int max = -1;
	DIR *d = opendir(devdir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "virtfn", 6) && is_number(de->d_name + 6))
			max = atoi(de->d_name + 6) > max ? atoi(de->d_name + 6) : max;
	closedir(d);
	if (max < 0)
		return;
	pci->vfs = calloc((size_t)max + 1, sizeof(*pci->vfs));
	if (!pci->vfs)
		return;
	for (int i = 0; i <= max; i++)
		if (!rn_sysfs_link_name(name, sizeof(name), "%s/virtfn%d", devdir, i))
			memcpy(pci->vfs[pci->n_vfs++], name, sizeof(name));
}

static int vf_index_of(const char *sys, const char *pf, const char *vf)
{
	char name[RN_PCI_ADDR_LEN];

	for (int i = 0; i < 4096; i++) {
		if (rn_sysfs_link_name(name, sizeof(name), "%s/bus/pci/devices/%s/virtfn%d", sys,
				       pf, i))
			return -1;
		if (!strcmp(name, vf))
			return i;
	}
	return -1;
}

/* What selectors and discovery go by (the PCI IDs, the driver, whether a
 * VF) is read with failures recorded; the rest is best effort. */
static void read_pci(struct rn_rdma_model *m, struct rn_rdma_dev *d, const char *ibdir)
{
	char devdir[PATH_MAX], subsys[32];
	struct rn_rdma_pci *pci = &d->pci;
	long v;
	int err;

	if (rn_pathf(devdir, sizeof(devdir), "%s/device", ibdir))
		return;
	err = rn_sysfs_link_name(pci->addr, sizeof(pci->addr), "%s", devdir);
	if (err) {
		read_failed(m, err, "%s", devdir);
		return;
	}
	err = rn_sysfs_link_name(subsys, sizeof(subsys), "%s/subsystem", devdir);
	if (err || strcmp(subsys, "pci")) {
		read_failed(m, err, "%s/subsystem", devdir);
		pci->addr[0] = '\0';
		return;
	}
	d->is_pci = true;
	d->fn = RN_FN_PF;
	err = rn_sysfs_read(pci->vendor, sizeof(pci->vendor), "%s/vendor", devdir);
	if (!err)
		strip_hex_prefix(pci->vendor);
	read_failed(m, err, "%s/vendor", devdir);
	err = rn_sysfs_read(pci->device, sizeof(pci->device), "%s/device", devdir);
	if (!err)
		strip_hex_prefix(pci->device);
	read_failed(m, err, "%s/device", devdir);
	/* a driver name too long to keep is one no selector can name either */
	err = rn_sysfs_link_name(pci->driver, sizeof(pci->driver), "%s/driver", devdir);
	if (err != -ENAMETOOLONG)
		read_failed(m, err, "%s/driver", devdir);
	if (!rn_sysfs_read_long(&v, "%s/sriov_numvfs", devdir))
		pci->sriov_numvfs = (int)v;
	if (!rn_sysfs_read_long(&v, "%s/sriov_totalvfs", devdir))
		pci->sriov_totalvfs = (int)v;
	err = rn_sysfs_link_name(pci->physfn, sizeof(pci->physfn), "%s/physfn", devdir);
	if (!err) {
		d->fn = RN_FN_VF;
		pci->vf_index = vf_index_of(m->roots.sys, pci->physfn, pci->addr);
	}
	read_failed(m, err, "%s/physfn", devdir);
	read_vfs(devdir, pci);
	snprintf(d->driver, sizeof(d->driver), "%s", pci->driver);
}

static void read_gids(struct rn_rdma_port *p, const char *portdir)
{
	char path[PATH_MAX], val[64];
	bool eth = !strcmp(p->link_layer, "Ethernet");
	struct dirent *de;
	DIR *dir;

	if (rn_pathf(path, sizeof(path), "%s/gids", portdir) || !(dir = opendir(path)))
		return;
	while ((de = readdir(dir))) {
		struct rn_rdma_gid g = { 0 };

		if (!is_number(de->d_name))
			continue;
		g.index = (unsigned int)atoi(de->d_name);
		if (rn_sysfs_read(val, sizeof(val), "%s/gids/%s", portdir, de->d_name) ||
		    rn_gid_parse(val, g.raw) || rn_gid_is_zero(g.raw))
			continue;
		/* an entry without type (EINVAL on real sysfs) is one being torn down */
		if (rn_sysfs_read(val, sizeof(val), "%s/gid_attrs/types/%s", portdir, de->d_name) ||
		    rn_gid_type_parse(val, eth, &g.type))
			g.type = eth ? RN_GID_TYPE_UNKNOWN : RN_GID_TYPE_IB;
		rn_sysfs_read(g.netdev, sizeof(g.netdev), "%s/gid_attrs/ndevs/%s", portdir,
			      de->d_name);
		rn_gid_addr(g.raw, g.type, &g.addr);
		rn_rdma_port_add_gid(p, &g);
	}
	closedir(dir);
	p->gids_from_verbs = false;
}

/* The port's netdev without netlink: the netdev of GID 0 (the default GID
 * is the port's own), else the PCI device's netdev for that port, else a
 * soft device's parent. */
static void port_netdev(struct rn_rdma_model *m, const struct rn_rdma_dev *d,
			struct rn_rdma_port *p, const char *ibdir)
{
	char path[PATH_MAX], only[RN_IFNAMSIZ] = "";
	struct dirent *de;
	int n = 0, err;
	long v;
	DIR *dir;

	for (int i = 0; i < p->n_gids; i++) {
		if (p->gids[i].index == 0 && p->gids[i].netdev[0]) {
			snprintf(p->netdev, sizeof(p->netdev), "%s", p->gids[i].netdev);
			goto ifindex;
		}
	}
	err = rn_pathf(path, sizeof(path), "%s/device/net", ibdir);
	dir = err ? NULL : opendir(path);
	if (!dir && d->is_pci)
		read_failed(m, err ? err : -errno, "%s/device/net", ibdir);
	if (dir) {
		while ((de = next_entry(m, dir, path))) {
			if (de->d_name[0] == '.' || strlen(de->d_name) >= RN_IFNAMSIZ)
				continue;
			n++;
			snprintf(only, sizeof(only), "%s", de->d_name);
			if (!rn_sysfs_read_long(&v, "%s/%s/dev_port", path, de->d_name) &&
			    v == (long)p->num - 1)
				snprintf(p->netdev, sizeof(p->netdev), "%s", de->d_name);
		}
		closedir(dir);
		if (!p->netdev[0] && n == 1)
			snprintf(p->netdev, sizeof(p->netdev), "%s", only);
	}
	if (!p->netdev[0] && d->parent[0])
		snprintf(p->netdev, sizeof(p->netdev), "%s", d->parent);
ifindex:
	if (p->netdev[0] && !rn_sysfs_read_long(&v, "%s/class/net/%s/ifindex", m->roots.sys,
						p->netdev))
		p->netdev_ifindex = (int)v;
}

static void read_ports(struct rn_rdma_model *m, struct rn_rdma_dev *d, const char *ibdir)
{
	char path[PATH_MAX], portdir[PATH_MAX], val[64];
	struct dirent *de;
	DIR *dir;

	if (rn_pathf(path, sizeof(path), "%s/ports", ibdir))
		return;
	dir = opendir(path);
	if (!dir) {
		read_failed(m, -errno, "%s", path);
		return;
	}
	while ((de = next_entry(m, dir, path))) {
		struct rn_rdma_port *p;
		int v;

		if (!is_number(de->d_name) || atoi(de->d_name) <= 0)
			continue;
		p = rn_rdma_dev_port(d, (unsigned int)atoi(de->d_name), true);
		if (!p) {
			read_failed(m, -ENOMEM, "%s/%s", path, de->d_name);
			continue;
		}
		if (rn_pathf(portdir, sizeof(portdir), "%s/%s", path, de->d_name))
			continue;
		read_failed(m, rn_sysfs_read(p->link_layer, sizeof(p->link_layer), "%s/link_layer",
					     portdir), "%s/link_layer", portdir);
		if (!rn_sysfs_read(val, sizeof(val), "%s/state", portdir) &&
		    (v = parse_numbered(val, NULL, 0)) >= 0 && v <= RN_PORT_ACTIVE_DEFER)
			p->state = (enum rn_port_state)v;
		if (!rn_sysfs_read(val, sizeof(val), "%s/phys_state", portdir) &&
		    (v = parse_numbered(val, p->phys_state_name, sizeof(p->phys_state_name))) >= 0)
			p->phys_state = v;
		rn_sysfs_read(p->rate, sizeof(p->rate), "%s/rate", portdir);
		read_gids(p, portdir);
		port_netdev(m, d, p, ibdir);
	}
	closedir(dir);
}

static void read_dev(struct rn_rdma_model *m, struct rn_rdma_dev *d)
{
	char ibdir[PATH_MAX], val[64];
	const struct rn_rdma_driver_info *drv;

	if (rn_pathf(ibdir, sizeof(ibdir), "%s/class/infiniband/%s", m->roots.sys, d->name))
		return;
	rn_sysfs_read(d->node_guid, sizeof(d->node_guid), "%s/node_guid", ibdir);
	rn_sysfs_read(d->sys_image_guid, sizeof(d->sys_image_guid), "%s/sys_image_guid", ibdir);
	rn_sysfs_read(d->fw_ver, sizeof(d->fw_ver), "%s/fw_ver", ibdir);
	rn_sysfs_read(d->hca_type, sizeof(d->hca_type), "%s/hca_type", ibdir);
	rn_sysfs_read(d->board_id, sizeof(d->board_id), "%s/board_id", ibdir);
	if (!rn_sysfs_read(val, sizeof(val), "%s/node_type", ibdir))
		parse_numbered(val, d->node_type, sizeof(d->node_type));
	read_pci(m, d, ibdir);
	/* soft RoCE names the netdev it sits on; that is how it is told apart */
	if (!d->is_pci) {
		int err = rn_sysfs_read(d->parent, sizeof(d->parent), "%s/parent", ibdir);

		read_failed(m, err, "%s/parent", ibdir);
		if (!err && d->parent[0])
			snprintf(d->driver, sizeof(d->driver), "rxe");
	}
	drv = d->driver[0] ? rn_rdma_driver_by_name(d->driver) : NULL;
	if (drv)
		snprintf(d->provider, sizeof(d->provider), "%s", drv->provider);
	read_ports(m, d, ibdir);
}

static int add_chardev(struct rn_rdma_dev *d, const struct rn_rdma_chardev *c)
{
	struct rn_rdma_chardev *cds = realloc(d->chardevs,
					      (size_t)(d->n_chardevs + 1) * sizeof(*cds));

	if (!cds)
		return -ENOMEM;
	d->chardevs = cds;
	cds[d->n_chardevs++] = *c;
	return 0;
}

static int cmp_chardev(const void *a, const void *b)
{
	const struct rn_rdma_chardev *x = a, *y = b;
	int k = strcmp(x->kind, y->kind);

	return k ? k : strcmp(x->name, y->name);
}

/* uverbsN (class/infiniband_verbs), umadN and issmN (class/infiniband_mad) */
static void read_chardevs(struct rn_rdma_model *m, const char *class)
{
	char path[PATH_MAX], ibdev[RN_RDMA_NAME_LEN];
	struct dirent *de;
	DIR *dir;

	if (rn_pathf(path, sizeof(path), "%s/class/%s", m->roots.sys, class) ||
	    !(dir = opendir(path)))
		return;
	while ((de = readdir(dir))) {
		struct rn_rdma_chardev c = { 0 };
		struct rn_rdma_dev *d;
		size_t stem;
		long port;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(c.name) ||
		    rn_sysfs_read(ibdev, sizeof(ibdev), "%s/%s/ibdev", path, de->d_name) ||
		    !(d = rn_rdma_find_dev(m, ibdev)))
			continue;
		snprintf(c.name, sizeof(c.name), "%s", de->d_name);
		stem = strcspn(c.name, "0123456789");
		snprintf(c.kind, sizeof(c.kind), "%.*s", (int)stem, c.name);
		if (!rn_sysfs_read_long(&port, "%s/%s/port", path, de->d_name) && port > 0)
			c.port = (unsigned int)port;
		rn_sysfs_read(c.devt, sizeof(c.devt), "%s/%s/dev", path, de->d_name);
		snprintf(c.path, sizeof(c.path), "/dev/infiniband/%s", c.name);
		c.present = rn_sysfs_exists("%s/infiniband/%s", m->roots.dev, c.name);
		add_chardev(d, &c);
	}
	closedir(dir);
}

int rn_rdma_load_sysfs(struct rn_rdma_model *m, struct rn_error *e)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;

	if (rn_pathf(path, sizeof(path), "%s/class/infiniband", m->roots.sys))
		return rn_fail(e, -ENAMETOOLONG, "sysfs root %s: path too long", m->roots.sys);
	dir = opendir(path);
	if (!dir) {
		if (errno != ENOENT)
			return rn_fail(e, -errno, "%s: %s", path, strerror(errno));
		if (!rn_sysfs_exists("%s/class", m->roots.sys))
			return rn_fail(e, -ENOENT, "sysfs root %s: no class/ directory (not a "
				       "sysfs tree)", m->roots.sys);
		rn_rdma_model_note(m, "no RDMA devices: %s does not exist (no RDMA driver "
				   "loaded?)", path);
	} else {
		while ((de = next_entry(m, dir, path)))
			if (de->d_name[0] != '.' && !rn_rdma_model_add_dev(m, de->d_name))
				return closedir(dir), rn_fail(e, -ENOMEM, "out of memory");
		closedir(dir);
	}
	for (int i = 0; i < m->n_devs; i++)
		read_dev(m, &m->devs[i]);
	read_chardevs(m, "infiniband_verbs");
	read_chardevs(m, "infiniband_mad");
	for (int i = 0; i < m->n_devs; i++)
		if (m->devs[i].n_chardevs > 1)
			qsort(m->devs[i].chardevs, (size_t)m->devs[i].n_chardevs,
			      sizeof(m->devs[i].chardevs[0]), cmp_chardev);
	m->rdma_cm_present = rn_sysfs_exists("%s/infiniband/rdma_cm", m->roots.dev);
	return 0;
}

void rn_rdma_load_sysfs_counters(struct rn_rdma_model *m)
{
	char path[PATH_MAX], val[32];
	struct dirent *de;
	DIR *dir;

	for (int i = 0; i < m->n_devs; i++) {
		struct rn_rdma_dev *d = &m->devs[i];

		for (int j = 0; j < d->n_ports; j++) {
			struct rn_rdma_port *p = &d->ports[j];

			if (rn_pathf(path, sizeof(path),
				     "%s/class/infiniband/%s/ports/%u/hw_counters", m->roots.sys,
				     d->name, p->num) || !(dir = opendir(path)))
				continue;
			while ((de = readdir(dir))) {
				char *end;
				unsigned long long v;

				/* lifespan is the refresh period, not a counter */
				if (de->d_name[0] == '.' || !strcmp(de->d_name, "lifespan") ||
				    rn_sysfs_read(val, sizeof(val), "%s/%s", path, de->d_name))
					continue;
				v = strtoull(val, &end, 10);
				if (end != val && !*end)
					rn_rdma_port_add_counter(p, de->d_name, v);
			}
			closedir(dir);
			rn_rdma_port_sort_counters(p);
			p->counters_source = "sysfs";
		}
	}
}

void rn_rdma_load_sysfs_netns_mode(struct rn_rdma_model *m)
{
	char val[8];

	if (rn_sysfs_read(val, sizeof(val), "%s/module/ib_core/parameters/netns_mode",
			  m->roots.sys))
		return;
	if (!strcmp(val, "Y") || !strcmp(val, "1"))
		m->netns_mode = RN_NETNS_SHARED;
	else if (!strcmp(val, "N") || !strcmp(val, "0"))
		m->netns_mode = RN_NETNS_EXCLUSIVE;
	else
		return;
	m->netns_mode_source = "sysfs";
}
