// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: a ResourceClaim as the DRA driver reads it
 * (rn_dra_claim_from_json: identity, reservedFor, the allocation's results
 * and its config entries), then each result's effective configuration for
 * rdmanet's driver (rn_dra_claim_config). A rejection must say why; an
 * effective config must survive the prepared record's round trip
 * (dra_netconfig_to_json, read back by dra_netconfig_from_json) exactly. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dra/claim_config.h"
#include "dra/dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void round_trip(const struct rn_dra_netconfig *k)
{
	struct rn_dra_netconfig back;
	struct rn_error e = { 0 };
	json_t *o = dra_netconfig_to_json(k);

	if (!o)
		return;
	if (dra_netconfig_from_json(o, false, &back, "config", &e) ||
	    memcmp(k->mode, back.mode, sizeof(k->mode)) ||
	    memcmp(k->ipvlan_mode, back.ipvlan_mode, sizeof(k->ipvlan_mode)) ||
	    k->has_pools != back.has_pools || k->n_ipv4_pools != back.n_ipv4_pools ||
	    k->n_ipv6_pools != back.n_ipv6_pools || k->has_dscp != back.has_dscp ||
	    (k->has_dscp && k->dscp != back.dscp))
		abort();
	for (int i = 0; i < k->n_ipv4_pools; i++)
		if (strcmp(k->ipv4_pools[i], back.ipv4_pools[i]))
			abort();
	for (int i = 0; i < k->n_ipv6_pools; i++)
		if (strcmp(k->ipv6_pools[i], back.ipv6_pools[i]))
			abort();
	json_decref(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_dra_claim *c = calloc(1, sizeof(*c));
	struct rn_error e = { 0 };
	json_t *o = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, NULL);

	if (!c || !o)
		goto out;
	if (rn_dra_claim_from_json(o, c, &e)) {
		if (!e.msg[0])
			abort();
		goto out;
	}
	for (int i = 0; i < c->n_results; i++) {
		struct rn_dra_netconfig k;

		memset(&e, 0, sizeof(e));
		if (rn_dra_claim_config(c, i, RN_DRA_DEFAULT_DRIVER, &k, &e)) {
			if (!e.msg[0])
				abort();
			continue;
		}
		round_trip(&k);
	}
out:
	json_decref(o);
	free(c);
	return 0;
}
