// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "datapath/datapath.h"
#include "rdma/pod_addrs.h"

int rn_pod_addrs_list(const char *pin_dir, struct rn_pod_addr **out, int *n,
		      struct rn_error *e)
{
	struct rn_pod_entry *ents;
	struct rn_pod_addr *v;
	struct rn_maps m;
	int n_ents, k = 0, err;

	*out = NULL;
	*n = 0;
	err = rn_maps_open(&m, pin_dir, e);
	if (err)
		return err;
	err = rn_registry_list(&m, &ents, &n_ents, e);
	rn_maps_close(&m);
	if (err)
		return err;
	v = calloc((size_t)n_ents * (RN_POD_MAX_IPV4 + RN_POD_MAX_IPV6) + 1, sizeof(*v));
	if (!v) {
		free(ents);
		return rn_fail(e, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < n_ents; i++) {
		const struct rn_pod_entry *pe = &ents[i];

		for (int j = 0; j < pe->pod.n_ipv4 + pe->pod.n_ipv6; j++) {
			struct rn_pod_addr *pa = &v[k];

			if (j < pe->pod.n_ipv4 && j >= RN_POD_MAX_IPV4)
				continue;
			if (j >= pe->pod.n_ipv4 && j - pe->pod.n_ipv4 >= RN_POD_MAX_IPV6)
				continue;
			memcpy(pa->ns, pe->meta.ns, sizeof(pa->ns));
			memcpy(pa->pod, pe->meta.name, sizeof(pa->pod));
			memcpy(pa->ifname, pe->meta.ifname, sizeof(pa->ifname));
			memcpy(pa->master, pe->master, sizeof(pa->master));
			if (j < pe->pod.n_ipv4) {
				pa->addr.family = AF_INET;
				memcpy(pa->addr.b, &pe->pod.ipv4[j], 4);
			} else {
				pa->addr.family = AF_INET6;
				memcpy(pa->addr.b, pe->pod.ipv6[j - pe->pod.n_ipv4], 16);
			}
			k++;
		}
	}
	free(ents);
	*out = v;
	*n = k;
	return 0;
}

const struct rn_rdma_gid *rn_pod_addr_gid(const struct rn_rdma_model *m,
					  const struct rn_pod_addr *pa,
					  struct rn_rdma_dev **dev_out,
					  struct rn_rdma_port **port_out)
{
	struct rn_rdma_dev *d = NULL;
	struct rn_rdma_port *p = rn_rdma_find_port_by_netdev(m, pa->master, &d);

	if (dev_out)
		*dev_out = p ? d : NULL;
	if (port_out)
		*port_out = p;
	return p ? rn_rdma_find_gid(p, &pa->addr, RN_GID_TYPE_ROCE_V2, NULL) : NULL;
}
