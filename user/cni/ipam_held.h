/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What an attachment holds in the IPAM store, with each address's pool
 * facts (gateway, routes) as ADD saw them: CHECK rebuilds ADD's route plan
 * from this, DEL and GC learn which rules to remove. */
#ifndef RDMANET_CNI_IPAM_HELD_H
#define RDMANET_CNI_IPAM_HELD_H

#include "cni_error.h"
#include "ipam/ipam.h"

/* Returns the number of addresses (0..2) or -1 with err set (code 11 when
 * the store does not answer). */
int cni_ipam_held(struct rn_ipam *ipam, const char *container_id, const char *ifname,
		  struct rn_ipam_address out[2], struct cni_err *err);

#endif
