// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cni_error.h"

static void set_msg(struct cni_err *err, int code, const char *cause, const char *fmt,
		    va_list ap)
{
	int n = vsnprintf(err->msg, sizeof(err->msg), fmt, ap);

	/* ": cause" as far as it fits */
	if (cause && n >= 0 && (size_t)n + 3 < sizeof(err->msg)) {
		size_t off = (size_t)n, len;

		memcpy(err->msg + off, ": ", 2);
		off += 2;
		len = strnlen(cause, sizeof(err->msg) - off - 1);
		memcpy(err->msg + off, cause, len);
		err->msg[off + len] = '\0';
	}
	err->code = code;
	err->details[0] = '\0';
}

int cni_fail(struct cni_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code)
		return -1;
	va_start(ap, fmt);
	set_msg(err, code, NULL, fmt, ap);
	va_end(ap);
	return -1;
}

int cni_fail_rn(struct cni_err *err, int code, const struct rn_error *e, const char *fmt, ...)
{
	va_list ap;

	if (!err || err->code)
		return -1;
	if (!code)
		code = cni_code_of(e->code, RN_CNI_ERR_INTERNAL);
	va_start(ap, fmt);
	set_msg(err, code, e->msg[0] ? e->msg : "unknown error", fmt, ap);
	va_end(ap);
	return -1;
}

void cni_err_details(struct cni_err *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err->details, sizeof(err->details), fmt, ap);
	va_end(ap);
}

int cni_code_of(int neg_errno, int fallback)
{
	switch (neg_errno) {
	case -EAGAIN:
		return CNI_ERR_TRY_LATER;
	case -ENOSPC:
		return RN_CNI_ERR_POOL_EXHAUSTED;
	case -EINVAL:
	case -ENOENT:
		return CNI_ERR_CONFIG;
	default:
		return fallback;
	}
}

json_t *cni_err_json(const struct cni_err *err, const char *version)
{
	json_t *o = json_object();

	json_object_set_new(o, "cniVersion", json_string(version));
	json_object_set_new(o, "code", json_integer(err->code ? err->code : RN_CNI_ERR_INTERNAL));
	json_object_set_new(o, "msg", json_string(err->msg[0] ? err->msg : "unknown error"));
	if (err->details[0])
		json_object_set_new(o, "details", json_string(err->details));
	return o;
}
