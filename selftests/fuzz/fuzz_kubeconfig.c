// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: a kubeconfig (YAML or JSON, user/lib/kubeapi): the YAML
 * reader, the context/cluster/user resolution, inline base64 data. A
 * rejection must say why; an accepted one must name an http(s) server.
 * Relative paths resolve under a directory that does not exist, so a
 * tokenFile is refused, never read from this machine. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubeapi/kube_conn.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_error e = { 0 };
	struct rn_kube *k = calloc(1, sizeof(*k));

	if (!k)
		return 0;
	if (rn_kube_parse_kubeconfig(k, "/nonexistent/kubeconfig", (const char *)data, size, NULL, &e)) {
		if (!e.msg[0])
			abort();
	} else if (strncmp(k->server, "http", 4)) {
		abort();
	}
	rn_kube_close(k);
	return 0;
}
