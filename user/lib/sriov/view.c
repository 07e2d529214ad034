// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* `rdmanetctl vf`: every PF and VF, its RDMA device, GUID, admin settings,
 * which pod holds it and since when; as JSON and as a table. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sriov/sriov.h"

void rn_sriov_admin_format(const struct rn_vf_admin *a, int vf, char *buf, size_t size)
{
	int n;

	if (!a->valid) {
		snprintf(buf, size, "vf %d ?", vf);
		return;
	}
	n = snprintf(buf, size, "vf %d link/ether %02x:%02x:%02x:%02x:%02x:%02x", vf, a->mac[0],
		     a->mac[1], a->mac[2], a->mac[3], a->mac[4], a->mac[5]);
	if (a->vlan && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " vlan %u%s", a->vlan,
			      a->vlan_proto == 0x88a8 ? " proto 802.1ad" : "");
	if (a->qos && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " qos %u", a->qos);
	if (n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " max_tx_rate %uMbps min_tx_rate %uMbps",
			      a->max_tx_rate, a->min_tx_rate);
	if (a->spoofchk >= 0 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " spoof checking %s",
			      a->spoofchk ? "on" : "off");
	if (a->link_state >= 0 && n > 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, " link-state %s",
			      a->link_state == RN_VF_LINK_ENABLE ? "enable" :
			      a->link_state == RN_VF_LINK_DISABLE ? "disable" : "auto");
	if (a->trust >= 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " trust %s", a->trust ? "on" : "off");
}

json_t *rn_sriov_admin_to_json(const struct rn_vf_admin *a)
{
	char mac[18];
	json_t *o = json_object();

	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", a->mac[0], a->mac[1],
		 a->mac[2], a->mac[3], a->mac[4], a->mac[5]);
	json_object_set_new(o, "mac", json_string(mac));
	json_object_set_new(o, "vlan", json_integer(a->vlan));
	json_object_set_new(o, "qos", json_integer(a->qos));
	json_object_set_new(o, "vlan_proto", json_string(a->vlan_proto == 0x88a8 ? "802.1ad" :
							 "802.1Q"));
	json_object_set_new(o, "spoofchk", a->spoofchk < 0 ? json_null() :
			    json_boolean(a->spoofchk));
	json_object_set_new(o, "trust", a->trust < 0 ? json_null() : json_boolean(a->trust));
	json_object_set_new(o, "link_state", a->link_state < 0 ? json_null() :
			    json_string(a->link_state == RN_VF_LINK_ENABLE ? "enable" :
					a->link_state == RN_VF_LINK_DISABLE ? "disable" : "auto"));
	json_object_set_new(o, "min_tx_rate", json_integer(a->min_tx_rate));
	json_object_set_new(o, "max_tx_rate", json_integer(a->max_tx_rate));
	return o;
}

static json_t *held_json(const char *state_dir, const char *pci)
{
	struct rn_sriov_hold h;
	char since[32];
	struct tm tm;
	json_t *o;
	int rc = rn_sriov_hold_read(state_dir, pci, &h, NULL);

	if (rc == -ENOENT)
		return json_null();
	o = json_object();
	if (rc) {
		json_object_set_new(o, "error", json_string("unreadable hold record"));
		return o;
	}
	gmtime_r(&h.since, &tm);
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(o, "namespace", json_string(h.pod_namespace));
	json_object_set_new(o, "pod", json_string(h.pod_name));
	json_object_set_new(o, "container_id", json_string(h.container_id));
	json_object_set_new(o, "ifname", json_string(h.ifname));
	json_object_set_new(o, "network", json_string(h.network));
	json_object_set_new(o, "netns", json_string(h.netns));
	json_object_set_new(o, "since", json_string(since));
	json_object_set_new(o, "complete", json_boolean(h.complete));
	/* DEL has run, the VF is not back from the pod's netns yet */
	json_object_set_new(o, "released", json_boolean(h.released));
	return o;
}

/* A value the host does not have is null, as in `dev -j`: the structs
 * hold "" for a VF without a netdev, RDMA device or GUID. */
static void empty_as_null(json_t *v)
{
	const char *key;
	json_t *x;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, x) {
			if (json_is_string(x) && !json_string_length(x))
				json_object_set_new(v, key, json_null());
			else
				empty_as_null(x);
		}
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			empty_as_null(x);
	}
}

json_t *rn_sriov_host_to_json(const struct rn_sriov_host *h, const struct rn_sriov_config *c,
			      const char *state_dir)
{
	json_t *root = json_object(), *pfs = json_array();

	for (int i = 0; i < h->n_pfs; i++) {
		const struct rn_sriov_pf *pf = &h->pfs[i];
		const struct rn_sriov_pf_config *pc = c ? rn_sriov_config_for_pf(c, pf) : NULL;
		json_t *p = json_object(), *vfs = json_array();

		json_object_set_new(p, "pci", json_string(pf->pci));
		json_object_set_new(p, "ifname", json_string(pf->ifname));
		json_object_set_new(p, "vendor", json_string(pf->vendor));
		json_object_set_new(p, "device", json_string(pf->device));
		json_object_set_new(p, "driver", json_string(pf->driver));
		json_object_set_new(p, "rdma_dev", json_string(pf->rdma_dev));
		json_object_set_new(p, "up", json_boolean(pf->up));
		json_object_set_new(p, "numvfs", json_integer(pf->numvfs));
		json_object_set_new(p, "totalvfs", json_integer(pf->totalvfs));
		json_object_set_new(p, "managed", json_boolean(pc != NULL));
		json_object_set_new(p, "resource_name", pc && pc->resource_name[0] ?
				    json_string(pc->resource_name) : json_null());
		for (int j = 0; j < pf->n_vfs; j++) {
			const struct rn_sriov_vf *vf = &pf->vfs[j];
			json_t *v = json_object();

			json_object_set_new(v, "vf", json_integer(vf->index));
			json_object_set_new(v, "pci", json_string(vf->pci));
			json_object_set_new(v, "driver", json_string(vf->driver));
			json_object_set_new(v, "netdev", json_string(vf->netdev));
			json_object_set_new(v, "rdma_dev", json_string(vf->rdma_dev));
			json_object_set_new(v, "node_guid", json_string(vf->node_guid));
			json_object_set_new(v, "guid_zero",
					    json_boolean(rn_rdma_guid_is_zero(vf->node_guid)));
			json_object_set_new(v, "admin", vf->admin.valid ?
					    rn_sriov_admin_to_json(&vf->admin) : json_null());
			json_object_set_new(v, "held_by", held_json(state_dir, vf->pci));
			json_array_append_new(vfs, v);
		}
		json_object_set_new(p, "vfs", vfs);
		json_array_append_new(pfs, p);
	}
	json_object_set_new(root, "pfs", pfs);
	json_object_set_new(root, "admin_read", json_boolean(h->admin_read));
	if (h->note[0])
		json_object_set_new(root, "note", json_string(h->note));
	empty_as_null(root);
	return root;
}

void rn_sriov_host_print(FILE *f, const struct rn_sriov_host *h, const struct rn_sriov_config *c,
			 const char *state_dir)
{
	if (!h->n_pfs)
		fprintf(f, "no SR-IOV capable PF\n");
	for (int i = 0; i < h->n_pfs; i++) {
		const struct rn_sriov_pf *pf = &h->pfs[i];
		const struct rn_sriov_pf_config *pc = c ? rn_sriov_config_for_pf(c, pf) : NULL;

		fprintf(f, "pf %s %s %s:%s %s rdma %s vfs %d/%d %s%s%s\n", pf->pci,
			pf->ifname[0] ? pf->ifname : "-", pf->vendor, pf->device, pf->up ? "up" : "down",
			pf->rdma_dev[0] ? pf->rdma_dev : "-", pf->numvfs, pf->totalvfs,
			pc ? "managed" : "unmanaged", pc && pc->resource_name[0] ? " resource " : "",
			pc ? pc->resource_name : "");
		if (pf->n_vfs)
			fprintf(f, "  %-3s %-12s %-15s %-10s %-19s %s\n", "VF", "PCI", "NETDEV", "RDMA",
				"NODE GUID", "HELD BY");
		for (int j = 0; j < pf->n_vfs; j++) {
			const struct rn_sriov_vf *vf = &pf->vfs[j];
			struct rn_sriov_hold hold;
			char held[600] = "-", admin[256];
			int rc = rn_sriov_hold_read(state_dir, vf->pci, &hold, NULL);

			if (!rc) {
				char since[32];
				struct tm tm;

				gmtime_r(&hold.since, &tm);
				strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
				snprintf(held, sizeof(held), "%s/%s %s since %s%s", hold.pod_namespace,
					 hold.pod_name, hold.ifname, since,
					 hold.released ? " (deleted, VF not back yet)" :
					 hold.complete ? "" : " (ADD not finished)");
			} else if (rc != -ENOENT) {
				snprintf(held, sizeof(held), "held (unreadable record)");
			}
			fprintf(f, "  %-3d %-12s %-15s %-10s %-19s %s%s\n", vf->index, vf->pci,
				vf->netdev[0] ? vf->netdev : "-", vf->rdma_dev[0] ? vf->rdma_dev : "-",
				vf->node_guid[0] ? vf->node_guid : "-", held,
				rn_rdma_guid_is_zero(vf->node_guid) ? "  ZERO GUID" : "");
			if (vf->admin.valid) {
				rn_sriov_admin_format(&vf->admin, vf->index, admin, sizeof(admin));
				fprintf(f, "      %s\n", admin);
			}
		}
	}
	if (h->note[0])
		fprintf(f, "note: %s\n", h->note);
}
