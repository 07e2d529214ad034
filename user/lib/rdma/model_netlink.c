// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The RDMA model from RDMA netlink: device and port state, the port's
 * netdev in this namespace, the netns mode, hardware counters and the
 * uverbs driver id. What sysfs said is kept where netlink is silent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rdma/drivers.h"
#include "rdma/model_sources.h"
#include "rdma/rdma_nl.h"

static const char *const node_types[] = { [1] = "CA", [2] = "SWITCH", [3] = "ROUTER",
					   [4] = "RNIC", [5] = "USNIC", [6] = "USNIC_UDP",
					   [7] = "UNSPECIFIED" };

static void format_guid(uint64_t v, char buf[RN_GUID_STRLEN])
{
	snprintf(buf, RN_GUID_STRLEN, "%04x:%04x:%04x:%04x", (unsigned int)(v >> 48) & 0xffff,
		 (unsigned int)(v >> 32) & 0xffff, (unsigned int)(v >> 16) & 0xffff,
		 (unsigned int)v & 0xffff);
}

static int on_dev(const struct rn_rdma_nl_dev *nd, void *arg)
{
	struct rn_rdma_model *m = arg;
	struct rn_rdma_dev *d = rn_rdma_model_add_dev(m, nd->name);

	if (!d)
		return 0;
	d->in_netlink = true;
	d->index = nd->index;
	if (nd->fw_ver[0])
		snprintf(d->fw_ver, sizeof(d->fw_ver), "%s", nd->fw_ver);
	if (nd->node_guid || !d->node_guid[0])
		format_guid(nd->node_guid, d->node_guid);
	if (nd->sys_image_guid || !d->sys_image_guid[0])
		format_guid(nd->sys_image_guid, d->sys_image_guid);
	if (nd->node_type > 0 && nd->node_type < (int)(sizeof(node_types) / sizeof(node_types[0])))
		snprintf(d->node_type, sizeof(d->node_type), "%s", node_types[nd->node_type]);
	snprintf(d->protocol, sizeof(d->protocol), "%s", nd->protocol);
	for (unsigned int p = 1; p <= nd->n_ports && p <= 64; p++)
		rn_rdma_dev_port(d, p, true);
	return 0;
}

struct port_ctx {
	struct rn_rdma_model *m;
	struct rn_rdma_dev *d;
};

static int on_port(const struct rn_rdma_nl_port *np, void *arg)
{
	struct port_ctx *c = arg;
	struct rn_rdma_port *p = rn_rdma_dev_port(c->d, np->port, true);

	if (!p)
		return 0;
	if (np->state >= 0 && np->state <= RN_PORT_ACTIVE_DEFER)
		p->state = (enum rn_port_state)np->state;
	if (np->phys_state >= 0)
		p->phys_state = np->phys_state;
	/* netlink names the netdev only when it lives in our namespace */
	if (np->ndev_name[0]) {
		snprintf(p->netdev, sizeof(p->netdev), "%s", np->ndev_name);
		p->netdev_ifindex = (int)np->ndev_index;
	}
	return 0;
}

static int on_counter(const char *name, uint64_t value, void *arg)
{
	return rn_rdma_port_add_counter(arg, name, value) ? 1 : 0;
}

int rn_rdma_load_netlink(struct rn_rdma_model *m, unsigned int sources)
{
	struct rn_error e = { 0 };
	struct rn_rdma_nl *nl;
	int mode;

	if (rn_rdma_nl_open(&nl, &e)) {
		rn_rdma_model_note(m, "%s; state from sysfs only", e.msg);
		return -1;
	}
	if (rn_rdma_nl_dev_dump(nl, on_dev, m, &e)) {
		rn_rdma_model_note(m, "%s", e.msg);
		rn_rdma_nl_close(nl);
		return -1;
	}
	for (int i = 0; i < m->n_devs; i++) {
		struct rn_rdma_dev *d = &m->devs[i];
		struct port_ctx c = { m, d };
		const struct rn_rdma_driver_info *drv;
		int id;

		if (!d->in_netlink)
			continue;
		if (rn_rdma_nl_port_dump(nl, d->index, on_port, &c, &e))
			rn_rdma_model_note(m, "%s: %s", d->name, e.msg);
		if (!rn_rdma_nl_uverbs_driver_id(nl, d->index, &id, NULL) &&
		    (drv = rn_rdma_driver_by_id(id))) {
			snprintf(d->provider, sizeof(d->provider), "%s", drv->provider);
			if (!d->driver[0])
				snprintf(d->driver, sizeof(d->driver), "%s", drv->netdev_driver);
		}
		for (int p = 0; (sources & RN_RDMA_SRC_COUNTERS) && p < d->n_ports; p++) {
			struct rn_rdma_port *port = &d->ports[p];

			if (rn_rdma_nl_stat_get(nl, d->index, port->num, on_counter, port, &e)) {
				rn_rdma_model_note(m, "%s/%u: %s", d->name, port->num, e.msg);
				continue;
			}
			rn_rdma_port_sort_counters(port);
			port->counters_source = "netlink";
		}
	}
	if (!rn_rdma_nl_netns_mode_get(nl, &mode, &e)) {
		m->netns_mode = mode ? RN_NETNS_SHARED : RN_NETNS_EXCLUSIVE;
		m->netns_mode_source = "netlink";
	} else {
		rn_rdma_model_note(m, "%s", e.msg);
	}
	rn_rdma_nl_close(nl);
	return 0;
}

int rn_rdma_netns_mode_set(enum rn_netns_mode mode, struct rn_error *e)
{
	struct rn_rdma_nl *nl;
	int err;

	if (mode != RN_NETNS_SHARED && mode != RN_NETNS_EXCLUSIVE)
		return rn_fail(e, -EINVAL, "netns mode: expected shared or exclusive");
	err = rn_rdma_nl_open(&nl, e);
	if (err)
		return err;
	err = rn_rdma_nl_netns_mode_set(nl, mode == RN_NETNS_SHARED, e);
	rn_rdma_nl_close(nl);
	if (err == -EBUSY)
		return rn_fail(e, err, "cannot set RDMA netns mode %s while network namespaces "
			       "other than the initial one exist (the kernel refuses); set it at "
			       "boot: options ib_core netns_mode=%d", rn_netns_mode_names[mode],
			       mode == RN_NETNS_SHARED);
	return err;
}
