/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Telling this build's programs from another build's. Names stay the same
 * across builds; the kernel's program tag (a hash of the instructions with
 * map references left out) changes with the code. An attached program whose
 * tag differs from the one this build loads is an older (or newer) build's,
 * and gets replaced in place (attach_tc.c, attach_xdp.c). */
#ifndef RDMANET_PROG_TAG_H
#define RDMANET_PROG_TAG_H

#include <stdbool.h>
#include <linux/bpf.h>

struct rn_prog_tag {
	__u8 b[BPF_TAG_SIZE];
};

/* The tag of a loaded program, by fd or by id. 0 or a negative errno. */
int rn_prog_tag_of_fd(int fd, struct rn_prog_tag *tag);
int rn_prog_tag_of_id(__u32 id, struct rn_prog_tag *tag);
bool rn_prog_tag_eq(const struct rn_prog_tag *a, const struct rn_prog_tag *b);
/* hex, for logs: buf holds at least 2 * BPF_TAG_SIZE + 1 */
const char *rn_prog_tag_str(const struct rn_prog_tag *tag, char *buf);

/* This build's tags, learnt when a program is first loaded for a
 * (kind, master slot) and kept for the life of the process, so a restart
 * of the same build loads each program once and a tick loads nothing. */
enum rn_prog_kind { RN_PROG_TC_EGRESS, RN_PROG_TC_INGRESS, RN_PROG_XDP_RX, RN_PROG_KINDS };
bool rn_build_tag_get(enum rn_prog_kind kind, __u32 slot, struct rn_prog_tag *tag);
void rn_build_tag_put(enum rn_prog_kind kind, __u32 slot, const struct rn_prog_tag *tag);

#endif
