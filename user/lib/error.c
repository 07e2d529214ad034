// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

int rn_fail(struct rn_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int rn_fail_wrap(struct rn_error *e, const char *fmt, ...)
{
	char prefix[256], old[sizeof(e->msg)];
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	/* A message longer than msg[] is cut at its end: the prefix says where
	 * it failed, which matters more than the tail of the old message. */
	size_t n = (size_t)snprintf(e->msg, sizeof(e->msg), "%s: ", prefix);
	size_t room = sizeof(e->msg) - 1 - n;
	size_t len = strnlen(old, sizeof(old) - 1);

	if (len > room)
		len = room;
	memcpy(e->msg + n, old, len);
	e->msg[n + len] = '\0';
	return e->code;
}
