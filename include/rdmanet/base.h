/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Fixed-width types for headers shared by BPF programs and userspace.
 * BPF objects get them from vmlinux.h, userspace from the uapi header. */
#ifndef RDMANET_BASE_H
#define RDMANET_BASE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#endif
