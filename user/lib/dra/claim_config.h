/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Inside the DRA module: a claim's opaque device configuration
 * (claim_config.c); the interface is dra.h's rn_dra_claim_config. */
#ifndef RDMANET_DRA_CLAIM_CONFIG_H
#define RDMANET_DRA_CLAIM_CONFIG_H

#include <stdbool.h>
#include <jansson.h>

#include "dra/dra.h"

/* status.allocation.devices.config (list, which may be NULL) into
 * out->configs, after out->results are read (an entry's "requests" are
 * matched to them). Fails on what the API server's validation refuses
 * (a source other than FromClass/FromClaim, no opaque driver or
 * parameters object, more than 64 entries or 32 requests), whatever the
 * driver; an entry whose parameters are not rdmanet's keeps the error
 * in its .error (another driver's parameters are its own business). */
int dra_claim_configs_from_json(json_t *list, struct rn_dra_claim *out, struct rn_error *e);

/* A NetworkConfig's keys in o into out (zeroed first): with identity,
 * apiVersion and kind are required (a claim's parameters), without they
 * are refused (a prepared record's "config"). Errors name the key under
 * where. */
int dra_netconfig_from_json(json_t *o, bool identity, struct rn_dra_netconfig *out,
			    const char *where, struct rn_error *e);
/* The keys that are set, as a record's "config"; NULL when none is. */
json_t *dra_netconfig_to_json(const struct rn_dra_netconfig *c);

#endif
