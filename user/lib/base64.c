// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base64.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *rn_base64_encode(const void *data, size_t len)
{
	const uint8_t *in = data;
	char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < len)
			v |= in[i + 2];
		*o++ = alphabet[v >> 18 & 63];
		*o++ = alphabet[v >> 12 & 63];
		*o++ = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? alphabet[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

static int sextet(char c)
{
	const char *p = c ? strchr(alphabet, c) : NULL;

	return p ? (int)(p - alphabet) : -1;
}

char *rn_base64_decode(const char *s, size_t *len)
{
	size_t n = strlen(s), o = 0;
	char *out;

	if (n % 4)
		return NULL;
	out = malloc(n / 4 * 3 + 1);
	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 4) {
		int a = sextet(s[i]), b = sextet(s[i + 1]), c = sextet(s[i + 2]);
		int d = sextet(s[i + 3]);
		bool last = i + 4 == n;
		uint32_t v;

		/* padding only at the very end: "xx==" or "xxx=" */
		if (a < 0 || b < 0 || (c < 0 && !(last && s[i + 2] == '=' && s[i + 3] == '=')) ||
		    (d < 0 && !(last && s[i + 3] == '='))) {
			free(out);
			return NULL;
		}
		v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)(c < 0 ? 0 : c) << 6 |
		    (uint32_t)(d < 0 ? 0 : d);
		out[o++] = (char)(v >> 16);
		if (c >= 0)
			out[o++] = (char)(v >> 8 & 0xff);
		if (d >= 0)
			out[o++] = (char)(v & 0xff);
	}
	out[o] = '\0';
	*len = o;
	return out;
}
