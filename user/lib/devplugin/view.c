// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A resource as kubelet sees it: the HCAs its selectors pick from the RDMA
 * model, each with health (every port ACTIVE and link up, its netdev up)
 * and NUMA node (PCI sysfs), and the units (kubelet device IDs) over them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devplugin/devplugin.h"
#include "rdma/rdma.h"

static int hca_numa(const struct rn_rdma_model *m, const struct rn_rdma_dev *d)
{
	long v = -1;

	if (d->is_pci && d->pci.addr[0]) {
		if (rn_sysfs_read_long(&v, "%s/bus/pci/devices/%s/numa_node", m->roots.sys,
				       d->pci.addr))
			v = -1;
	} else if (d->parent[0]) {
		/* a soft device (rxe) sits on a netdev: its NIC's node */
		if (rn_sysfs_read_long(&v, "%s/class/net/%s/device/numa_node", m->roots.sys,
				       d->parent))
			v = -1;
	}
	return v < 0 || v > 63 ? -1 : (int)v;
}

/* operstate "up", or "unknown" for drivers that never report one */
static bool netdev_up(const struct rn_rdma_model *m, const char *ifname, char *state, size_t sz)
{
	if (rn_sysfs_read(state, sz, "%s/class/net/%s/operstate", m->roots.sys, ifname))
		snprintf(state, sz, "absent");
	return !strcmp(state, "up") || !strcmp(state, "unknown");
}

static void hca_health(const struct rn_rdma_model *m, const struct rn_rdma_dev *d,
		       struct rn_dp_hca *h)
{
	char state[32];

	h->healthy = d->n_ports > 0;
	if (!d->n_ports)
		snprintf(h->why, sizeof(h->why), "%s has no port", d->name);
	for (int i = 0; i < d->n_ports && h->healthy; i++) {
		const struct rn_rdma_port *p = &d->ports[i];

		if (p->state != RN_PORT_ACTIVE && p->state != RN_PORT_ACTIVE_DEFER) {
			h->healthy = false;
			snprintf(h->why, sizeof(h->why), "%s port %u %s", d->name, p->num,
				 rn_port_state_names[p->state <= RN_PORT_ACTIVE_DEFER ? p->state : 0]);
		} else if (p->phys_state && p->phys_state != 5) {
			h->healthy = false;
			snprintf(h->why, sizeof(h->why), "%s port %u physical state %s", d->name,
				 p->num, p->phys_state_name[0] ? p->phys_state_name : "not LinkUp");
		} else if (p->netdev[0] && !netdev_up(m, p->netdev, state, sizeof(state))) {
			h->healthy = false;
			snprintf(h->why, sizeof(h->why), "%s port %u netdev %s %s", d->name, p->num,
				 p->netdev, state);
		}
	}
}

int rn_dp_provider_shared(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
			  struct rn_dp_view *v, struct rn_error *e)
{
	uint64_t all = 0;

	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];
		struct rn_dp_hca *h;

		if (!rn_selectors_match(&rc->selectors, d))
			continue;
		if (v->n_hcas == RN_DP_MAX_HCAS)
			return rn_fail(e, -E2BIG, "%s: more than %d HCAs selected", v->resource,
				       RN_DP_MAX_HCAS);
		h = &v->hcas[v->n_hcas];
		snprintf(h->name, sizeof(h->name), "%s", d->name);
		snprintf(h->pci, sizeof(h->pci), "%s", d->is_pci ? d->pci.addr : "");
		if (d->n_ports) {
			snprintf(h->netdev, sizeof(h->netdev), "%s", d->ports[0].netdev);
			h->port = d->ports[0].num;
		}
		h->numa = hca_numa(m, d);
		hca_health(m, d, h);
		all |= 1ull << v->n_hcas++;
	}
	/* no HCA: an empty list, as the shared plugin advertises then */
	if (!v->n_hcas || !rc->hca_max)
		return 0;
	v->units = calloc((size_t)rc->hca_max, sizeof(*v->units));
	if (!v->units)
		return rn_fail(e, -ENOMEM, "%s: out of memory", v->resource);
	for (long long i = 0; i < rc->hca_max; i++) {
		snprintf(v->units[i].id, sizeof(v->units[i].id), "shared-%lld", i);
		v->units[i].hcas = all;
	}
	v->n_units = (int)rc->hca_max;
	return 0;
}

int rn_dp_view_build(const struct rn_dp_resource_config *rc, const struct rn_rdma_model *m,
		     struct rn_dp_view *v, struct rn_error *e)
{
	size_t bytes;
	int fit;

	memset(v, 0, sizeof(*v));
	rn_dp_resource_fullname(rc, v->resource, sizeof(v->resource));
	v->healthy_every = rc->healthy_every;
	if (m->netns_mode == RN_NETNS_EXCLUSIVE && !rc->provider) {
		v->refused = true;
		snprintf(v->refused_why, sizeof(v->refused_why),
			 "RDMA subsystem in exclusive netns mode: a pod's namespace would not see a "
			 "shared HCA; no devices advertised (rdma system set netns shared)");
		return 0;
	}
	if ((rc->provider ? rc->provider : rn_dp_provider_shared)(rc, m, v, e)) {
		rn_dp_view_free(v);
		return e ? e->code : -EINVAL;
	}
	/* the list as it is now (health strings, NUMA nodes) must fit in what
	 * kubelet takes, or the stream ends with nothing said */
	bytes = rn_dp_list_bytes(v, &fit);
	if (bytes > RN_DP_KUBELET_MSG_MAX) {
		snprintf(v->refused_why, sizeof(v->refused_why), "the device list of %d devices is "
			 "%zu bytes, more than kubelet takes in one message (%u bytes): at most %d "
			 "devices here; no devices advertised (lower rdmaHcaMax)", v->n_units, bytes,
			 RN_DP_KUBELET_MSG_MAX, fit);
		rn_dp_view_free(v);
		v->refused = true;
	}
	return 0;
}

void rn_dp_view_free(struct rn_dp_view *v)
{
	free(v->units);
	v->units = NULL;
	v->n_units = 0;
	free(v->vfs);
	v->vfs = NULL;
	v->n_vfs = 0;
}

bool rn_dp_unit_healthy(const struct rn_dp_view *v, const struct rn_dp_unit *u)
{
	if (u->vf)
		return u->vf->healthy;
	if (!u->hcas)
		return false;
	for (int i = 0; i < v->n_hcas; i++) {
		if (!(u->hcas >> i & 1))
			continue;
		if (v->hcas[i].healthy != v->healthy_every)
			return !v->healthy_every;	/* every: one down; any: one up */
	}
	return v->healthy_every;
}

uint64_t rn_dp_unit_numa(const struct rn_dp_view *v, const struct rn_dp_unit *u)
{
	uint64_t nodes = 0;

	if (u->vf)
		return u->vf->numa >= 0 ? 1ull << u->vf->numa : 0;
	for (int i = 0; i < v->n_hcas; i++)
		if ((u->hcas >> i & 1) && v->hcas[i].numa >= 0)
			nodes |= 1ull << v->hcas[i].numa;
	return nodes;
}

bool rn_dp_view_differs(const struct rn_dp_view *a, const struct rn_dp_view *b)
{
	if (a->n_units != b->n_units || a->refused != b->refused)
		return true;
	for (int i = 0; i < a->n_units; i++)
		if (strcmp(a->units[i].id, b->units[i].id) ||
		    rn_dp_unit_healthy(a, &a->units[i]) != rn_dp_unit_healthy(b, &b->units[i]) ||
		    rn_dp_unit_numa(a, &a->units[i]) != rn_dp_unit_numa(b, &b->units[i]))
			return true;
	return false;
}

int rn_dp_views(const struct rn_config *c, const struct rn_rdma_model *m,
		struct rn_dp_view **out, int *n_out, struct rn_error *e)
{
	struct rn_dp_config *dc = malloc(sizeof(*dc));
	struct rn_dp_view *v = NULL;
	int err = -ENOMEM;

	*out = NULL;
	*n_out = 0;
	if (!dc)
		return rn_fail(e, -ENOMEM, "device_plugin: out of memory");
	err = rn_dp_config_build(c, dc, e);
	if (err)
		goto out;
	v = calloc((size_t)dc->n_res + 1, sizeof(*v));
	if (!v) {
		err = rn_fail(e, -ENOMEM, "device_plugin: out of memory");
		rn_dp_config_free(dc);
		goto out;
	}
	for (int i = 0; i < dc->n_res; i++) {
		struct rn_error why = { 0 };

		/* what the agent does with it: nothing served, and why */
		if (rn_dp_resource_servable(dc, i, &why)) {
			rn_dp_resource_fullname(&dc->res[i], v[i].resource, sizeof(v[i].resource));
			v[i].refused = true;
			snprintf(v[i].refused_why, sizeof(v[i].refused_why), "%s", why.msg);
			continue;
		}
		err = rn_dp_view_build(&dc->res[i], m, &v[i], e);
		if (err) {
			while (i--)
				rn_dp_view_free(&v[i]);
			free(v);
			rn_dp_config_free(dc);
			goto out;
		}
	}
	*out = v;
	*n_out = dc->n_res;
	rn_dp_config_free(dc);
out:
	free(dc);
	return err;
}
