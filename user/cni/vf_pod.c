// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* CHECK's look inside the pod for a VF (vf.h, cni_vf_in_pod): the pod
 * interface is this VF's netdev (the PCI bus address its driver reports,
 * asked inside the pod netns: a name and an alias can be copied, the
 * device cannot), and the VF's RDMA device is in the pod's netns with its
 * port on that interface; in the host's it is not. RDMA netlink answers
 * per network namespace in exclusive mode, so each question is asked from
 * a socket of the namespace it is about. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "rdma/rdma.h"
#include "vf.h"

/* The bus address the driver of netdev ifname reports (this netns). */
static int bus_info(const char *ifname, char *out, size_t size)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		rc = -errno;
	close(fd);
	if (!rc)
		snprintf(out, size, "%.*s", (int)sizeof(di.bus_info), di.bus_info);
	return rc;
}

struct rdma_find {
	const char *name;
	unsigned int index;
	bool found;
	char port_netdev[RN_IFNAMSIZ];
};

static int dev_cb(const struct rn_rdma_nl_dev *d, void *arg)
{
	struct rdma_find *f = arg;

	if (strcmp(d->name, f->name))
		return 0;
	f->found = true;
	f->index = d->index;
	return 1;
}

static int port_cb(const struct rn_rdma_nl_port *p, void *arg)
{
	struct rdma_find *f = arg;

	snprintf(f->port_netdev, sizeof(f->port_netdev), "%s", p->ndev_name);
	return 1;
}

/* Whether RDMA device name is in this process's netns; its first port's
 * netdev (as this netns names it) in f->port_netdev. */
static int rdma_find(const char *name, struct rdma_find *f, struct rn_error *e)
{
	struct rn_rdma_nl *nl;
	int rc;

	memset(f, 0, sizeof(*f));
	f->name = name;
	if (rn_rdma_nl_open(&nl, e))
		return e->code;
	rc = rn_rdma_nl_dev_dump(nl, dev_cb, f, e);
	if (!rc && f->found)
		rc = rn_rdma_nl_port_dump(nl, f->index, port_cb, f, e);
	rn_rdma_nl_close(nl);
	return rc < 0 ? rc : 0;
}

int cni_vf_in_pod(const struct cni_netns *ns, const struct rn_sriov_hold *h, const char *ifname,
		  char *why, size_t size, struct rn_error *e)
{
	struct rdma_find pod, host;
	char bus[64] = "";
	int rc;

	why[0] = '\0';
	if (cni_netns_enter(ns, e))
		return e->code;
	rc = bus_info(ifname, bus, sizeof(bus));
	if (rc == -EOPNOTSUPP)
		rc = 0;		/* a driver without ethtool: the alias has to do */
	else if (rc)
		rn_fail(e, rc, "%s: ethtool drvinfo: %s", ifname, strerror(-rc));
	if (!rc && h->rdma_moved)
		rc = rdma_find(h->orig_rdma_dev, &pod, e);
	cni_netns_leave(ns);
	if (rc)
		return rc;
	if (bus[0] && strcmp(bus, h->pci)) {
		snprintf(why, size, "%s is the netdev of %s, not of VF %s", ifname, bus, h->pci);
		return 0;
	}
	if (!h->rdma_moved)
		return 0;
	if (!pod.found) {
		snprintf(why, size, "VF %s: RDMA device %s is not in the pod's netns", h->pci,
			 h->orig_rdma_dev);
		return 0;
	}
	if (strcmp(pod.port_netdev, ifname)) {
		snprintf(why, size, "VF %s: RDMA device %s's port is on %s, not %s", h->pci,
			 h->orig_rdma_dev, pod.port_netdev[0] ? pod.port_netdev : "no netdev",
			 ifname);
		return 0;
	}
	rc = rdma_find(h->orig_rdma_dev, &host, e);
	if (rc)
		return rc;
	if (host.found)
		snprintf(why, size, "VF %s: RDMA device %s is in the host netns too", h->pci,
			 h->orig_rdma_dev);
	return 0;
}
