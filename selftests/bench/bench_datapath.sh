#!/bin/bash
# make bench, data path: per-packet cost of the XDP and tc programs over
# empty programs (BPF_PROG_TEST_RUN), iperf3 throughput through the master
# with and without the programs (interleaved rounds), `rdmanetctl stats -j`
# and textfile export with 1,024 registered pods, rdmanetd RSS.
# Writes $RN_BENCH_OUT/datapath.json.
set -u
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
ROUNDS=${RN_BENCH_ROUNDS:-8}
SECS=${RN_BENCH_IPERF_SECONDS:-3}
PODS=1024

med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms_of() {	# ms_of CMD... : wall time of one run, in ms
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo "scale=3; ($t1 - $t0) / 1000000" | bc
}

echo "-- per-packet cost (BPF_PROG_TEST_RUN; each program between two runs of its empty one, 1e5 repeats or 2,000 fresh-skb runs, x 101 rounds; median [p10-p90] over rounds)"
prog=$("$RN_BUILD/bench/dp_prog_cost" --repeat 100000 --rounds 101 --calls 2000 2>/dev/null) || exit 1
echo "$prog" | jq -r '
	def spread(k): "\(.[k + "_added_ns"]) ns [\(.[k + "_added_p10_ns"])-\(.[k + "_added_p90_ns"])]";
	"   XDP rx:    empty \(.xdp_empty_ns) ns, rn_xdp_rx \(.xdp_rx_ns) ns -> added \(spread("xdp")) (target <= 15)",
	"   tc egress, fresh Not-ECT skb every run (marks): empty \(.tc_fresh_empty_ns) ns, rn_tc_egress \(.tc_fresh_ns) ns -> added \(spread("tc_fresh")) (target <= 40)",
	"   tc egress, fresh GSO skb (10 x 1400, linear): empty \(.tc_fresh_gso_empty_ns) ns, rn_tc_egress \(.tc_fresh_gso_ns) ns -> added \(spread("tc_fresh_gso"))",
	"   tc egress, one skb reused (already-marked path after the first): added \(spread("tc"))",
	if .pod_added_ns == null then "   per-pod program (rn_pod_egress): not loadable here (Linux 6.3)"
	else "   per-pod program (rn_pod_egress, pod egress, same frame, enforce): empty \(.pod_empty_ns) ns, rn_pod_egress \(.pod_egress_ns) ns -> added \(spread("pod")) (target <= 25)",
	     "     the same frame through its general parser (as tagged, ARP and NDP frames go): added \(spread("pod_general"))",
	     "     A/A, the program against a second copy of itself: \(spread("pod_aa"))" end'

echo "-- throughput through the master (iperf3 TCP, ${SECS}s x $ROUNDS rounds each, interleaved)"
rn_topo_up || exit 1
MAC_A=$(rn_pod_up a 10.77.0.2)
# auto: on a veth master XDP stays off and tc ingress counts rx; native:
# XDP forced on the veth (which then copies every GSO skb), for comparison
rn_agent_config "$RN_TMP/auto.json" enforce
rn_agent_config "$RN_TMP/native.json" enforce '"xdp_mode": "native"'
iperf() {	# iperf ARGS: bits per second of one run
	nsenter --net=/run/netns/"$RN_PEER" iperf3 -s -1 -B 10.77.0.100 >/dev/null 2>&1 &
	local srv=$!
	sleep 0.3
	rn_in a iperf3 -c 10.77.0.100 -t "$SECS" -J "$@" 2>"$RN_TMP/iperf.err" |
		jq ".end.sum_received.bits_per_second // empty"
	[ -s "$RN_TMP/iperf.err" ] && sed "s/^/iperf3: /" "$RN_TMP/iperf.err" >&2
	wait $srv 2>/dev/null
}
attach() {
	rn_agent_start "$1" >/dev/null || exit 1
	rn_ctl pod add --namespace b --pod a --container-id ca --ifname eth1 --master roce0 \
		--mac "$MAC_A" --ip 10.77.0.2
}
detach() {
	rn_agent_stop
	rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
}
for f in tx_off tx_on rx_off rx_on tx_xdp rx_xdp; do : >"$RN_TMP/$f"; done
iperf >/dev/null	# warm-up: ARP, slab caches, iperf3's first-run costs
off_runs() { iperf >>"$RN_TMP/tx_off"; iperf -R >>"$RN_TMP/rx_off"; }
on_runs() {
	attach "$RN_TMP/auto.json"
	iperf >>"$RN_TMP/tx_on"
	iperf -R >>"$RN_TMP/rx_on"
	detach
	attach "$RN_TMP/native.json"
	iperf >>"$RN_TMP/tx_xdp"
	iperf -R >>"$RN_TMP/rx_xdp"
	detach
}
# ABBA order: drift in the machine's load hits both sides alike
for r in $(seq "$ROUNDS"); do
	if [ $((r % 2)) = 1 ]; then off_runs; on_runs; else on_runs; off_runs; fi
done
for f in tx_off rx_off tx_on rx_on tx_xdp rx_xdp; do echo "   runs $f: $(tr "\n" " " <"$RN_TMP/$f")"; done
tx_off=$(med <"$RN_TMP/tx_off"); tx_on=$(med <"$RN_TMP/tx_on")
rx_off=$(med <"$RN_TMP/rx_off"); rx_on=$(med <"$RN_TMP/rx_on")
tx_xdp=$(med <"$RN_TMP/tx_xdp"); rx_xdp=$(med <"$RN_TMP/rx_xdp")
ratio() { echo "scale=3; $1 / $2" | bc; }
gbit() { printf '%.2f' "$(echo "$1 / 1000000000" | bc -l)"; }
tx_ratio=$(ratio "$tx_on" "$tx_off"); rx_ratio=$(ratio "$rx_on" "$rx_off")
rx_xdp_ratio=$(ratio "$rx_xdp" "$rx_off")
echo "   pod -> peer (tc egress: count, mark, enforce): $(gbit "$tx_off") Gbit/s without, $(gbit "$tx_on") with -> ratio $tx_ratio (target >= 0.95)"
echo "   peer -> pod (auto on veth: tc ingress rx):     $(gbit "$rx_off") Gbit/s without, $(gbit "$rx_on") with -> ratio $rx_ratio (target >= 0.95)"
echo "   peer -> pod (XDP forced native on the veth):   $(gbit "$rx_xdp") Gbit/s -> ratio $rx_xdp_ratio (veth copies GSO skbs for XDP)"

echo "-- control plane with $PODS registered pods"
rn_agent_start "$RN_TMP/auto.json" >/dev/null || exit 1
AGENT=$RN_AGENT_PID
t0=$(date +%s%N)
for i in $(seq 0 $((PODS - 1))); do
	printf -v mac '02:aa:00:00:%02x:%02x' $((i >> 8)) $((i & 255))
	echo "pod add --namespace bench --pod p$i --container-id c$i --ifname net1 --master roce0 --mac $mac --ip 10.$((100 + i / 250)).$((i % 250)).1"
done >"$RN_TMP/adds"
while read -r line; do
	# shellcheck disable=SC2086
	rn_ctl $line || exit 1
done <"$RN_TMP/adds"
t1=$(date +%s%N)
reg_ms=$(( (t1 - t0) / 1000000 ))
n=$(rn_ctl pod show -j | jq length)
[ "$n" = $PODS ] || { echo "registered $n pods, want $PODS"; exit 1; }
stats=(); export_=(); raw=(); start=()
for _ in $(seq 11); do
	# the pinned maps are the same from any netns: no nsenter in the timing
	stats+=("$(ms_of "$RN_BUILD/bin/rdmanetctl" --pin-dir "$RN_PIN" stats -j)")
	export_+=("$(ms_of "$RN_BUILD/bin/rdmanetctl" --pin-dir "$RN_PIN" export --textfile "$RN_TMP")")
	start+=("$(ms_of "$RN_BUILD/bin/rdmanetctl" help)")
	raw+=("$(ms_of bpftool map dump pinned "$RN_PIN/rn_pod_ctr_v1")")
done
stats_ms=$(printf '%s\n' "${stats[@]}" | med)
export_ms=$(printf '%s\n' "${export_[@]}" | med)
raw_ms=$(printf '%s\n' "${raw[@]}" | med)
start_ms=$(printf '%s\n' "${start[@]}" | med)
bytes=$(rn_ctl stats -j | wc -c)
echo "   registering $PODS pods one CLI call each: $reg_ms ms"
echo "   rdmanetctl stats -j: $stats_ms ms median (target < 20; $bytes bytes of JSON)"
echo "   rdmanetctl export --textfile: $export_ms ms median (target < 50)"
echo "   baselines: bpftool map dump of the pod counters alone $raw_ms ms; rdmanetctl start-up alone (help) $start_ms ms"
sleep 3	# a few periodic exports of 1,024 pods
rss=$(awk '/VmRSS/ {print $2}' /proc/"$AGENT"/status)
hwm=$(awk '/VmHWM/ {print $2}' /proc/"$AGENT"/status)
echo "   rdmanetd RSS: $rss KiB (peak $hwm KiB) with $PODS pods, exporting every second (target < 15 MiB)"

jq -n --argjson prog "$prog" --arg txoff "$tx_off" --arg txon "$tx_on" --arg rxoff "$rx_off" \
	--arg rxon "$rx_on" --arg txr "$tx_ratio" --arg rxr "$rx_ratio" --arg st "$stats_ms" \
	--arg ex "$export_ms" --arg raw "$raw_ms" --arg rss "$rss" --arg hwm "$hwm" \
	--arg reg "$reg_ms" --arg start "$start_ms" --arg txx "$tx_xdp" --arg rxx "$rx_xdp" \
	--arg rxxr "$rx_xdp_ratio" --argjson rounds "$ROUNDS" --argjson secs "$SECS" '{datapath: {
	prog_cost: $prog,
	iperf3: { rounds: $rounds, seconds: $secs,
		  tx_bps_without: ($txoff|tonumber), tx_bps_with: ($txon|tonumber), tx_ratio: ($txr|tonumber),
		  rx_bps_without: ($rxoff|tonumber), rx_bps_with: ($rxon|tonumber), rx_ratio: ($rxr|tonumber),
		  xdp_native_on_veth: { tx_bps: ($txx|tonumber), rx_bps: ($rxx|tonumber),
					rx_ratio: ($rxxr|tonumber) } },
	pods: 1024, register_all_ms: ($reg|tonumber),
	stats_json_ms: ($st|tonumber), export_textfile_ms: ($ex|tonumber),
	baseline_bpftool_dump_ms: ($raw|tonumber), baseline_ctl_startup_ms: ($start|tonumber),
	agent_rss_kib: ($rss|tonumber), agent_rss_peak_kib: ($hwm|tonumber),
	targets: { xdp_added_ns: 15, tc_added_ns: 40, pod_added_ns: 25, throughput_ratio: 0.95, stats_ms: 20,
		   export_ms: 50, rss_mib: 15 } }}' >"$RN_BENCH_OUT/datapath.json"
