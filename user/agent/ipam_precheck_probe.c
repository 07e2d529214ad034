// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The CNI plugin's ARP and NDP probes (user/cni/probe.h), built into the
 * agent as well: the pre-checks (ipam_precheck.h) must find a conflict the
 * way an ADD's own check would, so they run the same code. */
#include "../cni/probe_arp.c"
#include "../cni/probe_ndp.c"
#include "../cni/probe_run.c"
