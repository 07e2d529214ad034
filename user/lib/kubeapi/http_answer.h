/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Private to kubeapi/: an HTTP/1.1 answer read as it arrives (RFC 9112):
 * the status line, the headers the client acts on (Content-Length,
 * Transfer-Encoding: chunked, Connection: close), the body whole. Informational
 * answers (1xx) are skipped. Bounded: a header line past RN_HTTP_LINE_MAX
 * or a body past max is an error, never a larger allocation. */
#ifndef RDMANET_KUBEAPI_HTTP_ANSWER_H
#define RDMANET_KUBEAPI_HTTP_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

#define RN_HTTP_LINE_MAX 8192

enum rn_http_state {
	RN_HTTP_STATUS,		/* the status line */
	RN_HTTP_HEADERS,
	RN_HTTP_BODY,		/* Content-Length bytes, or to the end of the stream */
	RN_HTTP_CHUNK_SIZE,
	RN_HTTP_CHUNK_DATA,
	RN_HTTP_CHUNK_END,	/* the CRLF after a chunk's data */
	RN_HTTP_TRAILERS,
	RN_HTTP_DONE,
};

struct rn_http_answer {
	/* the caller's: set before the first feed */
	size_t max;		/* the largest body taken */
	bool no_body;		/* the answer to a HEAD request */
	/* the answer */
	long status;
	char *body;		/* NUL-terminated; the caller frees it */
	size_t len;
	bool keep_alive;	/* the connection may carry the next request */
	/* the parser's */
	enum rn_http_state state;
	bool chunked, have_length, until_close;
	size_t left;		/* of the body (Content-Length) or of the chunk */
	size_t cap, line_len;
	char line[RN_HTTP_LINE_MAX];
	char err[160];
};

/* Takes n bytes of the stream (*used of them: an answer ends where the
 * next could begin). 1 when the answer is whole, 0 when it needs more, -1
 * on a malformed or oversized one (err says what; -2 for out of memory). */
int rn_http_answer_feed(struct rn_http_answer *a, const char *data, size_t n, size_t *used);
/* The stream ended: 1 if that completed the answer (a body read to the
 * end of the stream), -1 if it was cut short (err says where). */
int rn_http_answer_eof(struct rn_http_answer *a);
void rn_http_answer_free(struct rn_http_answer *a);

#endif
