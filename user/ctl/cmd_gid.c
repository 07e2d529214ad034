// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rdmanetctl gid [DEV] [-j]: the valid GID table entries, show_gids-style:
 * device, port, index, GID, type, netdev and the IP address it maps. */
#include <stdio.h>
#include <string.h>

#include "ctl.h"
#include "rdma/rdma.h"

static void print_table(const struct rn_rdma_model *m, const char *dev)
{
	printf("%-10s %-4s %-5s %-39s %-7s %-15s %s\n", "DEV", "PORT", "INDEX", "GID", "TYPE",
	       "NETDEV", "ADDRESS");
	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		if (dev && strcmp(dev, d->name))
			continue;
		for (int p = 0; p < d->n_ports; p++) {
			for (int g = 0; g < d->ports[p].n_gids; g++) {
				const struct rn_rdma_gid *e = &d->ports[p].gids[g];
				char gid[RN_GID_STRLEN], addr[RN_ADDR_STRLEN] = "-";

				rn_gid_format(e->raw, gid);
				if (e->addr.family)
					rn_addr_format(&e->addr, addr);
				printf("%-10s %-4u %-5u %-39s %-7s %-15s %s\n", d->name,
				       d->ports[p].num, e->index, gid, rn_gid_type_names[e->type],
				       e->netdev[0] ? e->netdev : "-", addr);
			}
		}
	}
	for (int i = 0; i < m->n_notes; i++)
		printf("note: %s\n", m->notes[i]);
}

static int gid_show(struct ctl *ctl, const struct ctl_args *a)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;
	struct rn_error e = { 0 };
	const char *dev = a->pos;

	rn_rdma_config_roots(&ctl->cfg, &roots);
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_ALL, &e))
		return ctl_fail("%s", e.msg);
	if (dev && !rn_rdma_find_dev(&m, dev)) {
		rn_rdma_model_free(&m);
		return ctl_fail("gid: no RDMA device \"%s\"", dev);
	}
	if (ctl->json)
		ctl_print_json(ctl, rn_rdma_gids_json(&m, dev));
	else
		print_table(&m, dev);
	rn_rdma_model_free(&m);
	return 0;
}

const struct ctl_object ctl_obj_gid = {
	.name = "gid",
	.help = "the GID tables, show_gids-style",
	.default_verb = "show",
	.verbs = (const struct ctl_verb[]){
		{ "show", NULL, "[DEV]", NULL, gid_show,
		  "the valid GIDs of every RDMA device (or DEV): port, index, type, netdev, "
		  "address" },
		{ .run = NULL },
	},
};
