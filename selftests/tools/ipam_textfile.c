// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ipam_textfile CONFIG: prints the IPAM part of the agent's textfile (the
 * rn_metrics_pools hook) on stdout, for promtool and value checks without
 * a running agent or pinned maps. */
#include <stdio.h>

#include "config.h"
#include "ipam/ipam_config.h"

int main(int argc, char **argv)
{
	struct rn_error e = { 0 };
	struct rn_config cfg;

	if (argc != 2) {
		fprintf(stderr, "usage: ipam_textfile CONFIG\n");
		return 2;
	}
	if (rn_config_load(&cfg, argv[1], &e)) {
		fprintf(stderr, "ipam_textfile: %s\n", e.msg);
		return 1;
	}
	rn_metrics_pools(stdout, &cfg);
	rn_config_free(&cfg);
	return 0;
}
