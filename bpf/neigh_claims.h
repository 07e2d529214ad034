/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a registered pod may claim in neighbour resolution: ARP and IPv6
 * neighbour discovery teach the peers which MAC holds an address, so a pod
 * announcing another pod's address (gratuitous ARP, unsolicited NA) or
 * another MAC could steal its traffic. Each returns 1 if the packet claims
 * nothing the pod does not hold. */
#ifndef RDMANET_BPF_NEIGH_CLAIMS_H
#define RDMANET_BPF_NEIGH_CLAIMS_H

#include "parse.h"
#include <rdmanet/pod.h>

#define RN_ND_RS 133
#define RN_ND_NS 135
#define RN_ND_NA 136
#define RN_ND_OPT_SLLA 1
#define RN_ND_OPT_TLLA 2
/* options walked in one NDP message before giving up (rn_ndp_check) */
#define RN_ND_MAX_OPTS 3

static __always_inline int rn_mac_is_pod(const struct rn_pod *pod, const __u8 *mac)
{
#pragma unroll
	for (int i = 0; i < 6; i++)
		if (mac[i] != pod->mac[i])
			return 0;
	return 1;
}

/* An ARP packet a pod sends may claim only what the pod holds: sender
 * hardware address its own MAC, sender protocol address one of its IPv4
 * addresses, or 0.0.0.0 (an RFC 5227 probe, what the kernel sends before
 * using an address). Gratuitous ARP for its own address passes. ARP that is
 * not IPv4 over Ethernet claims no IPv4 address and passes; so does a
 * truncated one (the peer's stack discards it). */
static __always_inline int rn_arp_owned(const struct rn_pod *pod, const struct rn_pkt *p,
					void *data_end)
{
	__u8 *a = p->arp;
	__u32 spa;

	if (!a || (void *)(a + 28) > data_end)
		return 1;
	if (a[0] != 0 || a[1] != 1 || a[2] != 0x08 || a[3] != 0 || a[4] != 6 || a[5] != 4)
		return 1;
	if (!rn_mac_is_pod(pod, a + 8))
		return 0;
	__builtin_memcpy(&spa, a + 14, 4);
	if (spa == 0)
		return 1;
#pragma unroll
	for (int i = 0; i < RN_POD_MAX_IPV4; i++)
		if (i < pod->n_ipv4 && pod->ipv4[i] == spa)
			return 1;
	return 0;
}

/* What rn_ndp_check finds in an NDP message. */
enum rn_nd_verdict {
	RN_ND_OK = 0,
	RN_ND_CLAIM,		/* claims an address or a MAC the pod does not hold */
	RN_ND_UNFINISHED,	/* options beyond those walked, or not in the linear data */
};

/* IPv6 neighbour discovery a pod sends: a neighbour advertisement's target
 * must be one of the pod's IPv6 addresses or link-local (the kernel answers
 * for its own link-local address, which is not registered); source and
 * target link-layer options of RS, NS and NA must name the pod's MAC. NS
 * targets are questions, not claims; DAD (an NS from ::, no option) passes.
 * The master's programs pass what is unfinished (rn_ndp_owned); the per-pod
 * program, which must not let through what it could not read, drops it. */
static __always_inline int rn_ndp_check(const struct rn_pod *pod, const struct rn_pkt *p,
					void *data_end)
{
	__u8 *icmp = p->icmp6, *opt;
	__u32 off, hdr;

	if (!icmp)
		return RN_ND_OK;
	if ((void *)(icmp + 8) > data_end)
		return RN_ND_UNFINISHED;
	if (icmp[0] == RN_ND_RS) {
		hdr = 8;
	} else if (icmp[0] == RN_ND_NS || icmp[0] == RN_ND_NA) {
		hdr = 24;
	} else {
		return RN_ND_OK;
	}
	if (icmp[0] == RN_ND_NA) {
		__u32 t[4];
		int ok = 0;

		if ((void *)(icmp + 24) > data_end)
			return RN_ND_UNFINISHED;
		__builtin_memcpy(t, icmp + 8, 16);
		if ((t[0] & bpf_htonl(0xffc00000)) == bpf_htonl(0xfe800000))
			ok = 1;
#pragma unroll
		for (int i = 0; i < RN_POD_MAX_IPV6; i++) {
			const __u32 *b = (const __u32 *)pod->ipv6[i];

			if (i < pod->n_ipv6 && t[0] == b[0] && t[1] == b[1] && t[2] == b[2] &&
			    t[3] == b[3])
				ok = 1;
		}
		if (!ok)
			return RN_ND_CLAIM;
	}
	off = hdr;
#pragma unroll
	for (int i = 0; i < RN_ND_MAX_OPTS; i++) {
		if (off + 8 > p->l4_len)
			return RN_ND_OK;
		if (off > 64)
			return RN_ND_UNFINISHED;
		opt = icmp + off;
		if ((void *)(opt + 8) > data_end)
			return RN_ND_UNFINISHED;
		/* a zero-length option makes the receiver discard the message */
		if (opt[1] == 0)
			return RN_ND_OK;
		if ((opt[0] == RN_ND_OPT_SLLA || opt[0] == RN_ND_OPT_TLLA) && opt[1] == 1 &&
		    !rn_mac_is_pod(pod, opt + 2))
			return RN_ND_CLAIM;
		off += opt[1] * 8;
	}
	return off + 8 > p->l4_len ? RN_ND_OK : RN_ND_UNFINISHED;
}

/* 1 if the packet claims nothing the pod does not hold (what the master's
 * programs cannot finish passes). */
static __always_inline int rn_ndp_owned(const struct rn_pod *pod, const struct rn_pkt *p,
					void *data_end)
{
	return rn_ndp_check(pod, p, data_end) != RN_ND_CLAIM;
}

#endif
