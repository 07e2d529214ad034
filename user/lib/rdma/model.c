// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/gid.h"
#include "rdma/model.h"
#include "rdma/model_sources.h"

const char *const rn_port_state_names[6] = { "?", "DOWN", "INIT", "ARMED", "ACTIVE",
					     "ACTIVE_DEFER" };
const char *const rn_netns_mode_names[2] = { "exclusive", "shared" };
const char *const rn_rdma_function_names[3] = { "virtual", "pf", "vf" };

void rn_rdma_model_note(struct rn_rdma_model *m, const char *fmt, ...)
{
	va_list ap;

	if (m->n_notes >= RN_RDMA_MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(m->notes[m->n_notes++], sizeof(m->notes[0]), fmt, ap);
	va_end(ap);
}

struct rn_rdma_dev *rn_rdma_find_dev(const struct rn_rdma_model *m, const char *name)
{
	for (int i = 0; i < m->n_devs; i++)
		if (!strcmp(m->devs[i].name, name))
			return &m->devs[i];
	return NULL;
}

struct rn_rdma_dev *rn_rdma_model_add_dev(struct rn_rdma_model *m, const char *name)
{
	struct rn_rdma_dev *d = rn_rdma_find_dev(m, name), *devs;

	if (d)
		return d;
	if (strlen(name) >= RN_RDMA_NAME_LEN)
		return NULL;
	devs = realloc(m->devs, (size_t)(m->n_devs + 1) * sizeof(*devs));
	if (!devs)
		return NULL;
	m->devs = devs;
	d = &devs[m->n_devs++];
	memset(d, 0, sizeof(*d));
	strcpy(d->name, name);
	d->pci.vf_index = -1;
	d->pci.sriov_numvfs = -1;
	d->pci.sriov_totalvfs = -1;
	return d;
}

struct rn_rdma_port *rn_rdma_dev_port(struct rn_rdma_dev *d, unsigned int num, bool create)
{
	struct rn_rdma_port *ports;

	for (int i = 0; i < d->n_ports; i++)
		if (d->ports[i].num == num)
			return &d->ports[i];
	if (!create || num == 0)
		return NULL;
	ports = realloc(d->ports, (size_t)(d->n_ports + 1) * sizeof(*ports));
	if (!ports)
		return NULL;
	d->ports = ports;
	memset(&ports[d->n_ports], 0, sizeof(ports[0]));
	ports[d->n_ports].num = num;
	return &ports[d->n_ports++];
}

int rn_rdma_port_add_gid(struct rn_rdma_port *p, const struct rn_rdma_gid *g)
{
	struct rn_rdma_gid *gids = realloc(p->gids, (size_t)(p->n_gids + 1) * sizeof(*gids));

	if (!gids)
		return -ENOMEM;
	p->gids = gids;
	gids[p->n_gids++] = *g;
	return 0;
}

int rn_rdma_port_add_counter(struct rn_rdma_port *p, const char *name, uint64_t value)
{
	struct rn_rdma_counter *c = realloc(p->counters,
					    (size_t)(p->n_counters + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	p->counters = c;
	snprintf(c[p->n_counters].name, sizeof(c[0].name), "%s", name);
	c[p->n_counters++].value = value;
	return 0;
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct rn_rdma_counter *)a)->name,
		      ((const struct rn_rdma_counter *)b)->name);
}

void rn_rdma_port_sort_counters(struct rn_rdma_port *p)
{
	if (p->n_counters > 1)
		qsort(p->counters, (size_t)p->n_counters, sizeof(p->counters[0]), cmp_counter);
}

static int cmp_dev(const void *a, const void *b)
{
	const struct rn_rdma_dev *x = a, *y = b;
	size_t lx = strlen(x->name), ly = strlen(y->name);

	/* mlx5_2 before mlx5_10: shorter names of a common stem first */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name, y->name);
}

static int cmp_port(const void *a, const void *b)
{
	const struct rn_rdma_port *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

static int cmp_gid(const void *a, const void *b)
{
	const struct rn_rdma_gid *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

void rn_rdma_model_sort(struct rn_rdma_model *m)
{
	if (m->n_devs > 1)
		qsort(m->devs, (size_t)m->n_devs, sizeof(m->devs[0]), cmp_dev);
	for (int i = 0; i < m->n_devs; i++) {
		struct rn_rdma_dev *d = &m->devs[i];

		if (d->n_ports > 1)
			qsort(d->ports, (size_t)d->n_ports, sizeof(d->ports[0]), cmp_port);
		for (int p = 0; p < d->n_ports; p++)
			if (d->ports[p].n_gids > 1)
				qsort(d->ports[p].gids, (size_t)d->ports[p].n_gids,
				      sizeof(d->ports[p].gids[0]), cmp_gid);
	}
}

struct rn_rdma_port *rn_rdma_find_port_by_netdev(const struct rn_rdma_model *m, const char *ifname,
						 struct rn_rdma_dev **dev_out)
{
	for (int i = 0; i < m->n_devs; i++) {
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			if (strcmp(m->devs[i].ports[p].netdev, ifname))
				continue;
			if (dev_out)
				*dev_out = &m->devs[i];
			return &m->devs[i].ports[p];
		}
	}
	return NULL;
}

const struct rn_rdma_gid *rn_rdma_find_gid(const struct rn_rdma_port *p, const struct rn_addr *addr,
					   enum rn_gid_type type, const char *ifname)
{
	for (int i = 0; i < p->n_gids; i++) {
		const struct rn_rdma_gid *g = &p->gids[i];

		if (g->type != type || !rn_addr_equal(&g->addr, addr))
			continue;
		if (ifname && strcmp(g->netdev, ifname))
			continue;
		return g;
	}
	return NULL;
}

bool rn_rdma_guid_is_zero(const char *guid)
{
	if (!guid[0])
		return false;	/* unknown is not zero */
	for (const char *p = guid; *p; p++)
		if (*p != '0' && *p != ':')
			return false;
	return true;
}

void rn_rdma_model_free(struct rn_rdma_model *m)
{
	for (int i = 0; i < m->n_devs; i++) {
		struct rn_rdma_dev *d = &m->devs[i];

		for (int p = 0; p < d->n_ports; p++) {
			free(d->ports[p].gids);
			free(d->ports[p].counters);
		}
		free(d->ports);
		free(d->chardevs);
		free(d->pci.vfs);
	}
	free(m->devs);
	memset(m, 0, sizeof(*m));
	m->netns_mode = RN_NETNS_UNKNOWN;
	m->verbs_devices = -1;
}
