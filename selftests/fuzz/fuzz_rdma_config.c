// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the RDMA module's text parsers — the config's "rdma" section
 * (netns mode, device-plugin selectors, sysfs root), GID text and GID
 * type names — on arbitrary bytes. Nothing may crash, leak or read past
 * the input; a rejected input must leave an error message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdma/gid.h"
#include "rdma/rdma_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_rdma_config rc;
	struct rn_error e = { 0 };
	enum rn_gid_type t;
	uint8_t raw[16];
	char *s = malloc(size + 1);
	json_t *j;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	j = json_loads(s, JSON_REJECT_DUPLICATES, NULL);
	if (j && rn_rdma_config_parse(j, &rc, &e) && !e.msg[0])
		abort();	/* a rejection must say why */
	json_decref(j);
	if (!rn_gid_parse(s, raw)) {
		char back[RN_GID_STRLEN];
		uint8_t again[16];

		rn_gid_format(raw, back);
		if (rn_gid_parse(back, again) || memcmp(raw, again, 16))
			abort();	/* formatting round-trips */
	}
	rn_gid_type_parse(s, size & 1, &t);
	free(s);
	return 0;
}
