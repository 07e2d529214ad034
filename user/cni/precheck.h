/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The checks ADD runs once the pod's link is up and before any
 * address is configured: is an address we were given already in use on the
 * wire, does the pool's gateway answer. Then, once the addresses are on,
 * the announcements (gratuitous ARP, unsolicited NA). */
#ifndef RDMANET_CNI_PRECHECK_H
#define RDMANET_CNI_PRECHECK_H

#include <stdint.h>

#include "attachment.h"
#include "ipam/ipam.h"
#include "cni_error.h"
#include "netconf.h"
#include "probe.h"

/* ARP/NDP need a link that does them: macvlan, and ipvlan in l2 mode. */
bool cni_link_speaks_arp(const struct cni_netconf *c);
/* Both checks in one window, so ADD waits out the duplicate check's window
 * once rather than that plus the gateway's answer: the gateways are asked
 * with the same first requests (IPv4 from 0.0.0.0, as the addresses are not
 * known to be free yet, so nobody's cache learns them), and a gateway that
 * has not answered when the window closes is asked again from the address,
 * now known to be free (some routers ignore requests from 0.0.0.0), for the
 * rest of its own timeout. conflict or gateway NULL: that check is off.
 * 1 if a->addrs[*which] is answered for by someone (whose MAC goes to who;
 * the gateways are then not judged), 0 if every address is free and every
 * gateway answered, -1 on error (code 104 naming a gateway that did not). */
int cni_run_checks(struct cni_prober *p, const struct cni_attachment *a,
		   const struct cni_probe_opts *conflict, const struct cni_probe_opts *gateway,
		   int *which, uint8_t who[6], struct cni_err *err);
/* Best effort: a failure is logged, not fatal (the address works anyway). */
void cni_announce(struct cni_prober *p, const struct cni_attachment *a);

/* The addresses rdmanetd found free on the master's wire
 * (ipam/precheck_table.h), for an ADD that runs the conflict check. */
struct cni_prechecked {
	struct rn_precheck_table table;
	struct rn_alloc_prefer *prefer;
	unsigned int n_prefer;
};

/* Loads the fresh entries of master and has the allocator prefer them.
 * Best effort: without a table the allocator picks as always. */
void cni_prechecked_prefer(struct cni_prechecked *pc, const char *state_dir, const char *master);
/* Every address of a is pre-checked within the table's max age, as of now:
 * its conflict probe may be skipped (each one's outcome logged at debug). */
bool cni_prechecked_all(const struct cni_prechecked *pc, const struct cni_attachment *a);
/* Marks a's pools for pre-checks on master (best effort, logged). */
void cni_prechecked_want(const char *state_dir, const struct cni_attachment *a);
void cni_prechecked_free(struct cni_prechecked *pc);

#endif
