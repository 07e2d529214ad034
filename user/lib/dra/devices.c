// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* This node's DRA devices and their names: one device per port of each
 * RDMA device that is not a VF (pods share it), one per SR-IOV VF (a pod
 * has it alone). The names are what allocation results carry, so the
 * prepare side and the (future) ResourceSlice publisher both take them
 * from rn_dra_device_name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dra/dra.h"

/* a DNS label from free text: lowercase, every other character '-' */
static void label_from(const char *in, char *out, size_t size)
{
	size_t n = 0;

	for (; *in && n + 1 < size; in++) {
		char ch = *in;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')))
			ch = '-';
		out[n++] = ch;
	}
	out[n] = '\0';
}

void rn_dra_device_name(const struct rn_dra_device *d, char *buf, size_t size)
{
	char raw[RN_RDMA_NAME_LEN + 16], label[sizeof(raw)];
	size_t n, start;

	if (d->kind == RN_DRA_VF)
		snprintf(raw, sizeof(raw), "vf-%s", d->pci);
	else
		snprintf(raw, sizeof(raw), "%s-port%u", d->rdma_dev, d->port);
	label_from(raw, label, sizeof(label));
	/* a label is alphanumeric at both ends and at most 63 long: an RDMA
	 * device name is at most 63 characters ("mlx5_0" in practice), so
	 * only an absurd one is cut; its end (the port or PCI function) kept */
	n = strlen(label);
	start = n > 63 ? n - 63 : 0;
	while (label[start] == '-')
		start++;
	while (n > start && label[n - 1] == '-')
		label[--n] = '\0';
	snprintf(buf, size, "%s", label + start);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct rn_dra_device *)a)->name,
		      ((const struct rn_dra_device *)b)->name);
}

static const struct rn_rdma_dev *dev_by_pci(const struct rn_rdma_model *m, const char *pci)
{
	for (int i = 0; i < m->n_devs; i++)
		if (m->devs[i].is_pci && !strcmp(m->devs[i].pci.addr, pci))
			return &m->devs[i];
	return NULL;
}

static int roce_v2_gid(const struct rn_rdma_port *p)
{
	int any = -1;

	for (int i = 0; i < p->n_gids; i++) {
		if (p->gids[i].type != RN_GID_TYPE_ROCE_V2)
			continue;
		if (p->gids[i].addr.family == AF_INET)
			return (int)p->gids[i].index;
		if (any < 0)
			any = (int)p->gids[i].index;
	}
	return any;
}

static void from_port(struct rn_dra_device *d, const struct rn_rdma_dev *rd,
		      const struct rn_rdma_port *p)
{
	snprintf(d->rdma_dev, sizeof(d->rdma_dev), "%s", rd->name);
	d->port = p->num;
	snprintf(d->netdev, sizeof(d->netdev), "%s", p->netdev);
	d->gid_index = roce_v2_gid(p);
}

int rn_dra_devices(const struct rn_rdma_model *m, struct rn_dra_device **out, int *n,
		   struct rn_error *e)
{
	struct rn_dra_device *v = NULL;
	int cnt = 0, cap = 0;

	*out = NULL;
	*n = 0;
	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *rd = &m->devs[i];
		int want = rd->fn == RN_FN_VF ? 0 : rd->n_ports + (rd->fn == RN_FN_PF ? rd->pci.n_vfs : 0);

		if (cnt + want > cap) {
			struct rn_dra_device *nv;

			cap = (cnt + want) * 2 + 8;
			nv = realloc(v, (size_t)cap * sizeof(*v));
			if (!nv) {
				free(v);
				return rn_fail(e, -ENOMEM, "DRA devices: out of memory");
			}
			v = nv;
		}
		if (rd->fn == RN_FN_VF)
			continue;	/* listed under its PF, found or not */
		for (int p = 0; p < rd->n_ports; p++) {
			struct rn_dra_device *d = &v[cnt++];

			memset(d, 0, sizeof(*d));
			d->kind = RN_DRA_HCA_PORT;
			d->vf_index = -1;
			if (rd->is_pci)
				snprintf(d->pci, sizeof(d->pci), "%s", rd->pci.addr);
			from_port(d, rd, &rd->ports[p]);
			rn_dra_device_name(d, d->name, sizeof(d->name));
		}
		for (int k = 0; rd->fn == RN_FN_PF && k < rd->pci.n_vfs; k++) {
			struct rn_dra_device *d = &v[cnt++];
			const struct rn_rdma_dev *vd = dev_by_pci(m, rd->pci.vfs[k]);

			memset(d, 0, sizeof(*d));
			d->kind = RN_DRA_VF;
			d->gid_index = -1;
			snprintf(d->pci, sizeof(d->pci), "%s", rd->pci.vfs[k]);
			snprintf(d->pf_pci, sizeof(d->pf_pci), "%s", rd->pci.addr);
			if (rd->n_ports)
				snprintf(d->pf_netdev, sizeof(d->pf_netdev), "%s", rd->ports[0].netdev);
			d->vf_index = k;
			if (vd && vd->n_ports)
				from_port(d, vd, &vd->ports[0]);
			rn_dra_device_name(d, d->name, sizeof(d->name));
		}
	}
	if (cnt)
		qsort(v, (size_t)cnt, sizeof(*v), cmp_name);
	*out = v;
	*n = cnt;
	return 0;
}
