/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The CNI verbs. Each gets the validated environment and the parsed
 * configuration and fills r->err on failure (returning -1). */
#ifndef RDMANET_CNI_CMD_H
#define RDMANET_CNI_CMD_H

#include <jansson.h>

#include "cni_env.h"
#include "cni_error.h"
#include "netconf.h"

struct cni_req {
	struct cni_env env;
	struct cni_netconf conf;
	struct cni_err err;
	const char *stdin_text;		/* the network config as read */
	size_t stdin_len;
};

/* *result: the ADD result to print (owned by the caller). */
int cni_cmd_add(struct cni_req *r, json_t **result);
int cni_cmd_del(struct cni_req *r);
int cni_cmd_check(struct cni_req *r);
int cni_cmd_gc(struct cni_req *r);
int cni_cmd_status(struct cni_req *r);

#endif
