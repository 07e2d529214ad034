/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Pre-checked addresses (ipam/precheck_table.h): for every pool an ADD
 * conflict-checks on a master (the plugin's marker), the agent probes the
 * addresses the pool will hand out next, from the host side on the master
 * (an RFC 5227 ARP probe from 0.0.0.0 for IPv4, a Neighbor Solicitation for
 * IPv6), before any pod asks, and keeps those nobody answered for in the
 * table: at most ipam.precheck.per_pool per pool and master, each probed
 * again once it is half ipam.precheck.max_age_s old, dropped when someone
 * answers for it or it gets allocated. So the ADD that takes one skips the
 * conflict-probe window. VLAN pools are left out (shared-mode attachments
 * do not use them). */
#ifndef RDMANET_AGENT_IPAM_PRECHECK_H
#define RDMANET_AGENT_IPAM_PRECHECK_H

#include "config.h"

/* The probe window, longer than an ADD's (nothing waits on it). */
#define RN_PRECHECK_PROBE_MS	200
#define RN_PRECHECK_PROBES	3

/* At start: a table the last run left is trusted only within its max age
 * (the plugin checks each entry's age itself), so the first tick re-probes
 * what is half-aged or more. */
void rn_ipam_precheck_init(const struct rn_config *c);
/* Call at every wake-up of the main loop: it works only when something is
 * due, and returns in how many ms the next thing is (to wake up for). */
long long rn_ipam_precheck_tick(const struct rn_config *c);

#endif
