/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CNI error object (spec section 5, "Error"): a code, a one-line
 * message and details. Every failure of the plugin ends as one of these on
 * stdout; logs go to stderr. */
#ifndef RDMANET_CNI_ERROR_H
#define RDMANET_CNI_ERROR_H

#include <jansson.h>

#include "error.h"

enum cni_code {
	/* well-known (0-99) */
	CNI_ERR_VERSION = 1,		/* incompatible CNI version */
	CNI_ERR_UNSUPPORTED_FIELD = 2,
	CNI_ERR_NO_CONTAINER = 3,	/* container unknown: nothing to clean up */
	CNI_ERR_ENV = 4,		/* invalid environment variables (named) */
	CNI_ERR_IO = 5,
	CNI_ERR_DECODE = 6,		/* stdin is not the JSON object it must be */
	CNI_ERR_CONFIG = 7,		/* invalid network configuration */
	CNI_ERR_TRY_LATER = 11,		/* transient: the IPAM store did not answer */
	CNI_ERR_UNAVAILABLE = 50,	/* STATUS: cannot service ADD */
	CNI_ERR_UNAVAILABLE_LIMITED = 51, /* STATUS: and existing pods lose connectivity */
	/* rdmanet's own (100+) */
	RN_CNI_ERR_INTERNAL = 100,	/* out of memory, unexpected kernel answer */
	RN_CNI_ERR_MASTER = 101,	/* the master netdev is missing or unusable */
	RN_CNI_ERR_IFNAME_EXISTS = 102,	/* CNI_IFNAME already exists in the netns */
	RN_CNI_ERR_IP_CONFLICT = 103,	/* every address tried is in use on the wire */
	RN_CNI_ERR_GATEWAY = 104,	/* the gateway does not answer ARP/NDP */
	RN_CNI_ERR_POOL_EXHAUSTED = 105,
	RN_CNI_ERR_DATAPATH = 106,	/* registration in rdmanetd's maps failed */
	RN_CNI_ERR_CHECK = 107,		/* CHECK found the attachment not as ADD left it */
	RN_CNI_ERR_NETLINK = 108,	/* the kernel refused a link/address/route/rule */
	RN_CNI_ERR_STATE = 109,		/* the plugin's state directory is not usable */
};

struct cni_err {
	int code;			/* 0: no error */
	char msg[512];
	char details[1024];
};

/* Sets code and msg (details cleared) unless an error is already set, so the
 * first failure is the one reported. Returns -1. */
int cni_fail(struct cni_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, msg being "<prefix>: <e->msg>"; code from the errno in e->code
 * when code is 0 (cni_code_of). */
int cni_fail_rn(struct cni_err *err, int code, const struct rn_error *e, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void cni_err_details(struct cni_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* -EAGAIN (store unavailable) -> 11, -ENOSPC -> 105, -EINVAL/-ENOENT -> 7,
 * anything else -> fallback. */
int cni_code_of(int neg_errno, int fallback);
json_t *cni_err_json(const struct cni_err *err, const char *version);

#endif
