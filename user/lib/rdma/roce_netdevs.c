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

int rn_rdma_discover_roce_netdevs(const struct rn_rdma_roots *roots,
				  const struct rn_rdma_selectors *sel, char names[][RN_IFNAMSIZ],
				  int max, struct rn_error *e)
{
	struct rn_rdma_model m;
	int n, err;

	/* netlink names a soft-RoCE port's netdev; verbs adds nothing here */
	err = rn_rdma_model_load(&m, roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK, e);
	if (err)
		return err;
	if (m.read_err) {
		/* a device it could not read may be a master: not "none" */
		err = rn_fail(e, m.read_err, "%s", m.read_err_msg);
		rn_rdma_model_free(&m);
		return err;
	}
	n = rn_rdma_roce_netdevs(&m, sel, names, max);
	rn_rdma_model_free(&m);
	return n;
}
