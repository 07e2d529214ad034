// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* This node's devices as ResourceSlices (resource.k8s.io/v1). An HCA port
 * is shared: allowMultipleAllocations with a "pods" capacity each claim
 * consumes one of (consumable capacity, KEP-5075); a VF is one pod's.
 * Attributes: the standard resource.kubernetes.io/pcieRoot (what a GPU's
 * driver publishes too, so a claim pair can be aligned with
 * matchAttribute), and the driver's own, unqualified (CEL reads them as
 * device.attributes["<driver>"].netdev). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dra/slices.h"
#include "read_file.h"

/* "pci0000:3a" from /sys/bus/pci/devices/<addr> -> ../../../devices/pci0000:3a/... */
static void pcie_root(const struct rn_rdma_roots *roots, const char *pci, char *out, size_t size)
{
	char link[PATH_MAX + 64], target[PATH_MAX];
	const char *p;
	ssize_t n;

	out[0] = '\0';
	snprintf(link, sizeof(link), "%s/bus/pci/devices/%s", roots->sys, pci);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	p = strstr(target, "/devices/pci");
	if (!p)
		return;
	p += strlen("/devices/");
	snprintf(out, size, "%.*s", (int)strcspn(p, "/"), p);
}

static int numa_node(const struct rn_rdma_roots *roots, const char *pci)
{
	char path[PATH_MAX + 64], *text = NULL;
	int v = -1;

	snprintf(path, sizeof(path), "%s/bus/pci/devices/%s/numa_node", roots->sys, pci);
	if (!rn_read_file("numa_node", path, 64, &text, NULL, NULL))
		v = atoi(text);
	free(text);
	return v;
}

static const struct rn_rdma_port *model_port(const struct rn_rdma_model *m, const char *dev,
					     unsigned int port)
{
	const struct rn_rdma_dev *d = m ? rn_rdma_find_dev(m, dev) : NULL;

	for (int p = 0; d && p < d->n_ports; p++)
		if (d->ports[p].num == port)
			return &d->ports[p];
	return NULL;
}

static int set_str(json_t *attrs, const char *name, const char *v, const char *dev,
		   struct rn_error *e)
{
	if (!v || !*v)
		return 0;
	if (strlen(v) > RN_DRA_ATTR_MAX_VALUE)
		return rn_fail(e, -EINVAL, "DRA device %s: attribute %s is longer than %d characters",
			       dev, name, RN_DRA_ATTR_MAX_VALUE);
	return json_object_set_new(attrs, name, json_pack("{s:s}", "string", v)) ? -ENOMEM : 0;
}

static int set_int(json_t *attrs, const char *name, long long v)
{
	return json_object_set_new(attrs, name, json_pack("{s:I}", "int", (json_int_t)v)) ? -ENOMEM : 0;
}

static json_t *device_json(const struct rn_dra_slice_input *in, const struct rn_dra_device *d,
			   struct rn_error *e)
{
	const struct rn_rdma_port *port = d->rdma_dev[0] ? model_port(in->model, d->rdma_dev, d->port) : NULL;
	json_t *dev = json_pack("{s:s}", "name", d->name), *attrs = json_object();
	char root[64], pods[16];
	int err = 0, numa;

	if (!dev || !attrs)
		goto nomem;
	pcie_root(in->roots, d->pci, root, sizeof(root));
	numa = d->pci[0] ? numa_node(in->roots, d->pci) : -1;
	err = set_str(attrs, "resource.kubernetes.io/pcieRoot", root, d->name, e) ?:
	      set_str(attrs, "kind", d->kind == RN_DRA_VF ? "vf" : "hca-port", d->name, e) ?:
	      set_str(attrs, "rdmaDevice", d->rdma_dev, d->name, e) ?:
	      set_str(attrs, "netdev", d->netdev, d->name, e) ?:
	      set_str(attrs, "pciAddress", d->pci, d->name, e) ?:
	      set_str(attrs, "master", d->kind == RN_DRA_VF ? d->pf_netdev : d->netdev, d->name, e);
	if (!err && port)
		err = set_str(attrs, "linkLayer", port->link_layer, d->name, e) ?:
		      set_str(attrs, "portState", rn_port_state_names[port->state < 6 ? port->state : 0],
			      d->name, e);
	if (!err && d->rdma_dev[0])
		err = set_int(attrs, "port", d->port);
	if (!err && d->gid_index >= 0)
		err = set_int(attrs, "gidIndex", d->gid_index);
	if (!err && numa >= 0)
		err = set_int(attrs, "numaNode", numa);
	if (!err && d->kind == RN_DRA_VF)
		err = set_str(attrs, "pfPciAddress", d->pf_pci, d->name, e) ?:
		      set_int(attrs, "vfIndex", d->vf_index);
	if (err)
		goto fail;
	if (json_object_set_new(dev, "attributes", attrs)) {
		attrs = NULL;
		goto nomem;
	}
	attrs = NULL;
	if (d->kind == RN_DRA_HCA_PORT) {
		json_t *policy, *cap;

		snprintf(pods, sizeof(pods), "%u", in->shared_pods);
		/* each claim takes one pod's share unless it asks for more;
		 * a step needs room for min + step */
		policy = in->shared_pods >= 2 ?
				 json_pack("{s:s, s:{s:s, s:s}}", "default", "1", "validRange", "min", "1", "step", "1") :
				 json_pack("{s:s, s:{s:s}}", "default", "1", "validRange", "min", "1");
		cap = json_pack("{s:{s:s, s:o}}", "pods", "value", pods, "requestPolicy", policy);
		if (!cap || json_object_set_new(dev, "capacity", cap) ||
		    json_object_set_new(dev, "allowMultipleAllocations", json_true()))
			goto nomem;
	}
	if (json_object_size(json_object_get(dev, "attributes")) +
		    json_object_size(json_object_get(dev, "capacity")) > RN_DRA_DEVICE_MAX_ATTRS_CAPS) {
		rn_fail(e, -EINVAL, "DRA device %s: more than %d attributes and capacities", d->name,
			RN_DRA_DEVICE_MAX_ATTRS_CAPS);
		goto fail;
	}
	return dev;
nomem:
	rn_fail(e, -ENOMEM, "DRA slices: out of memory");
fail:
	json_decref(attrs);
	json_decref(dev);
	return NULL;
}

/* "<pool>-<driver>-<i>" as a DNS subdomain: lowercase, [a-z0-9.-] */
static void slice_name(const char *pool, const char *driver, int i, char *out, size_t size)
{
	size_t n;

	snprintf(out, size, "%s-%s-%d", pool, driver, i);
	for (n = 0; out[n]; n++) {
		char c = out[n];

		if (c >= 'A' && c <= 'Z')
			out[n] = (char)(c - 'A' + 'a');
		else if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.'))
			out[n] = '-';
	}
}

json_t *rn_dra_slices_build(const struct rn_dra_slice_input *in, const struct rn_dra_device *devs,
			    int n, struct rn_error *e)
{
	int count = n ? (n + RN_DRA_SLICE_MAX_DEVICES - 1) / RN_DRA_SLICE_MAX_DEVICES : 1;
	json_t *slices = json_array();
	char name[512];

	if (!slices)
		goto nomem;
	if (rn_dra_driver_name_check(in->driver, e))
		goto fail;
	if (!in->shared_pods) {
		rn_fail(e, -EINVAL, "DRA slices: the pods an HCA port is shared by must be at least 1");
		goto fail;
	}
	/* one slice even with no device: the pool says it is empty */
	for (int s = 0; s < count; s++) {
		json_t *list = json_array(), *slice;

		slice_name(in->pool, in->driver, s, name, sizeof(name));
		slice = json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:s, s:{s:s, s:I, s:i}, s:o}}",
				  "apiVersion", "resource.k8s.io/v1", "kind", "ResourceSlice",
				  "metadata", "name", name,
				  "spec", "driver", in->driver, "nodeName", in->node,
				  "pool", "name", in->pool, "generation", (json_int_t)in->generation,
				  "resourceSliceCount", count, "devices", list);
		if (!slice || json_array_append_new(slices, slice))
			goto nomem;
		for (int i = s * RN_DRA_SLICE_MAX_DEVICES; i < n && i < (s + 1) * RN_DRA_SLICE_MAX_DEVICES; i++) {
			json_t *dev = device_json(in, &devs[i], e);

			if (!dev)
				goto fail;
			if (json_array_append_new(list, dev))
				goto nomem;
		}
	}
	return slices;
nomem:
	rn_fail(e, -ENOMEM, "DRA slices: out of memory");
fail:
	json_decref(slices);
	return NULL;
}
