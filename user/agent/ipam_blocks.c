// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <string.h>

#include "ipam_blocks.h"
#include "log.h"
#include "ipam/ipam.h"

/* kept across ticks: it remembers since when each block has been empty */
static struct rn_block_alloc *ba;
static struct rn_ipam_settings ba_settings;
static char ba_node[sizeof(((struct rn_config *)0)->node)];

static void close_blocks(void)
{
	rn_block_alloc_close(ba);
	ba = NULL;
}

void rn_ipam_blocks_tick(const struct rn_config *c)
{
	const struct rn_block_tick t = { .reserve_pct = RN_BLOCK_RESERVE_PCT,
					 .release_grace_ms = RN_BLOCK_RELEASE_GRACE_MS };
	struct rn_error e = { 0 };
	struct rn_ipam_settings st;
	struct rn_pool *pools;
	unsigned int n, k = 0;
	int r;

	if (rn_ipam_settings_parse(&st, c, NULL) || st.store != RN_IPAM_STORE_ETCD ||
	    rn_ipam_config_pools(c, &pools, &n, NULL)) {
		close_blocks();
		return;
	}
	for (unsigned int i = 0; i < n; i++)
		if (pools[i].block)
			pools[k++] = pools[i];	/* the others are freed below */
		else
			rn_pool_free(&pools[i]);
	if (!k) {
		close_blocks();
	} else {
		if (ba && (memcmp(&st, &ba_settings, sizeof(st)) || strcmp(ba_node, c->node)))
			close_blocks();
		if (!ba && rn_block_alloc_open(&ba, &st, c->node, &e)) {
			rn_warn("ipam: blocks: %s", e.msg);
		} else if (ba) {
			ba_settings = st;
			snprintf(ba_node, sizeof(ba_node), "%s", c->node);
			r = rn_block_alloc_tick(ba, pools, k, &t, &e);
			if (r < 0)
				rn_warn("ipam: blocks: %s", e.msg);
			else if (r > 0)
				rn_info("ipam: blocks: %d block(s) claimed or given back", r);
		}
	}
	rn_ipam_config_pools_free(pools, k);
}
