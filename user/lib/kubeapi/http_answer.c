// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kubeapi/http_answer.h"

static int fail(struct rn_http_answer *a, const char *what)
{
	snprintf(a->err, sizeof(a->err), "%s", what);
	return -1;
}

static int append(struct rn_http_answer *a, const char *data, size_t n)
{
	if (n > a->max || a->len > a->max - n)
		return fail(a, "the answer's body is larger than the client takes");
	if (a->len + n + 1 > a->cap) {
		size_t cap = a->cap ? a->cap : 4096;
		char *grown;

		while (cap < a->len + n + 1)
			cap *= 2;
		if (cap > a->max + 1)	/* never twice what may come */
			cap = a->max + 1;
		grown = realloc(a->body, cap);
		if (!grown) {
			fail(a, "out of memory");
			return -2;
		}
		a->body = grown;
		a->cap = cap;
	}
	memcpy(a->body + a->len, data, n);
	a->len += n;
	a->body[a->len] = '\0';
	return 0;
}

/* a decimal or hexadecimal count of at most max, the whole of s..end */
static int parse_count(const char *s, const char *end, int base, size_t max, size_t *out)
{
	size_t v = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return -1;
		if (v > (max - d) / base)
			return -1;
		v = v * base + d;
	}
	*out = v;
	return 0;
}

/* whether the comma-separated list value..end has token (any case) */
static bool has_token(const char *value, const char *end, const char *token, bool last_only)
{
	size_t tl = strlen(token);
	bool found = false;

	while (value < end) {
		const char *comma = memchr(value, ',', end - value), *t_end = comma ? comma : end;

		while (value < t_end && (*value == ' ' || *value == '\t'))
			value++;
		while (t_end > value && (t_end[-1] == ' ' || t_end[-1] == '\t'))
			t_end--;
		found = (size_t)(t_end - value) == tl && !strncasecmp(value, token, tl);
		if (found && !last_only)
			return true;
		value = comma ? comma + 1 : end;
	}
	return found;
}

static int status_line(struct rn_http_answer *a, const char *l, size_t n)
{
	size_t code;

	/* HTTP/1.x SP 3DIGIT [SP reason] */
	if (n < 12 || memcmp(l, "HTTP/1.", 7) || (l[7] != '0' && l[7] != '1') || l[8] != ' ' ||
	    (n > 12 && l[12] != ' ') || parse_count(l + 9, l + 12, 10, 999, &code) || code < 100)
		return fail(a, "not an HTTP/1 status line");
	a->status = (long)code;
	a->keep_alive = l[7] == '1';
	a->chunked = a->have_length = a->until_close = false;
	a->state = RN_HTTP_HEADERS;
	return 0;
}

static int header_line(struct rn_http_answer *a, const char *l, size_t n)
{
	const char *colon = memchr(l, ':', n), *v, *end = l + n;
	size_t len;

	/* a folded line (obs-fold) or a name with spaces is refused, as
	 * RFC 9112 lets a client do: it is how responses are smuggled */
	if (!colon || colon == l || *l == ' ' || *l == '\t' || colon[-1] == ' ' ||
	    colon[-1] == '\t')
		return fail(a, "a malformed header line");
	for (v = colon + 1; v < end && (*v == ' ' || *v == '\t'); v++)
		;
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
#define IS(name) ((size_t)(colon - l) == sizeof(name) - 1 && !strncasecmp(l, name, sizeof(name) - 1))
	if (IS("Content-Length")) {
		if (parse_count(v, end, 10, SIZE_MAX, &len))
			return fail(a, "a malformed Content-Length");
		if (a->have_length && len != a->left)
			return fail(a, "two different Content-Length headers");
		if (len > a->max)
			return fail(a, "the answer's body is larger than the client takes");
		a->have_length = true;
		a->left = len;
	} else if (IS("Transfer-Encoding")) {
		/* chunked must come last; gzip and the rest were never asked for */
		if (!has_token(v, end, "chunked", true) || has_token(v, end, "gzip", false) ||
		    has_token(v, end, "deflate", false) || has_token(v, end, "compress", false))
			return fail(a, "a transfer coding other than chunked");
		a->chunked = true;
	} else if (IS("Connection")) {
		if (has_token(v, end, "close", false))
			a->keep_alive = false;
		else if (has_token(v, end, "keep-alive", false))
			a->keep_alive = true;
	}
#undef IS
	return 0;
}

static int headers_end(struct rn_http_answer *a)
{
	if (a->status == 101)
		return fail(a, "the server switched protocols unasked");
	if (a->status < 200) {	/* 100 Continue, 103 Early Hints: the answer follows */
		a->state = RN_HTTP_STATUS;
		return 0;
	}
	if (a->no_body || a->status == 204 || a->status == 304) {
		a->state = RN_HTTP_DONE;
		return 0;
	}
	if (a->chunked) {
		/* Transfer-Encoding overrides Content-Length (RFC 9112 6.3);
		 * a server sending both is not trusted with the connection */
		if (a->have_length)
			a->keep_alive = false;
		a->state = RN_HTTP_CHUNK_SIZE;
	} else if (a->have_length) {
		a->state = a->left ? RN_HTTP_BODY : RN_HTTP_DONE;
	} else {
		a->until_close = true;
		a->keep_alive = false;
		a->state = RN_HTTP_BODY;
	}
	return 0;
}

static int chunk_size_line(struct rn_http_answer *a, const char *l, size_t n)
{
	const char *end = memchr(l, ';', n);	/* chunk extensions are ignored */

	if (!end)
		end = l + n;
	while (end > l && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (parse_count(l, end, 16, a->max, &a->left))
		return fail(a, "a malformed chunk size");
	if (a->left > a->max - a->len)
		return fail(a, "the answer's body is larger than the client takes");
	a->state = a->left ? RN_HTTP_CHUNK_DATA : RN_HTTP_TRAILERS;
	return 0;
}

static int line(struct rn_http_answer *a)
{
	const char *l = a->line;
	size_t n = a->line_len;

	a->line_len = 0;
	if (n && l[n - 1] == '\r')
		n--;
	switch (a->state) {
	case RN_HTTP_STATUS:
		return status_line(a, l, n);
	case RN_HTTP_HEADERS:
		return n ? header_line(a, l, n) : headers_end(a);
	case RN_HTTP_CHUNK_SIZE:
		return chunk_size_line(a, l, n);
	case RN_HTTP_CHUNK_END:
		if (n)
			return fail(a, "a chunk longer than its size");
		a->state = RN_HTTP_CHUNK_SIZE;
		return 0;
	case RN_HTTP_TRAILERS:	/* read and ignored */
		if (!n)
			a->state = RN_HTTP_DONE;
		return 0;
	default:
		return fail(a, "internal: a line in the body");
	}
}

int rn_http_answer_feed(struct rn_http_answer *a, const char *data, size_t n, size_t *used)
{
	size_t i = 0;
	int err = 0;

	while (i < n && a->state != RN_HTTP_DONE && !err) {
		if (a->state == RN_HTTP_BODY || a->state == RN_HTTP_CHUNK_DATA) {
			size_t take = n - i;

			if (!a->until_close && take > a->left)
				take = a->left;
			err = append(a, data + i, take);
			i += take;
			if (!a->until_close) {
				a->left -= take;
				if (!a->left)
					a->state = a->state == RN_HTTP_BODY ? RN_HTTP_DONE
									    : RN_HTTP_CHUNK_END;
			}
			continue;
		}
		{
			const char *nl = memchr(data + i, '\n', n - i);
			size_t take = (nl ? (size_t)(nl - (data + i)) : n - i);

			if (a->line_len + take >= sizeof(a->line)) {
				err = fail(a, "a header or chunk line longer than 8 KiB");
				break;
			}
			memcpy(a->line + a->line_len, data + i, take);
			a->line_len += take;
			i += take;
			if (nl) {
				i++;
				err = line(a);
			}
		}
	}
	*used = i;
	if (err)
		return err;
	return a->state == RN_HTTP_DONE;
}

int rn_http_answer_eof(struct rn_http_answer *a)
{
	if (a->state == RN_HTTP_DONE)
		return 1;
	if (a->state == RN_HTTP_BODY && a->until_close) {
		a->state = RN_HTTP_DONE;
		return 1;
	}
	return fail(a, a->state == RN_HTTP_STATUS && !a->line_len && !a->status
		       ? "the connection closed before an answer"
		       : "the connection closed in the middle of the answer");
}

void rn_http_answer_free(struct rn_http_answer *a)
{
	free(a->body);
	a->body = NULL;
	a->len = a->cap = 0;
}
