// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The RDMA model from libibverbs: which devices rdma-core can drive, port
 * MTUs, and the GID table as ibv_query_gid_table returns it (type and
 * netdev per entry), which replaces the one read from sysfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "rdma/gid.h"
#include "rdma/model_sources.h"

static unsigned int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static enum rn_gid_type gid_type(uint32_t t)
{
	switch (t) {
	case IBV_GID_TYPE_IB: return RN_GID_TYPE_IB;
	case IBV_GID_TYPE_ROCE_V1: return RN_GID_TYPE_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2: return RN_GID_TYPE_ROCE_V2;
	default: return RN_GID_TYPE_UNKNOWN;
	}
}

/* sysfs knows the netdev by name even when it sits in another namespace;
 * the ifindex verbs gives is only meaningful in the netdev's own one */
static void take_name_from_sysfs(const struct rn_rdma_port *old, struct rn_rdma_gid *g)
{
	for (int i = 0; i < old->n_gids; i++) {
		if (old->gids[i].index == g->index && !memcmp(old->gids[i].raw, g->raw, 16)) {
			memcpy(g->netdev, old->gids[i].netdev, sizeof(g->netdev));
			return;
		}
	}
}

static int fill_gids(struct rn_rdma_port *p, const struct ibv_gid_entry *ents, ssize_t n)
{
	struct rn_rdma_port fresh = { 0 };

	for (ssize_t i = 0; i < n; i++) {
		struct rn_rdma_gid g = { 0 };

		if (ents[i].port_num != p->num)
			continue;
		g.index = ents[i].gid_index;
		memcpy(g.raw, ents[i].gid.raw, 16);
		if (rn_gid_is_zero(g.raw))
			continue;
		g.type = gid_type(ents[i].gid_type);
		g.netdev_ifindex = (int)ents[i].ndev_ifindex;
		take_name_from_sysfs(p, &g);
		rn_gid_addr(g.raw, g.type, &g.addr);
		if (rn_rdma_port_add_gid(&fresh, &g)) {
			free(fresh.gids);
			return -ENOMEM;
		}
	}
	free(p->gids);
	p->gids = fresh.gids;
	p->n_gids = fresh.n_gids;
	p->gids_from_verbs = true;
	return 0;
}

/* Kernels without the GID table ioctl: one entry at a time. */
static ssize_t query_gids_one_by_one(struct ibv_context *ctx, const struct rn_rdma_dev *d,
				     struct ibv_gid_entry *ents, size_t max)
{
	size_t n = 0;

	for (int p = 0; p < d->n_ports; p++) {
		for (unsigned int i = 0; i < d->ports[p].gid_tbl_len && n < max; i++) {
			if (ibv_query_gid_ex(ctx, d->ports[p].num, i, &ents[n], 0))
				continue;	/* ENODATA: an empty entry */
			n++;
		}
	}
	return (ssize_t)n;
}

static void read_device(struct rn_rdma_model *m, struct ibv_device *dev)
{
	struct rn_rdma_dev *d = rn_rdma_model_add_dev(m, ibv_get_device_name(dev));
	struct ibv_device_attr attr;
	struct ibv_gid_entry *ents;
	struct ibv_context *ctx;
	size_t max = 0;
	ssize_t n;

	if (!d)
		return;
	d->in_verbs = true;
	ctx = ibv_open_device(dev);
	if (!ctx) {
		rn_rdma_model_note(m, "%s: ibv_open_device: %s", d->name, strerror(errno));
		return;
	}
	if (ibv_query_device(ctx, &attr)) {
		rn_rdma_model_note(m, "%s: ibv_query_device: %s", d->name, strerror(errno));
		ibv_close_device(ctx);
		return;
	}
	if (!d->fw_ver[0])
		snprintf(d->fw_ver, sizeof(d->fw_ver), "%s", attr.fw_ver);
	for (unsigned int num = 1; num <= attr.phys_port_cnt; num++) {
		struct rn_rdma_port *p = rn_rdma_dev_port(d, num, true);
		struct ibv_port_attr pa;

		if (!p || ibv_query_port(ctx, (uint8_t)num, &pa))
			continue;
		p->active_mtu = mtu_bytes(pa.active_mtu);
		p->max_mtu = mtu_bytes(pa.max_mtu);
		p->gid_tbl_len = (unsigned int)pa.gid_tbl_len;
		if (p->state == RN_PORT_STATE_UNKNOWN && pa.state <= IBV_PORT_ACTIVE_DEFER)
			p->state = (enum rn_port_state)pa.state;
		if (!p->link_layer[0])
			snprintf(p->link_layer, sizeof(p->link_layer), "%s",
				 pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
				 "InfiniBand");
		max += p->gid_tbl_len;
	}
	ents = max ? calloc(max, sizeof(*ents)) : NULL;
	if (ents) {
		n = ibv_query_gid_table(ctx, ents, max, 0);
		if (n < 0 && (n == -EOPNOTSUPP || n == -EPROTONOSUPPORT))
			n = query_gids_one_by_one(ctx, d, ents, max);
		if (n < 0)
			rn_rdma_model_note(m, "%s: ibv_query_gid_table: %s", d->name,
					   strerror((int)-n));
		for (int p = 0; n >= 0 && p < d->n_ports; p++)
			fill_gids(&d->ports[p], ents, n);
		free(ents);
	}
	ibv_close_device(ctx);
}

int rn_rdma_load_verbs(struct rn_rdma_model *m)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (!list) {
		rn_rdma_model_note(m, "libibverbs: %s; GID tables from sysfs", strerror(errno));
		return -1;
	}
	m->verbs_devices = n;
	if (n < m->n_devs)
		rn_rdma_model_note(m, "libibverbs lists %d of the %d RDMA devices in sysfs: "
				   "rdma-core providers (ibverbs-providers) missing or "
				   "/dev/infiniband not accessible", n, m->n_devs);
	for (int i = 0; i < n; i++)
		read_device(m, list[i]);
	ibv_free_device_list(list);
	return 0;
}
