/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The per-pod program (bpf/pod_egress.bpf.c, include/rdmanet/pod_guard.h).
 * rdmanetd loads it once and pins it (RN_POD_PROG_PIN under the pin dir);
 * the CNI plugin attaches the pinned program to each pod's own interface
 * at ADD, in the pod's netns, and takes it off at DEL, with bpf(2) and
 * netlink only (it does not link libbpf: map_syscall.h). A tcx link is
 * pinned as links/pod_<slot>, so it outlives the plugin; an agent of a
 * newer build swaps its program in place (bpf link update), so pods
 * attached before an upgrade run the new code. A clsact filter (tc_mode
 * auto and clsact: no RCU grace period at ADD and DEL, which tcx takes
 * under the RTNL) carries rn_pod_egress_clsact instead, which tail-calls
 * the program the agent put in rn_pod_jmp_v1: those pods move with that
 * entry. */
#ifndef RDMANET_POD_PROG_H
#define RDMANET_POD_PROG_H

#include <stdbool.h>
#include <rdmanet/pod_guard.h>

#include "config.h"
#include "error.h"

#define RN_POD_PROG_NAME "rn_pod_egress"
#define RN_POD_PROG_PIN "rn_pod_egress"
#define RN_POD_DEV_MAP "rn_pod_dev_v1"
#define RN_POD_INFO_MAP "rn_pod_info_v1"
/* slot -> index of its rn_pod_dev_v1 entry (maps/pod_devat.h) */
#define RN_POD_DEVAT_MAP "rn_pod_devat_v1"
#define RN_POD_REASONS_MAP "rn_pod_rsn_v1"
/* what a clsact filter carries: a tail call to the program in
 * rn_pod_jmp_v1 (maps/pod_jmp.h), which each agent points at its build's */
#define RN_POD_CLSACT_PROG_PIN "rn_pod_egress_clsact"
#define RN_POD_JMP_MAP "rn_pod_jmp_v1"

/* rdmanetd: loads this build's program (creating its maps), pins it unless
 * the pinned one is this build's, moves every pinned pod link to it and
 * points rn_pod_jmp_v1 (the clsact pods) at it. Returns the number of pod
 * links moved, or a negative errno. */
int rn_pod_prog_install(const char *pin_dir, unsigned int max_pods, struct rn_error *e);
/* Whether an agent has pinned a per-pod program under pin_dir. */
bool rn_pod_prog_is_pinned(const char *pin_dir);
/* --uninstall: detaches and unpins every pod's tcx link, unpins the
 * program (clsact filters keep it until their pods go). */
void rn_pod_prog_uninstall(const char *pin_dir);

/* Where the program got attached. */
enum rn_pod_attach { RN_POD_ATTACH_NONE = 0, RN_POD_ATTACH_TCX, RN_POD_ATTACH_CLSACT };

struct nl_sock;
/* The CNI plugin, with the calling thread in the pod's netns (the tcx
 * attach takes the ifindex there) and nl a netlink socket in it: makes
 * (netns cookie, ifindex) name the pod in `slot`, attaches the pinned
 * program to the interface's egress (a clsact filter unless mode says
 * tcx; tcx where clsact is refused under auto), and marks the pod guarded.
 * Returns 0, 1 if rdmanetd has pinned no program (e says so: nothing
 * done), or a negative errno with nothing left behind. */
int rn_pod_prog_attach(const char *pin_dir, struct nl_sock *nl, int ifindex, __u32 slot,
		       enum rn_tc_mode mode, enum rn_pod_attach *how, struct rn_error *e);
/* Takes the pod in `slot` off: its tcx link (if pinned) and its (netns,
 * ifindex) entries. Idempotent; a clsact filter goes with the interface. */
int rn_pod_prog_detach(const char *pin_dir, __u32 slot, struct rn_error *e);

/* The netns cookie of the socket's netns, or 0 (kernel older than 5.14). */
__u64 rn_netns_cookie_of(int sock_fd);

#endif
