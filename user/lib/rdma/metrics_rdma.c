// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* rn_metrics_rdma (declared in rdma_config.h): the HCA side of the
 * textfile. Hardware counters come from RDMA netlink, the numbers `rdma
 * statistic` shows (sysfs hw_counters where netlink is unavailable). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textfile.h"
#include "rdma/gid.h"
#include "rdma/gid_watch.h"
#include "rdma/pod_addrs.h"
#include "rdma/rdma_config.h"

static void devices_and_ports(FILE *f, const struct rn_rdma_model *m)
{
	rn_metric_family(f, "rdmanet_rdma_devices", "gauge",
			 "RDMA devices visible in this network namespace.");
	rn_metric_sample(f, "rdmanet_rdma_devices", NULL, (unsigned long long)m->n_devs);
	if (m->netns_mode != RN_NETNS_UNKNOWN) {
		rn_metric_family(f, "rdmanet_rdma_netns_shared", "gauge",
				 "1 if the RDMA subsystem netns mode is shared, 0 if exclusive.");
		rn_metric_sample(f, "rdmanet_rdma_netns_shared", NULL,
				 m->netns_mode == RN_NETNS_SHARED);
	}
	rn_metric_family(f, "rdmanet_rdma_port_active", "gauge",
			 "1 if the RDMA port is ACTIVE.");
	for (int i = 0; i < m->n_devs; i++)
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			const struct rn_rdma_port *port = &m->devs[i].ports[p];
			char num[12];
			const char *labels[] = { "device", m->devs[i].name, "port", num,
						 "netdev", port->netdev, NULL };

			snprintf(num, sizeof(num), "%u", port->num);
			rn_metric_sample(f, "rdmanet_rdma_port_active", labels,
					 port->state == RN_PORT_ACTIVE);
		}
}

static void hw_counters(FILE *f, const struct rn_rdma_model *m)
{
	rn_metric_family(f, "rdmanet_rdma_hw_stats_total", "counter",
			 "RDMA port hardware counters, as `rdma statistic show` reports them.");
	for (int i = 0; i < m->n_devs; i++)
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			const struct rn_rdma_port *port = &m->devs[i].ports[p];
			char num[12];

			snprintf(num, sizeof(num), "%u", port->num);
			for (int c = 0; c < port->n_counters; c++) {
				const char *labels[] = { "device", m->devs[i].name, "port", num,
							 "counter", port->counters[c].name, NULL };

				rn_metric_sample(f, "rdmanet_rdma_hw_stats_total", labels,
						 port->counters[c].value);
			}
		}
}

static void gids(FILE *f, const struct rn_rdma_model *m)
{
	rn_metric_family(f, "rdmanet_rdma_gid_info", "gauge",
			 "A valid GID table entry: index, type, netdev and the IP address it "
			 "maps.");
	for (int i = 0; i < m->n_devs; i++)
		for (int p = 0; p < m->devs[i].n_ports; p++) {
			const struct rn_rdma_port *port = &m->devs[i].ports[p];
			char num[12], idx[12], gid[RN_GID_STRLEN], addr[RN_ADDR_STRLEN];

			snprintf(num, sizeof(num), "%u", port->num);
			for (int g = 0; g < port->n_gids; g++) {
				const struct rn_rdma_gid *e = &port->gids[g];
				const char *labels[] = { "device", m->devs[i].name, "port", num,
							 "index", idx, "gid", gid, "type",
							 rn_gid_type_names[e->type], "netdev",
							 e->netdev, "address", addr, NULL };

				snprintf(idx, sizeof(idx), "%u", e->index);
				rn_gid_format(e->raw, gid);
				addr[0] = '\0';
				if (e->addr.family)
					rn_addr_format(&e->addr, addr);
				rn_metric_sample(f, "rdmanet_rdma_gid_info", labels, 1);
			}
		}
}

static void watch_family(FILE *f, const char *name, const char *help, bool moved)
{
	const struct rn_gid_watch *w = rn_gid_watch_agent();

	rn_metric_family(f, name, "counter", help);
	for (int i = 0; i < w->n_ports; i++) {
		char num[12];
		const char *labels[] = { "device", w->ports[i].dev, "port", num, NULL };

		snprintf(num, sizeof(num), "%u", w->ports[i].port);
		rn_metric_sample(f, name, labels, moved ? w->ports[i].moved : w->ports[i].removed);
	}
}

static void gid_watch(FILE *f)
{
	/* only the agent watches; a one-shot export has no history to tell */
	if (!rn_gid_watch_agent()->primed)
		return;
	watch_family(f, "rdmanet_rdma_gid_index_moves_total", "Times the GID entry of an "
		     "address changed index (applications that pinned the old index break).", true);
	watch_family(f, "rdmanet_rdma_gid_removals_total",
		     "GID entries that mapped an address and went away.", false);
}

static void pod_gids(FILE *f, const struct rn_config *c, const struct rn_rdma_model *m)
{
	struct rn_pod_addr *pa;
	int n;

	if (rn_pod_addrs_list(c->bpf.pin_dir, &pa, &n, NULL))
		return;
	rn_metric_family(f, "rdmanet_pod_roce_gid_present", "gauge",
			 "1 if a pod address has its RoCE v2 GID on the master's RDMA port.");
	for (int i = 0; i < n; i++) {
		char addr[RN_ADDR_STRLEN];
		const char *labels[] = { "namespace", pa[i].ns, "pod", pa[i].pod, "interface",
					 pa[i].ifname, "master", pa[i].master, "address", addr,
					 NULL };

		rn_addr_format(&pa[i].addr, addr);
		rn_metric_sample(f, "rdmanet_pod_roce_gid_present", labels,
				 rn_pod_addr_gid(m, &pa[i], NULL, NULL) != NULL);
	}
	rn_metric_family(f, "rdmanet_pod_roce_gid_index", "gauge",
			 "The RoCE v2 GID index of a pod address (what NCCL_IB_GID_INDEX must "
			 "be).");
	for (int i = 0; i < n; i++) {
		struct rn_rdma_dev *d;
		const struct rn_rdma_gid *g = rn_pod_addr_gid(m, &pa[i], &d, NULL);
		char addr[RN_ADDR_STRLEN];
		const char *labels[] = { "namespace", pa[i].ns, "pod", pa[i].pod, "interface",
					 pa[i].ifname, "master", pa[i].master, "address", addr,
					 "device", d ? d->name : "", NULL };

		if (!g)
			continue;
		rn_addr_format(&pa[i].addr, addr);
		rn_metric_sample(f, "rdmanet_pod_roce_gid_index", labels, g->index);
	}
	free(pa);
}

void rn_metrics_rdma(FILE *f, const struct rn_config *c)
{
	struct rn_rdma_roots roots;
	struct rn_rdma_model m;

	rn_rdma_config_roots(c, &roots);
	/* no verbs: opening every device each export costs HCA contexts */
	if (rn_rdma_model_load(&m, &roots, RN_RDMA_SRC_SYSFS | RN_RDMA_SRC_NETLINK |
			       RN_RDMA_SRC_COUNTERS, NULL))
		return;
	devices_and_ports(f, &m);
	hw_counters(f, &m);
	gids(f, &m);
	gid_watch(f);
	pod_gids(f, c, &m);
	rn_rdma_model_free(&m);
}
