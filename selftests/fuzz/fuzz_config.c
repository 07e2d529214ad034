// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the whole node config (rn_config_parse), which runs every
 * module's section checks, the IPAM store settings and pools (validated
 * one by one and against one another) among them. A rejection must say
 * why; an accepted config's pools must parse again from the config. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ipam/ipam_settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_ipam_settings st;
	struct rn_error e = { 0 };
	struct rn_config c;
	struct rn_pool *pools;
	unsigned int n;
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (rn_config_parse(&c, s, &e)) {
		if (!e.msg[0])
			abort();
	} else {
		if (rn_ipam_settings_parse(&st, &c, &e) || rn_ipam_config_pools(&c, &pools, &n, &e))
			abort();	/* accepted once, accepted again */
		rn_ipam_config_pools_free(pools, n);
	}
	rn_config_free(&c);
	free(s);
	return 0;
}
