// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/gid.h"
#include "rdma/model_json.h"

static json_t *str_or_null(const char *s)
{
	return s && s[0] ? json_string(s) : json_null();
}

static json_t *int_or_null(long long v, bool known)
{
	return known ? json_integer(v) : json_null();
}

static json_t *sources_json(unsigned int sources)
{
	json_t *a = json_array();

	if (sources & RN_RDMA_SRC_SYSFS)
		json_array_append_new(a, json_string("sysfs"));
	if (sources & RN_RDMA_SRC_NETLINK)
		json_array_append_new(a, json_string("netlink"));
	if (sources & RN_RDMA_SRC_VERBS)
		json_array_append_new(a, json_string("verbs"));
	return a;
}

static json_t *notes_json(const struct rn_rdma_model *m)
{
	json_t *a = json_array();

	for (int i = 0; i < m->n_notes; i++)
		json_array_append_new(a, json_string(m->notes[i]));
	return a;
}

static json_t *pci_json(const struct rn_rdma_dev *d)
{
	const struct rn_rdma_pci *p = &d->pci;
	json_t *vfs = json_array();

	if (!d->is_pci)
		return json_null();
	for (int i = 0; i < p->n_vfs; i++)
		json_array_append_new(vfs, json_string(p->vfs[i]));
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "address", p->addr,
			 "vendor", str_or_null(p->vendor), "device", str_or_null(p->device),
			 "driver", str_or_null(p->driver), "physfn", str_or_null(p->physfn),
			 "vf_index", int_or_null(p->vf_index, p->vf_index >= 0),
			 "vfs", vfs,
			 "sriov_numvfs", int_or_null(p->sriov_numvfs, p->sriov_numvfs >= 0),
			 "sriov_totalvfs", int_or_null(p->sriov_totalvfs, p->sriov_totalvfs >= 0));
}

static json_t *chardevs_json(const struct rn_rdma_dev *d)
{
	json_t *a = json_array();

	for (int i = 0; i < d->n_chardevs; i++) {
		const struct rn_rdma_chardev *c = &d->chardevs[i];

		json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:s,s:o,s:b}", "name", c->name,
						   "kind", c->kind,
						   "port", int_or_null(c->port, c->port > 0),
						   "path", c->path, "devt", str_or_null(c->devt),
						   "present", c->present));
	}
	return a;
}

static json_t *counters_json(const struct rn_rdma_port *p)
{
	json_t *o = json_object();

	for (int i = 0; i < p->n_counters; i++)
		json_object_set_new(o, p->counters[i].name,
				    json_integer((json_int_t)p->counters[i].value));
	return o;
}

/* A port's "rate" as a number a query can compare: Gb/s (null if sysfs
 * gave none); the kernel's text ("100 Gb/sec (4X EDR)") is "rate_text". */
static json_t *rate_gbps(const char *text)
{
	char *end;
	double gbps = text[0] ? strtod(text, &end) : 0;

	return text[0] && end != text ? json_real(gbps) : json_null();
}

static json_t *port_json(const struct rn_rdma_port *p)
{
	json_t *o = json_pack("{s:i,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i}",
			      "port", (int)p->num, "link_layer", str_or_null(p->link_layer),
			      "state", rn_port_state_names[p->state],
			      "phys_state", str_or_null(p->phys_state_name),
			      "netdev", str_or_null(p->netdev),
			      "netdev_ifindex",
			      int_or_null(p->netdev_ifindex, p->netdev_ifindex > 0),
			      "active_mtu", int_or_null(p->active_mtu, p->active_mtu > 0),
			      "max_mtu", int_or_null(p->max_mtu, p->max_mtu > 0),
			      "gid_tbl_len", int_or_null(p->gid_tbl_len, p->gid_tbl_len > 0),
			      "rate", rate_gbps(p->rate), "gids", p->n_gids);

	if (p->counters_source)
		json_object_set_new(o, "hw_counters", counters_json(p));
	json_object_set_new(o, "rate_text", str_or_null(p->rate));
	return o;
}

static json_t *dev_json(const struct rn_rdma_dev *d)
{
	json_t *ports = json_array();

	for (int i = 0; i < d->n_ports; i++)
		json_array_append_new(ports, port_json(&d->ports[i]));
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:o,s:o,"
			 "s:b,s:b}",
			 "name", d->name, "index", int_or_null(d->index, d->in_netlink),
			 "node_type", str_or_null(d->node_type),
			 "node_guid", str_or_null(d->node_guid),
			 "sys_image_guid", str_or_null(d->sys_image_guid),
			 "node_guid_zero", rn_rdma_guid_is_zero(d->node_guid),
			 "fw_ver", str_or_null(d->fw_ver), "hca_type", str_or_null(d->hca_type),
			 "protocol", str_or_null(d->protocol), "driver", str_or_null(d->driver),
			 "provider", str_or_null(d->provider), "parent", str_or_null(d->parent),
			 "function", rn_rdma_function_names[d->fn], "pci", pci_json(d),
			 "chardevs", chardevs_json(d), "ports", ports,
			 "in_netlink", d->in_netlink, "in_verbs", d->in_verbs);
}

json_t *rn_rdma_model_json(const struct rn_rdma_model *m, const char *dev)
{
	json_t *devs = json_array();

	for (int i = 0; i < m->n_devs; i++)
		if (!dev || !strcmp(dev, m->devs[i].name))
			json_array_append_new(devs, dev_json(&m->devs[i]));
	return json_pack("{s:o,s:o,s:o,s:o,s:b,s:s,s:o}",
			 "netns_mode", m->netns_mode == RN_NETNS_UNKNOWN ? json_null() :
			 json_string(rn_netns_mode_names[m->netns_mode]),
			 "sources", sources_json(m->sources),
			 "verbs_devices", int_or_null(m->verbs_devices, m->verbs_devices >= 0),
			 "notes", notes_json(m), "rdma_cm", m->rdma_cm_present,
			 "sysfs_root", m->roots.sys, "devices", devs);
}

json_t *rn_rdma_gid_json(const struct rn_rdma_dev *d, const struct rn_rdma_port *p,
			 const struct rn_rdma_gid *g)
{
	char gid[RN_GID_STRLEN], addr[RN_ADDR_STRLEN];

	rn_gid_format(g->raw, gid);
	return json_pack("{s:s,s:i,s:i,s:s,s:s,s:o,s:o}", "device", d->name, "port", (int)p->num,
			 "index", (int)g->index, "gid", gid, "type", rn_gid_type_names[g->type],
			 "netdev", str_or_null(g->netdev),
			 "address", g->addr.family ? json_string(rn_addr_format(&g->addr, addr)) :
			 json_null());
}

json_t *rn_rdma_gids_json(const struct rn_rdma_model *m, const char *dev)
{
	json_t *gids = json_array();
	bool verbs = true;

	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		if (dev && strcmp(dev, d->name))
			continue;
		for (int p = 0; p < d->n_ports; p++) {
			verbs &= d->ports[p].gids_from_verbs;
			for (int g = 0; g < d->ports[p].n_gids; g++)
				json_array_append_new(gids, rn_rdma_gid_json(d, &d->ports[p],
									     &d->ports[p].gids[g]));
		}
	}
	return json_pack("{s:s,s:o,s:o}", "source", verbs ? "verbs" : "sysfs",
			 "notes", notes_json(m), "gids", gids);
}
