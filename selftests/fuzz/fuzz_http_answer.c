// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* libFuzzer: the HTTP/1.1 answer reader of the Kubernetes API client
 * (user/lib/kubeapi/http_answer.c), which reads what the API server, or
 * whatever answers at its address, sends. The first byte sets the size of
 * the pieces the rest is fed in (as reads of a socket would cut it). An
 * answer read must have a status and a body within the maximum; a refusal
 * must say why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kubeapi/http_answer.h"

#define MAX 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rn_http_answer a = { .max = MAX };
	size_t piece, off = 1, used;
	int rc = 0;

	if (!size)
		return 0;
	piece = data[0] ? data[0] : size;
	while (off < size && rc == 0) {
		size_t n = size - off < piece ? size - off : piece;

		rc = rn_http_answer_feed(&a, (const char *)data + off, n, &used);
		if (used > n || (rc == 0 && used != n))
			abort();
		off += used;
	}
	if (rc == 0)
		rc = rn_http_answer_eof(&a);
	if (rc == 1 && (a.status < 100 || a.status > 999 || a.len > MAX ||
			(a.body && a.body[a.len] != '\0')))
		abort();
	if (rc < 0 && !a.err[0])
		abort();
	rn_http_answer_free(&a);
	return 0;
}
