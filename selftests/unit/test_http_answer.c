// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The HTTP/1.1 answer reader of the Kubernetes API client
 * (user/lib/kubeapi/http_answer.c), table-driven: each answer is fed
 * whole and again one byte at a time, which must read the same; then the
 * answers it must refuse, each with the reason it gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kubeapi/http_answer.h"

#define MAX 64

struct good {
	const char *what, *wire;
	bool eof;		/* the stream ends after wire (a body to the close) */
	long status;
	const char *body;
	bool keep_alive;
	size_t rest;		/* bytes after the answer, left unread */
};

static const struct good goods[] = {
	{ "Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, 200, "hello",
	  true, 0 },
	{ "header names in any case, spaces around the value",
	  "HTTP/1.1 201 Created\r\ncontent-length:   2  \r\nX-A: b\r\n\r\n{}", false, 201, "{}", true,
	  0 },
	{ "chunked, an extension, a trailer",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;x=y\r\n{\"a\"\r\n9\r\n:1234567}\r\n"
	  "0\r\nX-Trailer: t\r\n\r\n", false, 200, "{\"a\":1234567}", true, 0 },
	{ "100 Continue, then the answer",
	  "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 422 Unprocessable\r\nContent-Length: 1\r\n\r\nx",
	  false, 422, "x", true, 0 },
	{ "204: no body, whatever follows", "HTTP/1.1 204 No Content\r\n\r\nHTTP", false, 204, "",
	  true, 4 },
	{ "Content-Length 0", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, 200, "", true,
	  0 },
	{ "no length: the body runs to the close", "HTTP/1.1 200 OK\r\n\r\nto the end", true, 200,
	  "to the end", false, 0 },
	{ "Connection: close", "HTTP/1.1 409 Conflict\r\nConnection: close\r\nContent-Length: 2\r\n\r\nab",
	  false, 409, "ab", false, 0 },
	{ "HTTP/1.0 closes unless keep-alive is said",
	  "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nz", false, 200, "z", false, 0 },
	{ "HTTP/1.0 with Connection: keep-alive",
	  "HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 1\r\n\r\nz", false, 200, "z",
	  true, 0 },
	{ "chunked and Content-Length: chunked wins, the connection is not reused",
	  "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	  false, 200, "ok", false, 0 },
	{ "a bare LF ends lines too", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false, 200, "ok",
	  true, 0 },
	{ "bytes after the answer are not taken", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nokEXTRA",
	  false, 200, "ok", true, 5 },
	{ "a status line without a reason", "HTTP/1.1 500\r\nContent-Length: 0\r\n\r\n", false, 500,
	  "", true, 0 },
};

static void check_good(const struct good *g, bool bytewise)
{
	struct rn_http_answer a = { .max = MAX };
	size_t n = strlen(g->wire), off = 0, used;
	int rc = 0;

	while (off < n && rc == 0) {
		size_t step = bytewise ? 1 : n - off;

		rc = rn_http_answer_feed(&a, g->wire + off, step, &used);
		off += used;
	}
	if (rc == 0 && g->eof)
		rc = rn_http_answer_eof(&a);
	if (rc != 1)
		fail_msg("%s (%s): rc %d, err '%s'", g->what, bytewise ? "bytewise" : "whole", rc,
			 a.err);
	if (a.status != g->status || strcmp(a.body ? a.body : "", g->body) ||
	    a.keep_alive != g->keep_alive || n - off != g->rest)
		fail_msg("%s (%s): status %ld body '%s' keep_alive %d rest %zu", g->what,
			 bytewise ? "bytewise" : "whole", a.status, a.body ? a.body : "",
			 a.keep_alive, n - off);
	rn_http_answer_free(&a);
}

static void test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		check_good(&goods[i], false);
		check_good(&goods[i], true);
	}
}

struct bad {
	const char *what, *wire;
	bool eof;
	const char *err;	/* a part of the reason */
};

static const struct bad bads[] = {
	{ "not HTTP", "SSH-2.0-OpenSSH\r\n", false, "status line" },
	{ "HTTP/2 framing", "HTTP/2 200\r\n", false, "status line" },
	{ "a status of two digits", "HTTP/1.1 20 OK\r\n", false, "status line" },
	{ "a malformed Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n", false,
	  "Content-Length" },
	{ "a negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", false,
	  "Content-Length" },
	{ "two different Content-Lengths",
	  "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", false, "two different" },
	{ "a Content-Length past the maximum", "HTTP/1.1 200 OK\r\nContent-Length: 65\r\n\r\n", false,
	  "larger" },
	{ "a Content-Length past SIZE_MAX",
	  "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", false, "Content-Length" },
	{ "chunks past the maximum",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n" \
	  "01234567890123456789012345678901\r\n21\r\n", false, "larger" },
	{ "a chunk size that is not hex", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	  false, "chunk size" },
	{ "an empty chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", false,
	  "chunk size" },
	{ "a chunk longer than its size",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n", false, "longer" },
	{ "gzip, never asked for", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", false,
	  "transfer coding" },
	{ "a transfer coding that does not end in chunked",
	  "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, identity\r\n\r\n", false, "transfer coding" },
	{ "a folded header line", "HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\n\r\n", false, "header line" },
	{ "a header without a colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", false, "header line" },
	{ "space before the colon", "HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\n", false,
	  "header line" },
	{ "101 unasked", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n", false,
	  "switched protocols" },
	{ "closed before an answer", "", true, "closed before an answer" },
	{ "closed in the headers", "HTTP/1.1 200 OK\r\nContent-Le", true, "middle of the answer" },
	{ "closed in the body", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", true,
	  "middle of the answer" },
	{ "closed between chunks", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n",
	  true, "middle of the answer" },
};

static void test_bad(void **state)
{
	static char longline[RN_HTTP_LINE_MAX + 64];
	struct rn_http_answer a = { .max = MAX };
	size_t used;

	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		int rc;

		memset(&a, 0, sizeof(a));
		a.max = MAX;
		rc = rn_http_answer_feed(&a, b->wire, strlen(b->wire), &used);
		if (rc == 0 && b->eof)
			rc = rn_http_answer_eof(&a);
		if (rc != -1 || !strstr(a.err, b->err))
			fail_msg("%s: rc %d err '%s', want -1 and '%s'", b->what, rc, a.err, b->err);
		rn_http_answer_free(&a);
	}
	/* a header line of 8 KiB and more: refused, not buffered */
	memset(&a, 0, sizeof(a));
	a.max = MAX;
	strcpy(longline, "HTTP/1.1 200 OK\r\nX-Long: ");
	memset(longline + strlen(longline), 'a', sizeof(longline) - strlen(longline) - 1);
	assert_int_equal(rn_http_answer_feed(&a, longline, strlen(longline), &used), -1);
	assert_non_null(strstr(a.err, "longer than 8 KiB"));
	rn_http_answer_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
