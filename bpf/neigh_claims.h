/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What a registered pod may claim in neighbour resolution: ARP and IPv6
 * neighbour discovery teach the peers which MAC holds an address, so a pod
 * announcing another pod's address (gratuitous ARP, unsolicited NA) or
 * another MAC could steal its traffic. */
#ifndef RDMANET_BPF_NEIGH_CLAIMS_H
#define RDMANET_BPF_NEIGH_CLAIMS_H

#include "parse.h"
#include "ll_dev_id.h"
#include <rdmanet/pod.h>
#include "../maps/pod_info.h"

#define RN_ND_RS 133
#define RN_ND_NS 135
#define RN_ND_NA 136
#define RN_ND_OPT_SLLA 1
#define RN_ND_OPT_TLLA 2
/* options walked in one NDP message before giving up (rn_ndp_check) */
#define RN_ND_MAX_OPTS 3

/* Two loads a side, not six (unaligned loads from the packet, as
 * pod_lookup.h's keys do) */
static __always_inline int rn_mac_is_pod(const struct rn_pod *pod, const __u8 *mac)
{
	return *(const __u32 *)mac == *(const __u32 *)pod->mac &&
	       *(const __u16 *)(mac + 4) == *(const __u16 *)(pod->mac + 4);
}

/* Whether a (4 x 32-bit) IPv6 address is the pod's own link-local one: the
 * kernel's default for a new interface in a new netns (addr_gen_mode
 * eui64), fe80::/64 with the interface identifier addrconf_ifid_eui48
 * makes of the pod's MAC and its interface's dev_id (ll_dev_id.h): EUI-64
 * (RFC 4291, appendix A) for dev_id 0, the dev_id in place of ff:fe and
 * the universal/local bit as it is otherwise (ipvlan children, which share
 * the master's MAC). A link-local address is not registered, and any other
 * one may be the gateway's or a sibling's: routers are reached by
 * link-local address, so a pod announcing the router's would sit between
 * its siblings and their default route. With RN_LL_DEV_ID_ANY (the
 * master's programs) an IP-keyed pod's address may have any two bytes
 * there, a MAC-keyed pod's must be EUI-64. Pods configured for
 * stable-privacy or random link-local addresses are refused their
 * link-local claims. */
static __always_inline int rn_ll_is_pod(const struct rn_pod *pod, const __u32 *a, __u32 dev_id)
{
	const __u8 *iid = (const __u8 *)&a[2];

	if (dev_id == RN_LL_DEV_ID_ANY && !(pod->flags & RN_POD_F_IP_KEYED))
		dev_id = 0;
	if (a[0] != bpf_htonl(0xfe800000) || a[1] != 0)
		return 0;
	if (iid[0] != (dev_id ? pod->mac[0] : pod->mac[0] ^ 0x02) || iid[1] != pod->mac[1] ||
	    iid[2] != pod->mac[2] || iid[5] != pod->mac[3] || iid[6] != pod->mac[4] ||
	    iid[7] != pod->mac[5])
		return 0;
	if (!dev_id)
		return iid[3] == 0xff && iid[4] == 0xfe;
	return dev_id == RN_LL_DEV_ID_ANY ||
	       (iid[3] == (__u8)(dev_id >> 8) && iid[4] == (__u8)dev_id && dev_id < 0x10000);
}

/* An ARP packet a pod sends may claim only what the pod holds: sender
 * hardware address its own MAC, sender protocol address one of its IPv4
 * addresses, or 0.0.0.0 (an RFC 5227 probe, what the kernel sends before
 * using an address). Gratuitous ARP for its own address passes. ARP that is
 * not IPv4 over Ethernet claims no IPv4 address and passes; so does a
 * truncated one (the peer's stack discards it). */
static __always_inline int rn_arp_owned(const struct rn_pod *pod, __u8 *a, void *data_end)
{
	__u32 spa;

	if ((void *)(a + 28) > data_end)
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

/* What rn_neigh_claims finds in a pod's ARP or NDP packet. */
enum rn_claim_verdict {
	RN_CLAIM_OK = 0,
	RN_CLAIM_ARP,		/* ARP sender not the pod's MAC or address */
	RN_CLAIM_ND,		/* NDP claims an address or a MAC the pod does not hold */
	RN_CLAIM_ND_UNFINISHED,	/* NDP options beyond those walked, or not in the linear data */
};

/* IPv6 neighbour discovery a pod sends: a neighbour advertisement's target
 * must be one of the pod's IPv6 addresses or its own link-local address
 * (rn_ll_is_pod: the kernel answers for it, and it is not registered); source and
 * target link-layer options of RS, NS and NA must name the pod's MAC. NS
 * targets are questions, not claims; DAD (an NS from ::, no option) passes.
 * l4_len is the ICMPv6 length the IPv6 header gives; dev_id as
 * rn_ll_is_pod takes it. */
static __always_inline int rn_ndp_check(const struct rn_pod *pod, __u8 *icmp, __u32 l4_len,
					void *data_end, __u32 dev_id)
{
	__u8 *opt;
	__u32 off, hdr;

	if ((void *)(icmp + 8) > data_end)
		return RN_CLAIM_ND_UNFINISHED;
	if (icmp[0] == RN_ND_RS) {
		hdr = 8;
	} else if (icmp[0] == RN_ND_NS || icmp[0] == RN_ND_NA) {
		hdr = 24;
	} else {
		return RN_CLAIM_OK;
	}
	if (icmp[0] == RN_ND_NA) {
		__u32 t[4];
		int ok = 0;

		if ((void *)(icmp + 24) > data_end)
			return RN_CLAIM_ND_UNFINISHED;
		__builtin_memcpy(t, icmp + 8, 16);
		if (rn_ll_is_pod(pod, t, dev_id))
			ok = 1;
#pragma unroll
		for (int i = 0; i < RN_POD_MAX_IPV6; i++) {
			const __u32 *b = (const __u32 *)pod->ipv6[i];

			if (i < pod->n_ipv6 && t[0] == b[0] && t[1] == b[1] && t[2] == b[2] &&
			    t[3] == b[3])
				ok = 1;
		}
		if (!ok)
			return RN_CLAIM_ND;
	}
	off = hdr;
#pragma unroll
	for (int i = 0; i < RN_ND_MAX_OPTS; i++) {
		if (off + 8 > l4_len)
			return RN_CLAIM_OK;
		if (off > 64)
			return RN_CLAIM_ND_UNFINISHED;
		opt = icmp + off;
		if ((void *)(opt + 8) > data_end)
			return RN_CLAIM_ND_UNFINISHED;
		/* a zero-length option makes the receiver discard the message */
		if (opt[1] == 0)
			return RN_CLAIM_OK;
		if ((opt[0] == RN_ND_OPT_SLLA || opt[0] == RN_ND_OPT_TLLA) && opt[1] == 1 &&
		    !rn_mac_is_pod(pod, opt + 2))
			return RN_CLAIM_ND;
		off += opt[1] * 8;
	}
	return off + 8 > l4_len ? RN_CLAIM_OK : RN_CLAIM_ND_UNFINISHED;
}

/* Header offsets past which rn_neigh_claims does not look: the tags, the IP
 * header and the extension headers the parser walks fit well inside. */
#define RN_CLAIM_MAX_OFF 1024

/* The claims of the ARP or ICMPv6 packet of the pod in slot, at arp_off or
 * icmp6_off in the skb's linear data (0: none). A global function: the
 * verifier checks it once, on its own, instead of once for every path the
 * parser can take to reach it (that multiplied tc ingress's verification
 * by five and the agent's start-up time with it). ARP and NDP are rare
 * frames; the call is not on the data path of anything else. */
__noinline int rn_neigh_claims(struct __sk_buff *skb, __u32 slot, __u32 arp_off,
			       __u32 icmp6_off, __u32 l4_len)
{
	void *data = (void *)(long)skb->data, *data_end = (void *)(long)skb->data_end;
	struct rn_pod *pod = bpf_map_lookup_elem(&rn_pod_info_v1, &slot);

	if (!pod)
		return RN_CLAIM_OK;
	if (arp_off) {
		if (arp_off > RN_CLAIM_MAX_OFF)
			return RN_CLAIM_OK;
		return rn_arp_owned(pod, data + arp_off, data_end) ? RN_CLAIM_OK : RN_CLAIM_ARP;
	}
	if (icmp6_off) {
		if (icmp6_off > RN_CLAIM_MAX_OFF)
			return RN_CLAIM_ND_UNFINISHED;
		return rn_ndp_check(pod, data + icmp6_off, l4_len, data_end, rn_ll_dev_id(skb));
	}
	return RN_CLAIM_OK;
}

/* rn_neigh_claims for a parsed frame. */
static __always_inline int rn_pkt_claims(struct __sk_buff *skb, __u32 slot,
					 const struct rn_pkt *p)
{
	if (p->arp)
		return rn_neigh_claims(skb, slot, p->l3_off, 0, 0);
	/* for ICMPv6, hdr_len is where its header starts */
	if (p->icmp6)
		return rn_neigh_claims(skb, slot, 0, p->hdr_len, p->l4_len);
	return RN_CLAIM_OK;
}

static __always_inline int rn_claim_is_violation(int verdict)
{
	return verdict == RN_CLAIM_ARP || verdict == RN_CLAIM_ND;
}

#endif
