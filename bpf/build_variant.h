/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The upgrade test needs "the next version" of the programs: the Makefile
 * builds a second agent with BPF_VARIANT=N, whose programs carry one more
 * instruction (so another kernel tag) and behave the same. Empty in the
 * real build. */
#ifndef RDMANET_BPF_BUILD_VARIANT_H
#define RDMANET_BPF_BUILD_VARIANT_H

#ifdef RN_BUILD_VARIANT
#define RN_VARIANT_MARK() asm volatile("r0 = %[v]" : : [v] "i"(RN_BUILD_VARIANT) : "r0")
#else
#define RN_VARIANT_MARK() do { } while (0)
#endif

#endif
