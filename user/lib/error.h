/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A one-line error message carried back to whoever reports it (CLI stderr,
 * CNI error object, agent log), so the library never prints on its own. */
#ifndef RDMANET_ERROR_H
#define RDMANET_ERROR_H

struct rn_error {
	int code;		/* -errno of the failure, 0 if none */
	char msg[512];
};

/* Sets e (if not NULL) and returns code, so callers can `return rn_fail(...)`. */
int rn_fail(struct rn_error *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefixes an existing message: "what: <old message>". */
int rn_fail_wrap(struct rn_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
