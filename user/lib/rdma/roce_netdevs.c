// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdio.h>
#include <string.h>

#include "rdma/roce_netdevs.h"

int rn_rdma_roce_netdevs(const struct rn_rdma_model *m, const struct rn_rdma_selectors *sel,
			 char names[][RN_IFNAMSIZ], int max)
{
	int n = 0;

	for (int i = 0; i < m->n_devs; i++) {
		const struct rn_rdma_dev *d = &m->devs[i];

		if (d->fn == RN_FN_VF || (sel && !rn_selectors_match(sel, d)))
			continue;
		for (int p = 0; p < d->n_ports && n < max; p++) {
			const struct rn_rdma_port *port = &d->ports[p];
			bool dup = false;

			if (strcmp(port->link_layer, "Ethernet") || !port->netdev[0])
				continue;
			for (int k = 0; k < n; k++)
				dup |= !strcmp(names[k], port->netdev);
			if (!dup)
				snprintf(names[n++], RN_IFNAMSIZ, "%s", port->netdev);
		}
	}
	return n;
}
