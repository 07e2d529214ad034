#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench, the per-pod program on the CNI plugin's two-rail
# netns node, rdmanetd in enforce. "Without" is the same agent with its
# pinned rn_pod_egress renamed away, so the plugin attaches nothing (it
# says so and the master's programs police alone); blocks with and without
# alternate (ABAB) so drift in the machine's load hits both alike.
#  1. CNI ADD and DEL (checks off, macvlan, IPAM) with the per-pod program
#     against without, and against the reference macvlan + host-local in
#     the same rounds (target: ADD with the program <= 0.5 x the reference).
#  2. Same-node pod-to-pod TCP (iperf3, macvlan bridge on ra0): a pair of
#     pods attached with the program against a pair attached without, on
#     the same master, rounds interleaved (target: ratio >= 0.95). Each
#     round runs the unguarded pair twice: the second run against the first
#     (A/A, nothing differs) is the noise floor of the ratio on this
#     machine at this load; the senders' bytes per transmitted packet tell
#     whether GSO packets pass the program whole.
# The per-packet cost (BPF_PROG_TEST_RUN) is dp_prog_cost's pod_added_ns,
# in bench_datapath.sh. Knobs: BENCH_GUARD_BLOCKS (default 6) x
# BENCH_GUARD_CYCLES (default 25) ADD+DEL cycles per side,
# BENCH_GUARD_ROUNDS (default 16: with 8, single runs at about 10 or
# about 19 Gbit/s made one run's ratio 0.71 on a quiet machine) x BENCH_GUARD_SECONDS (default 3) iperf3
# runs per side. Writes $RN_BENCH_OUT/pod_guard.json.
set -u
RN_SRC=${RN_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RN_BUILD=${RN_BUILD:-$RN_SRC/build}
RN_BENCH_OUT=${RN_BENCH_OUT:-$RN_BUILD/bench-results}
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
RUNNER=$RN_BUILD/bench/cni_bench_run
BLOCKS=${BENCH_GUARD_BLOCKS:-6}
CYCLES=${BENCH_GUARD_CYCLES:-25}
ROUNDS=${BENCH_GUARD_ROUNDS:-16}
SECS=${BENCH_GUARD_SECONDS:-3}
# iperf3's client and server on fixed CPUs (BENCH_GUARD_PIN=CLIENT,SERVER;
# "none" leaves them to the scheduler): unpinned, a run lands near 10 or
# near 19 Gbit/s depending on whether the two share a core, and that
# placement, not the program, decided the ratio of a few rounds
PIN=${BENCH_GUARD_PIN:-0,$(( $(nproc) > 1 ? 1 : 0 ))}
PIN_CLI= PIN_SRV=
[ "$PIN" = none ] || IFS=, read -r PIN_CLI PIN_SRV <<<"$PIN"
REF=/usr/lib/cni
mkdir -p "$RN_BENCH_OUT"
# the machine's load at each end goes with the figures: on a shared 2-core
# machine the ratios against the reference in the same run are what compare
load0=$(cut -d' ' -f1-3 /proc/loadavg)

fail() { echo "bench_pod_guard: $*" >&2; exit 1; }
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.4f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
[ -x "$CNI_BIN" ] && [ -x "$RUNNER" ] || fail "build first (make)"
[ -x "$REF/macvlan" ] && [ -x "$REF/host-local" ] || fail "reference plugins missing"
cni_topo_up || fail "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" enforce
cni_agent_start "$CNI_CONFIG" || fail "rdmanetd did not start"
export RDMANET_CONFIG=$CNI_CONFIG
PROG=$CNI_PIN/rn_pod_egress
[ -e "$PROG" ] || fail "rdmanetd pinned no per-pod program (kernel older than 6.3, or no BTF?)"
# (bpffs refuses names with a dot)
guard_off() { mv "$PROG" "${PROG}_bench_off"; }
guard_on() { mv "${PROG}_bench_off" "$PROG"; }

cni_netconf "$CNI_TMP/rn0.json" 1.1.0 rail \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"]},
	  "ipConflictCheck": false, "gatewayCheck": false}'
jq -n --arg dir "$CNI_TMP/host-local" '{cniVersion: "1.0.0", name: "ref", type: "macvlan",
	master: "ra0", mode: "bridge",
	ipam: {type: "host-local", dataDir: $dir, ranges: [[{subnet: "10.85.0.0/22"}]]}}' \
	>"$CNI_TMP/ref.json"
ip netns add "$CNI_PFX-c0" && echo "$CNI_PFX-c0" >>"$CNI_TMP/pods.list"
ip -n "$CNI_PFX-c0" link set lo up

echo "-- CNI ADD/DEL with the per-pod program and without ($BLOCKS blocks x $CYCLES cycles each, ABAB)"
cycles() {	# the runner's JSON for one block: reference and rdmanet taking turns
	cni_in node "$RUNNER" --mode cycle --count "$CYCLES" --netns /run/netns/"$CNI_PFX-c" \
		--cni-path "$REF" --plugin "$REF/macvlan" --conf "$CNI_TMP/ref.json" --label ref \
		--plugin "$CNI_BIN" --conf "$CNI_TMP/rn0.json" --label rn 2>>"$CNI_TMP/bench.err"
}
for f in on off; do : >"$CNI_TMP/cyc.$f"; done
for b in $(seq "$BLOCKS"); do
	for side in $([ $((b % 2)) = 1 ] && echo on off || echo off on); do
		[ "$side" = off ] && guard_off
		cycles | jq -c . >>"$CNI_TMP/cyc.$side" || fail "cycles ($side)"
		[ "$side" = off ] && guard_on
	done
done
# medians over blocks of each block's median
col() { jq -r "$2" "$CNI_TMP/cyc.$1" | med; }
add_on=$(col on .rn.add.median_ms) add_off=$(col off .rn.add.median_ms)
del_on=$(col on .rn.del.median_ms) del_off=$(col off .rn.del.median_ms)
ref_add=$(cat "$CNI_TMP/cyc.on" "$CNI_TMP/cyc.off" | jq -r .ref.add.median_ms | med)
failed=$(cat "$CNI_TMP/cyc.on" "$CNI_TMP/cyc.off" | jq -s '[.[] | .rn.failed + .ref.failed] | add')
r() { echo "scale=3; $1 / $2" | bc; }
echo "   ADD: $add_on ms with, $add_off ms without (x $(r "$add_on" "$add_off")); reference ADD $ref_add ms -> with = $(r "$add_on" "$ref_add") x the reference (target <= 0.5)"
echo "   DEL: $del_on ms with, $del_off ms without (x $(r "$del_on" "$del_off")); failed calls: $failed"
guarded=$(grep -c "no per-pod program" "$CNI_TMP/bench.err")
echo "   ADDs that attached no program (the 'without' blocks): $guarded"

echo "-- same-node pod-to-pod TCP (iperf3 ${SECS}s x $ROUNDS rounds per pair, interleaved)"
pod() {	# pod NAME: ADD net1 on ra0; prints its IPv4 address
	local ns
	ns=$(cni_pod_up "$1") || return 1
	cni_run ADD "$CNI_TMP/rn0.json" "c-$1" net1 "$ns" || return 1
	jq -r '.ips[0].address | sub("/.*"; "")' "$CNI_OUT"
}
guarded_prog() { cni_in "$1" bpftool -j net show dev net1 | jq -e '[.[0].tc[]? | select(.name == "rn_pod_egress")] | length > 0' >/dev/null; }
A=$(pod ga) && B=$(pod gb) || fail "guarded pods"
guard_off
C=$(pod ua) && D=$(pod ub)
guard_on
[ -n "$C" ] && [ -n "$D" ] || fail "unguarded pods"
guarded_prog ga && guarded_prog gb || fail "the guarded pair carries no per-pod program"
! guarded_prog ua && ! guarded_prog ub || fail "the unguarded pair carries the per-pod program"
iperf() {	# iperf CLIENT SERVER SERVER_IP: bits per second of one run
	# a client that never connects must not leave the one-off server waiting
	cni_in "$2" timeout $((SECS + 15)) iperf3 -s -1 -B "$3" ${PIN_SRV:+-A "$PIN_SRV"} >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	cni_in "$1" timeout $((SECS + 10)) iperf3 -c "$3" -t "$SECS" ${PIN_CLI:+-A "$PIN_CLI"} -J 2>>"$CNI_TMP/iperf.err" |
		jq ".end.sum_received.bits_per_second // empty"
	wait $srv 2>/dev/null
}
iperf ga gb "$B" >/dev/null	# warm-up: ARP, caches
iperf ua ub "$D" >/dev/null
: >"$CNI_TMP/tp.on"; : >"$CNI_TMP/tp.off"; : >"$CNI_TMP/tp.aa"
# bytes per packet the senders' net1 transmitted (macvlan counts an skb
# once, GSO or not): GSO packets leave whole past the program if the
# guarded sender's average is as large as the unguarded one's
tx() { cni_in "$1" ip -s -j link show net1 | jq -r '.[0].stats64.tx | "\(.bytes) \(.packets)"'; }
read -r gb0 gp0 <<<"$(tx ga)"; read -r ub0 up0 <<<"$(tx ua)"
for rd in $(seq "$ROUNDS"); do
	if [ $((rd % 2)) = 1 ]; then
		iperf ga gb "$B" >>"$CNI_TMP/tp.on"; iperf ua ub "$D" >>"$CNI_TMP/tp.off"
		iperf ua ub "$D" >>"$CNI_TMP/tp.aa"
	else
		iperf ua ub "$D" >>"$CNI_TMP/tp.aa"; iperf ua ub "$D" >>"$CNI_TMP/tp.off"
		iperf ga gb "$B" >>"$CNI_TMP/tp.on"
	fi
done
read -r gb1 gp1 <<<"$(tx ga)"; read -r ub1 up1 <<<"$(tx ua)"
echo "   runs with: $(tr '\n' ' ' <"$CNI_TMP/tp.on")"
echo "   runs without: $(tr '\n' ' ' <"$CNI_TMP/tp.off")"
echo "   runs without, again (A/A): $(tr '\n' ' ' <"$CNI_TMP/tp.aa")"
for f in on off aa; do
	[ "$(wc -l <"$CNI_TMP/tp.$f")" = "$ROUNDS" ] ||
		fail "iperf3 runs failed: $(head -3 "$CNI_TMP/iperf.err")"
done
tp_on=$(med <"$CNI_TMP/tp.on") tp_off=$(med <"$CNI_TMP/tp.off") tp_aa=$(med <"$CNI_TMP/tp.aa")
tp_ratio=$(r "$tp_on" "$tp_off") aa_ratio=$(r "$tp_aa" "$tp_off")
per_pkt_on=$(( (gb1 - gb0) / (gp1 - gp0 + 1) )) per_pkt_off=$(( (ub1 - ub0) / (up1 - up0 + 1) ))
printf '   %.2f Gbit/s with, %.2f without -> ratio %s (target >= 0.95); A/A ratio %s (%.2f Gbit/s)\n' \
	"$(echo "$tp_on / 1000000000" | bc -l)" "$(echo "$tp_off / 1000000000" | bc -l)" "$tp_ratio" \
	"$aa_ratio" "$(echo "$tp_aa / 1000000000" | bc -l)"
echo "   bytes per packet the sender's net1 sent: $per_pkt_on with, $per_pkt_off without (GSO intact when both are tens of KiB)"

load1=$(cut -d' ' -f1-3 /proc/loadavg)
echo "   load average (1, 5, 15 min): $load0 at the start, $load1 at the end"
jq -n --arg load "$load0 -> $load1" --argjson blocks "$BLOCKS" --argjson cycles "$CYCLES" --argjson ao "$add_on" \
	--argjson af "$add_off" --argjson do "$del_on" --argjson df "$del_off" --argjson ra "$ref_add" \
	--argjson failed "$failed" --argjson rounds "$ROUNDS" --argjson secs "$SECS" --arg pin "$PIN" \
	--argjson to "$tp_on" --argjson tf "$tp_off" --argjson ta "$tp_aa" \
	--argjson bpon "$per_pkt_on" --argjson bpoff "$per_pkt_off" '{pod_guard: {
	cni: {blocks: $blocks, cycles_per_block: $cycles, checks: "off",
	      add_with_ms: $ao, add_without_ms: $af, add_with_over_without: ($ao / $af),
	      del_with_ms: $do, del_without_ms: $df, del_with_over_without: ($do / $df),
	      reference_add_ms: $ra, add_with_over_reference_add: ($ao / $ra), failed: $failed},
	pod_to_pod_tcp: {rounds: $rounds, seconds: $secs, cpus_client_server: $pin, bps_with: $to, bps_without: $tf,
			 ratio: ($to / $tf), bps_without_again: $ta, aa_ratio: ($ta / $tf),
			 tx_bytes_per_packet_with: $bpon, tx_bytes_per_packet_without: $bpoff},
	targets: {add_with_over_reference_add: 0.5, pod_to_pod_ratio: 0.95,
		  pod_added_ns: 25},
	load_average_1_5_15m_at_each_end: $load}}' >"$RN_BENCH_OUT/pod_guard.json"
echo "wrote $RN_BENCH_OUT/pod_guard.json"
