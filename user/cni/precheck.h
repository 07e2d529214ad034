/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The checks ADD runs once the pod's link is up and before any
 * address is configured: is an address we were given already in use on the
 * wire, does the pool's gateway answer. Then, once the addresses are on,
 * the announcements (gratuitous ARP, unsolicited NA). */
#ifndef RDMANET_CNI_PRECHECK_H
#define RDMANET_CNI_PRECHECK_H

#include <stdint.h>

#include "attachment.h"
#include "cni_error.h"
#include "netconf.h"
#include "probe.h"

/* ARP/NDP need a link that does them: macvlan, and ipvlan in l2 mode. */
bool cni_link_speaks_arp(const struct cni_netconf *c);
/* 1 if a->addrs[*which] is answered for by someone (whose MAC goes to who),
 * 0 if every address is free, -1 on error (err set). */
int cni_find_conflict(struct cni_prober *p, const struct cni_attachment *a,
		      const struct cni_probe_opts *o, int *which, uint8_t who[6],
		      struct cni_err *err);
/* 0 if every gateway answered; -1 with code 104 naming one that did not. */
int cni_check_gateways(struct cni_prober *p, const struct cni_attachment *a,
		       const struct cni_probe_opts *o, struct cni_err *err);
/* Best effort: a failure is logged, not fatal (the address works anyway). */
void cni_announce(struct cni_prober *p, const struct cni_attachment *a);

#endif
