/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* prevResult: the result of the ADD as the runtime kept it, handed back on
 * CHECK and DEL (and to a chained ADD). Parsed leniently (fields the plugin
 * does not know are ignored), the ones it uses strictly. */
#ifndef RDMANET_CNI_PREV_RESULT_H
#define RDMANET_CNI_PREV_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>
#include <rdmanet/master.h>

#include "cni_error.h"
#include "netaddr.h"

#define CNI_PREV_MAX_IFS 32
#define CNI_PREV_MAX_IPS 64
#define CNI_PREV_MAX_ROUTES 256

struct cni_prev_if {
	char name[RN_IFNAMSIZ];
	bool has_mac;
	uint8_t mac[6];
	char sandbox[4096];
};

struct cni_prev_ip {
	struct rn_prefix address;	/* the interface address with its prefix length */
	bool has_gw;
	struct rn_addr gw;
	int iface;			/* index into ifs, -1 if absent */
};

struct cni_prev_route {
	struct rn_prefix dst;
	bool has_gw;
	struct rn_addr gw;
	uint32_t table;			/* 0: not given (main) */
};

struct cni_prev {
	unsigned int n_ifs, n_ips, n_routes;
	struct cni_prev_if ifs[CNI_PREV_MAX_IFS];
	struct cni_prev_ip ips[CNI_PREV_MAX_IPS];
	struct cni_prev_route routes[CNI_PREV_MAX_ROUTES];
};

/* Code 7 naming the field on a malformed prevResult. */
int cni_prev_parse(json_t *obj, struct cni_prev *p, struct cni_err *err);
/* Index of the interface named ifname in sandbox (sandbox NULL: any), or -1. */
int cni_prev_find_if(const struct cni_prev *p, const char *ifname, const char *sandbox);

#endif
