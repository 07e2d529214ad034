/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Slot 0: the per-pod program of the agent's build, for pods whose
 * program is a clsact filter. A filter holds the program it was given and
 * only the pod's netns can replace it, which the agent does not enter; so
 * the filter carries rn_pod_egress_clsact, which tail-calls the program
 * here, and an agent of another build swaps this entry as it moves the
 * pods' tcx links (pod_prog_install.c). The pin keeps the entry: the
 * kernel empties a program array once no fd or pin holds it. */
#ifndef RDMANET_MAP_POD_JMP_H
#define RDMANET_MAP_POD_JMP_H

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, 1);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} rn_pod_jmp_v1 SEC(".maps");

#endif
