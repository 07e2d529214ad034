/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Device selectors as the RDMA shared device plugin's config.json has them
 * ("selectors": {"vendors", "deviceIDs", "drivers", "ifNames", "linkTypes"}),
 * with its semantics: every non-empty list must match (AND), any entry of
 * a list may (OR). Values are compared exactly, as the plugin does, so a
 * config moved between the two selects the same devices. */
#ifndef RDMANET_RDMA_SELECTORS_H
#define RDMANET_RDMA_SELECTORS_H

#include <stdbool.h>
#include <jansson.h>
#include <rdmanet/master.h>

#include "error.h"
#include "rdma/model.h"

#define RN_SEL_MAX 64

struct rn_rdma_selectors {
	char vendors[RN_SEL_MAX][8];		/* "15b3" */
	int n_vendors;
	char device_ids[RN_SEL_MAX][8];		/* "1017" */
	int n_device_ids;
	char drivers[RN_SEL_MAX][32];		/* "mlx5_core" */
	int n_drivers;
	char if_names[RN_SEL_MAX][RN_IFNAMSIZ];
	int n_if_names;
	char link_types[RN_SEL_MAX][16];	/* "ether", "infiniband" */
	int n_link_types;
};

/* obj may be NULL (no selectors: everything matches). where prefixes errors. */
int rn_selectors_parse(json_t *obj, struct rn_rdma_selectors *s, const char *where,
		       struct rn_error *e);
bool rn_selectors_empty(const struct rn_rdma_selectors *s);
bool rn_selectors_match(const struct rn_rdma_selectors *s, const struct rn_rdma_dev *d);
/* One line saying why d does not match ("deviceID 1018 not in [1017]"). */
void rn_selectors_explain(const struct rn_rdma_selectors *s, const struct rn_rdma_dev *d,
			  char *buf, size_t size);

#endif
