/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The dev_id of the interface a frame leaves by, which the kernel puts in
 * that interface's own link-local address (addrconf_ifid_eui48): 0 for
 * most (EUI-64: ff:fe, universal/local bit flipped), each ipvlan child its
 * own (1..0xfffe in place of ff:fe, the bit as it is), so ipvlan siblings,
 * which share one MAC, differ only there. The per-pod program runs on the
 * pod's own interface and reads it (RN_LL_FROM_OWN_DEV, defined before
 * including: skb->dev->dev_id through bpf_cast_to_kern_ctx, CO-RE); the
 * master's programs see the master instead and cannot know it:
 * RN_LL_DEV_ID_ANY, whatever an IP-keyed pod's address has there. */
#ifndef RDMANET_BPF_LL_DEV_ID_H
#define RDMANET_BPF_LL_DEV_ID_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define RN_LL_DEV_ID_ANY 0x10000u
/* no device: matches no address */
#define RN_LL_DEV_ID_NONE 0x20000u

#ifdef RN_LL_FROM_OWN_DEV
extern void *bpf_cast_to_kern_ctx(void *obj) __ksym;

static __always_inline __u32 rn_ll_dev_id(struct __sk_buff *ctx)
{
	struct sk_buff *skb = bpf_cast_to_kern_ctx(ctx);
	struct net_device *dev = __builtin_preserve_access_index(skb->dev);

	if (!dev)
		return RN_LL_DEV_ID_NONE;
	return __builtin_preserve_access_index(dev->dev_id);
}
#else
static __always_inline __u32 rn_ll_dev_id(struct __sk_buff *ctx)
{
	(void)ctx;
	return RN_LL_DEV_ID_ANY;
}
#endif

#endif
