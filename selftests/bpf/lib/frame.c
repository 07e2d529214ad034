// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <arpa/inet.h>
#include <string.h>

#include "frame.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t frame_ipv4_csum(const uint8_t *iph, size_t ihl)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < ihl; i += 2)
		if (i != 10)
			sum += (uint32_t)(iph[i] << 8 | iph[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint8_t frame_tos(const uint8_t *buf, const struct frame_layout *lo, int family)
{
	const uint8_t *ip = buf + lo->l3;

	return family == 4 ? ip[1] : (uint8_t)((ip[0] & 0x0f) << 4 | ip[1] >> 4);
}

static size_t l4_header_len(enum frame_l4 l4)
{
	switch (l4) {
	case FR_TCP: return 20;
	case FR_UDP: return 8;
	case FR_ROCE:
	case FR_CNP: return 8 + 12;
	case FR_ICMP: return 8;
	default: return 0;
	}
}

static uint8_t l4_proto(enum frame_l4 l4, int family)
{
	switch (l4) {
	case FR_TCP: return 6;
	case FR_UDP:
	case FR_ROCE:
	case FR_CNP: return 17;
	case FR_ICMP: return family == 4 ? 1 : 58;
	default: return 59;	/* IPv6 no-next-header; IPv4: unassigned-ish */
	}
}

size_t frame_build(const struct frame_spec *s, uint8_t *buf, size_t size, struct frame_layout *lo)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	size_t off = 0, l4len = l4_header_len(s->l4), iplen;
	uint8_t *ip, *l4;

	memset(lo, 0, sizeof(*lo));
	if (size < 64 + l4len + s->payload + 40)
		return 0;
	memset(buf, 0, size);
	memcpy(buf, s->l4 == FR_ARP ? bcast : s->dst_mac, 6);
	memcpy(buf + 6, s->src_mac, 6);
	off = 12;
	if (s->outer_vlan) {
		put16(buf + off, 0x88a8);
		put16(buf + off + 2, s->outer_vlan);
		off += 4;
	}
	if (s->vlan) {
		put16(buf + off, 0x8100);
		put16(buf + off + 2, s->vlan);
		off += 4;
	}
	if (s->l4 == FR_ARP) {
		put16(buf + off, 0x0806);
		off += 2;
		lo->l3 = off;
		put16(buf + off, 1);		/* Ethernet */
		put16(buf + off + 2, 0x0800);
		buf[off + 4] = 6;
		buf[off + 5] = 4;
		put16(buf + off + 6, 1);	/* request */
		memcpy(buf + off + 8, s->arp_sha ? s->arp_sha : s->src_mac, 6);
		inet_pton(AF_INET, s->saddr, buf + off + 14);
		inet_pton(AF_INET, s->daddr, buf + off + 24);
		lo->len = lo->end_l4 = off + 28;
		return lo->len;
	}
	put16(buf + off, s->family == 4 ? 0x0800 : 0x86dd);
	off += 2;
	lo->l3 = off;
	ip = buf + off;
	if (s->family == 4) {
		iplen = 20 + l4len + s->payload;
		ip[0] = 0x45;
		ip[1] = s->tos;
		put16(ip + 2, (uint16_t)iplen);
		put16(ip + 4, 0x1234);
		put16(ip + 6, s->frag_offset);
		ip[8] = 64;
		ip[9] = l4_proto(s->l4, 4);
		inet_pton(AF_INET, s->saddr, ip + 12);
		inet_pton(AF_INET, s->daddr, ip + 16);
		put16(ip + 10, frame_ipv4_csum(ip, 20));
		off += 20;
	} else {
		iplen = 40 + l4len + s->payload;
		ip[0] = (uint8_t)(0x60 | s->tos >> 4);
		ip[1] = (uint8_t)((s->tos & 0x0f) << 4 | ((s->flow_label >> 16) & 0x0f));
		put16(ip + 2, (uint16_t)s->flow_label);
		put16(ip + 4, (uint16_t)(l4len + s->payload));
		ip[6] = l4_proto(s->l4, 6);
		ip[7] = 64;
		inet_pton(AF_INET6, s->saddr, ip + 8);
		inet_pton(AF_INET6, s->daddr, ip + 24);
		off += 40;
	}
	lo->l4 = off;
	l4 = buf + off;
	switch (s->l4) {
	case FR_TCP:
		put16(l4, 40000);
		put16(l4 + 2, s->dport ? s->dport : 5201);
		l4[12] = (uint8_t)((s->tcp_doff ? s->tcp_doff : 5) << 4);
		l4[13] = 0x18;	/* PSH ACK */
		put16(l4 + 14, 512);
		break;
	case FR_UDP:
	case FR_ROCE:
	case FR_CNP:
		put16(l4, 49152);
		put16(l4 + 2, s->dport ? s->dport : s->l4 == FR_UDP ? 9999 : 4791);
		put16(l4 + 4, (uint16_t)(l4len + s->payload));
		if (s->l4 != FR_UDP) {
			lo->bth = off + 8;
			l4[8] = s->l4 == FR_CNP ? 0x81 : 0x0a;	/* CNP / RC RDMA WRITE ONLY */
			put16(l4 + 10, 0xffff);			/* P_Key */
			l4[15] = 0x11;				/* dest QP */
			l4[19] = 0x01;				/* PSN */
		}
		break;
	case FR_ICMP:
		l4[0] = s->family == 4 ? 8 : 128;	/* echo request */
		break;
	default:
		break;
	}
	off += l4len;
	lo->end_l4 = off;
	for (size_t i = 0; i < s->payload; i++)
		buf[off + i] = (uint8_t)i;
	if (s->l4 == FR_ICMP && s->family == 6 && s->icmp_type) {
		size_t opt = s->icmp_type == 133 ? 8 : 24;

		l4[0] = s->icmp_type;
		memset(l4 + 4, 0, opt - 4);
		if (s->nd_target)
			inet_pton(AF_INET6, s->nd_target, l4 + 8);
		if (s->nd_lla && opt + 8 <= l4len + s->payload) {
			l4[opt] = s->icmp_type == 136 ? 2 : 1;
			l4[opt + 1] = 1;
			memcpy(l4 + opt + 2, s->nd_lla, 6);
		}
	}
	lo->len = off + s->payload;
	return lo->len;
}
