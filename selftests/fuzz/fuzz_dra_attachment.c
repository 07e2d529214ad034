// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the CNI's DRA attachment record as the agent reads it
 * (dra.h rn_dra_attachment_parse): any bytes in a state file. A refusal
 * must say why; an accepted record must be what the writer can write
 * (every name set, at most 16 addresses, each one "address/prefix"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dra/dra.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_dra_attachment a;
	struct rn_error e = { 0 };

	if (rn_dra_attachment_parse((const char *)data, size, &a, &e)) {
		if (!e.msg[0])
			abort();
		return 0;
	}
	if (!a.network[0] || !a.container_id[0] || !a.ifname[0] || !a.claim_uid[0] ||
	    !a.device[0] || a.n_ips < 0 || a.n_ips > RN_DRA_NET_MAX_IPS || a.attached_ns < 0)
		abort();
	for (int i = 0; i < a.n_ips; i++)
		if (!strchr(a.ips[i], '/'))
			abort();
	return 0;
}
