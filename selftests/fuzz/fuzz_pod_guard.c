// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Fuzzes the per-pod program's two ways through a frame, its headers
 * compiled for the host: the common-frame shortcut (rn_pod_passes_fast)
 * must pass nothing the general path (rn_skb_parse, then rn_pod_refuses)
 * refuses. On the host, unlike BPF_PROG_TEST_RUN (test_pod_egress's
 * differential), the skb can be non-linear: its length longer than its
 * linear data, which the general path pulls (bpf_skb_pull_data, here a
 * stand-in that extends the linear part) and the shortcut never does.
 *
 * Input: byte 0 is the pod (its count of IPv4 and IPv6 addresses, whether
 * it is IP-keyed), bytes 1-2 how much of the frame is linear, byte 3 how
 * much longer skb->len is than the frame; the rest is the frame. The seeds
 * are own frames (selftests/fuzz/corpus/fuzz_pod_guard).
 *
 * vmlinux.h and libc's headers cannot both be included: the few libc
 * functions used are declared here. */
/* packet headers and UAPI contexts: no CO-RE on the host (as for the BPF
 * build, Makefile BPF_CFLAGS) */
#define BPF_NO_PRESERVE_ACCESS_INDEX
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

void *mmap(void *addr, unsigned long len, int prot, int flags, int fd, long off);
void *memcpy(void *dst, const void *src, unsigned long n);
void abort(void);
int dprintf(int fd, const char *fmt, ...);

#define FZ_PROT_RW 3
#define FZ_MAP_PRIVATE_ANON_32BIT (0x02 | 0x20 | 0x40)
#define FZ_MAX_FRAME 4096

static void *fz_pod;
static __u32 fz_frame_len;

static void *fz_map_lookup(void)
{
	return fz_pod;
}

/* bpf_skb_pull_data: the linear part grows to len, at most the frame */
static long fz_pull(struct __sk_buff *skb, __u32 len)
{
	if (len > fz_frame_len)
		len = fz_frame_len;
	if (skb->data_end - skb->data < len)
		skb->data_end = skb->data + len;
	return 0;
}

/* the helpers the headers call, as functions of the host (bpf_helpers.h
 * declares them as pointers to helper numbers: macros win over those) */
#define bpf_map_lookup_elem(map, key) ((void)(map), (void)(key), fz_map_lookup())
#define bpf_skb_pull_data(skb, len) fz_pull((skb), (len))

#include "bpf/pod_guard.h"
#include "bpf/skb_data.h"

static const __u8 fz_pod_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };

static int fz_general(struct __sk_buff *skb, const struct rn_pod *pod)
{
	struct rn_pkt p;
	void *data, *data_end;
	int cls = rn_skb_parse(skb, &p, &data, &data_end, skb->len);

	return rn_pod_refuses(skb, 0, pod, &p, cls, data, data_end);
}

int LLVMFuzzerTestOneInput(const __u8 *in, unsigned long size)
{
	/* __sk_buff's data and data_end are 32-bit: the frame lives below 4 GiB */
	static __u8 *frame;
	static struct rn_pod pod;
	struct __sk_buff fast = { 0 }, general;
	__u32 linear;
	int verdict;

	if (!frame) {
		frame = mmap(0, FZ_MAX_FRAME, FZ_PROT_RW, FZ_MAP_PRIVATE_ANON_32BIT, -1, 0);
		if (frame == (void *)-1)
			abort();
	}
	if (size < 4 || size - 4 > FZ_MAX_FRAME)
		return 0;
	memcpy(pod.mac, fz_pod_mac, 6);
	for (int i = 0; i < RN_POD_MAX_IPV4; i++) {
		pod.ipv4[i] = bpf_htonl(0x0a000002 + i);	/* 10.0.0.2 .. */
		pod.ipv6[i][0] = 0xfd;				/* fd00::2 .. */
		pod.ipv6[i][15] = (__u8)(2 + i);
	}
	pod.n_ipv4 = in[0] % (RN_POD_MAX_IPV4 + 1);
	pod.n_ipv6 = (in[0] >> 3) % (RN_POD_MAX_IPV6 + 1);
	pod.flags = in[0] & 0x80 ? RN_POD_F_IP_KEYED : 0;
	fz_pod = &pod;
	fz_frame_len = (__u32)(size - 4);
	memcpy(frame, in + 4, fz_frame_len);
	linear = ((__u32)in[1] << 8 | in[2]) % (fz_frame_len + 1);
	fast.data = (__u32)(unsigned long)frame;
	fast.data_end = fast.data + linear;
	fast.len = fz_frame_len + in[3];
	general = fast;
	if (!rn_pod_passes_fast(&fast, &pod))
		return 0;
	verdict = fz_general(&general, &pod);
	if (verdict != RN_POD_PASS) {
		dprintf(2, "fuzz_pod_guard: the shortcut passes a frame the general path "
			"refuses (reason %d; %u of %u bytes linear, skb->len %u)\n", verdict,
			linear, fz_frame_len, fast.len);
		abort();
	}
	return 0;
}
