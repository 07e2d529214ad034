// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* XDP on a RoCE master: per-pod rx accounting by destination MAC (or IP for
 * ipvlan pods), ECN-CE counting on RoCE, malformed and unknown frames per
 * master. Always XDP_PASS: this program observes, it never decides. */
#include "build_variant.h"
#include "parse.h"
#include "count.h"
#include "master_state.h"
#include "pod_rx.h"
#include <xdp/xdp_helpers.h>

/* Run after other XDP programs in the libxdp dispatcher (they may drop or
 * redirect; what they drop never reached the pod), and let the chain go on. */
struct {
	__uint(priority, 90);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(rn_xdp_rx);

/* This instance's generation (struct rn_master.xdp_gen): it counts only
 * while the master names it, or names none. */
const volatile __u8 rn_xdp_gen = 0;

SEC("xdp.frags")
int rn_xdp_rx(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	__u32 mslot = rn_master_slot;
	struct rn_master *m = bpf_map_lookup_elem(&rn_masters_v1, &mslot);
	struct rn_pkt p;
	__u32 len, segs;
	int cls;

	RN_VARIANT_MARK();

	if (!m || (m->xdp_gen && m->xdp_gen != rn_xdp_gen))
		return XDP_PASS;
	len = data_end - data;
	rn_pkt_in_memory(&p);
	cls = rn_parse(&p, data, data_end, len);
	/* IP says more than the linear data holds: truncated, or a multi-buffer
	 * frame whose rest is in fragments. Asking is not free (~10 ns), so
	 * only here. */
	if (cls == -RN_MALFORMED_IPV4 || cls == -RN_MALFORMED_IPV6) {
		__u32 whole = bpf_xdp_get_buff_len(ctx);

		if (whole > len) {
			len = whole;
			cls = rn_parse(&p, data, data_end, len);
		}
	}
	if (cls < 0) {
		rn_master_malformed(mslot, cls);
		return XDP_PASS;
	}
	segs = rn_xdp_segments(&p, len, m->mtu);
	rn_pod_rx(&p, data_end, cls, m, 1, mslot, segs, rn_seg_bytes(&p, len, segs));
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
