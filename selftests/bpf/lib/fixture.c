// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "fixture.h"

const uint8_t fx_pod_mac[6] = { 2, 0, 0, 0, 0, 0x0a };
const uint8_t fx_pod2_mac[6] = { 2, 0, 0, 0, 0, 0x0b };
const uint8_t fx_host_mac[6] = { 2, 0, 0, 0, 0, 0x01 };
const uint8_t fx_peer_mac[6] = { 2, 0, 0, 0, 0, 0xff };

int fx_pods(struct dp_env *env)
{
	const char *const ips1[] = { "10.0.0.2", "fd00::2", NULL };
	const char *const ips2[] = { "10.0.0.3", NULL };

	const char *const ips3[] = { FX_POD3_IP, NULL };

	return dp_env_pod(env, FX_POD, FX_POD_MAC, ips1, -1) ||
	       dp_env_pod(env, FX_POD2, FX_POD2_MAC, ips2, FX_POD2_DSCP) ||
	       dp_env_pod_ip_keyed(env, FX_POD3, ips3);
}

static const struct rn_traffic *traffic_of(const struct dp_snapshot *s, enum fx_who who,
					   enum rn_dir dir, int cls)
{
	if (who == FX_WHO_POD)
		return &s->pod[FX_POD].traffic[dir][cls];
	if (who == FX_WHO_POD2)
		return &s->pod[FX_POD2].traffic[dir][cls];
	if (who == FX_WHO_POD3)
		return &s->pod[FX_POD3].traffic[dir][cls];
	return &s->master.unknown[dir][cls];
}

static __u64 total_packets(const struct dp_snapshot *s)
{
	__u64 n = 0;

	for (int d = 0; d < RN_DIR_MAX; d++)
		for (int c = 0; c < RN_CLASS_MAX; c++)
			n += s->pod[FX_POD].traffic[d][c].packets +
			     s->pod[FX_POD2].traffic[d][c].packets +
			     s->pod[FX_POD3].traffic[d][c].packets +
			     s->master.unknown[d][c].packets;
	return n;
}

static void check_bytes(struct check *c, const struct fx *fx, const uint8_t *in,
			const uint8_t *out, __u32 len, const struct frame_layout *lo)
{
	int fam = fx->f.family;

	if (fx->tos < 0) {
		CHECK_TRUE(c, "frame modified although it should pass untouched",
			   !memcmp(in, out, len));
		return;
	}
	CHECK_EQ(c, "TOS/traffic class out", frame_tos(out, lo, fam), fx->tos);
	if (fam == 4) {
		const uint8_t *ip = out + lo->l3;
		uint16_t csum = (uint16_t)(ip[10] << 8 | ip[11]);

		CHECK_EQ(c, "IPv4 header checksum", csum, frame_ipv4_csum(ip, 20));
		CHECK_TRUE(c, "bytes other than TOS and checksum changed",
			   !memcmp(in, out, lo->l3 + 1) &&
			   !memcmp(in + lo->l3 + 2, out + lo->l3 + 2, 8) &&
			   !memcmp(in + lo->l3 + 12, out + lo->l3 + 12, len - lo->l3 - 12));
	} else {
		const uint8_t *a = in + lo->l3, *b = out + lo->l3;

		CHECK_EQ(c, "IPv6 version", b[0] >> 4, 6);
		CHECK_EQ(c, "IPv6 flow label", (b[1] & 0x0f) << 16 | b[2] << 8 | b[3],
			 (a[1] & 0x0f) << 16 | a[2] << 8 | a[3]);
		CHECK_TRUE(c, "bytes other than the traffic class changed",
			   !memcmp(in, out, lo->l3) && !memcmp(a + 2, b + 2, len - lo->l3 - 2));
	}
}

void fx_run(struct dp_env *env, const struct fx *fx, enum rn_dir dir, int is_xdp,
	    struct tap *tap)
{
	static uint8_t in[65536], out[65536];
	struct frame_layout lo;
	struct dp_snapshot before, after;
	struct check c = { 0 };
	__u32 len, retval = 0, segs = fx->segs ? fx->segs : 1;
	enum rn_ecn_mode ecn = fx->ecn == FX_ECN_OFF ? RN_ECN_OFF :
			       fx->ecn == FX_ECN_ECT1 ? RN_ECN_ECT1 : RN_ECN_ECT0;
	int err;

	len = (__u32)frame_build(&fx->f, in, sizeof(in), &lo);
	if (!len) {
		CHECK_TRUE(&c, "fixture frame does not fit", 0);
		tap_report(tap, fx->name, &c);
		return;
	}
	if (fx->patch_len)
		memcpy(in + lo.l3 + fx->patch_off, fx->patch, (size_t)fx->patch_len);
	if (fx->cut)
		len = (__u32)fx->cut;
	memcpy(out, in, len);

	dp_env_master(env, fx->policy, ecn, 26, 48, fx->mtu ? fx->mtu : 1500, fx->xdp);
	dp_snapshot(env, &before);
	err = is_xdp ? dp_run_xdp(env, out, &len, &retval)
		     : dp_run_tc(env, out, &len, fx->gso, fx->gso ? 1400 : 0, &retval);
	dp_snapshot(env, &after);
	if (err == -EINVAL && fx->cut && !is_xdp) {
		/* newer kernels refuse skb test runs whose IP header is cut
		 * short; the XDP fixtures cover those cuts */
		tap_skip_one(tap, fx->name, "kernel refuses tc test runs with a cut IP header");
		return;
	}
	if (err) {
		CHECK_EQ(&c, "BPF_PROG_TEST_RUN errno", -err, 0);
		tap_report(tap, fx->name, &c);
		return;
	}
	CHECK_EQ(&c, "verdict", retval, (__u32)fx->verdict);
	CHECK_EQ(&c, "output length", len, fx->cut ? fx->cut : lo.len);
	check_bytes(&c, fx, in, out, len, &lo);

	if (fx->malformed) {
		CHECK_EQ(&c, "malformed counter delta",
			 after.master.malformed[fx->malformed] - before.master.malformed[fx->malformed], 1);
		CHECK_EQ(&c, "no traffic counted for a malformed frame",
			 total_packets(&after) - total_packets(&before), 0);
	} else if (fx->who) {
		enum rn_dir d = fx->rx ? RN_DIR_RX : dir;
		const struct rn_traffic *b = traffic_of(&before, fx->who, d, fx->cls);
		const struct rn_traffic *a = traffic_of(&after, fx->who, d, fx->cls);
		int counted = !fx->drop;

		CHECK_EQ(&c, "packets delta", a->packets - b->packets, counted ? segs : 0);
		CHECK_EQ(&c, "bytes delta", a->bytes - b->bytes,
			 counted ? len + (__u64)(segs - 1) * lo.end_l4 : 0);
		CHECK_EQ(&c, "packets counted anywhere",
			 total_packets(&after) - total_packets(&before),
			 counted ? segs * (fx->also_rx ? 2 : 1) : 0);
		if (fx->also_rx) {
			const struct rn_traffic *rb = traffic_of(&before, fx->also_rx, RN_DIR_RX, fx->cls);
			const struct rn_traffic *ra = traffic_of(&after, fx->also_rx, RN_DIR_RX, fx->cls);

			CHECK_EQ(&c, "receiver rx packets delta", ra->packets - rb->packets, segs);
		}
	} else {
		CHECK_EQ(&c, "nothing counted", total_packets(&after) - total_packets(&before), 0);
	}

	{
		int p = fx->who == FX_WHO_POD2 ? FX_POD2 : fx->who == FX_WHO_POD3 ? FX_POD3 : FX_POD;
		int pod = fx->who == FX_WHO_POD || fx->who == FX_WHO_POD2 || fx->who == FX_WHO_POD3;
		__u64 marked = pod ? after.pod[p].tx_marked - before.pod[p].tx_marked
				   : after.master.tx_marked - before.master.tx_marked;
		__u64 ce = pod ? after.pod[p].rx_ecn_ce - before.pod[p].rx_ecn_ce
			       : after.master.rx_ecn_ce - before.master.rx_ecn_ce;

		CHECK_EQ(&c, "marked delta", marked, fx->marked ? segs : 0);
		CHECK_EQ(&c, "ECN-CE delta", ce, fx->ce ? segs : 0);
		CHECK_EQ(&c, "policy violations delta",
			 after.pod[p].violations[0] - before.pod[p].violations[0],
			 fx->violation ? segs : 0);
		CHECK_EQ(&c, "drops delta", after.pod[p].drops[0] - before.pod[p].drops[0],
			 fx->drop ? segs : 0);
	}
	tap_report(tap, fx->name, &c);
}
