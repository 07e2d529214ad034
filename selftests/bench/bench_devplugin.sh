#!/bin/bash
# The device plugin: Allocate latency as the fake kubelet measures it (a
# gRPC round trip over the unix socket, Python client; an empty RPC on the
# same client is the baseline: the client's own share), time from a link
# going down to the fake kubelet receiving the Unhealthy list (rtnetlink
# event -> model reload -> ListAndWatch), and rdmanetd's RSS, steady and
# peak, with 8 resources served and 1,024 pods registered, next to the
# same agent without the device plugin. Printed and written, not asserted.
#
# The HCAs are the ConnectX-5 fixture tree; the netdev of rail 2 is made
# the node's real roce0 (a sysfs of the node's netns mounted under the run
# dir, linked from the fixture), so taking roce0 down is a real link event.
#
# RN_BENCH_SMAPS=DIR keeps the agent's /proc/PID/{smaps,status} where RSS is
# read (DIR/{plain,dp}.{smaps,status}), for a breakdown by mapping.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/bench/lib_dp_node.sh"
cleanup() {
	dp_kubelet_stop
	umount "$NSYS" 2>/dev/null
	rn_topo_down
}
trap cleanup EXIT
PODS=1024

dp_have_python_grpc || { echo "python3-grpcio missing: make deps"; exit 1; }
rn_topo_up || exit 1
bench_dp_node || exit 1

rss() { awk "/$1/ {print \$2}" /proc/"$RN_AGENT_PID"/status; }
keep_smaps() {
	[ -n "${RN_BENCH_SMAPS:-}" ] || return 0
	mkdir -p "$RN_BENCH_SMAPS"
	cat /proc/"$RN_AGENT_PID"/smaps >"$RN_BENCH_SMAPS/$1.smaps"
	cat /proc/"$RN_AGENT_PID"/status >"$RN_BENCH_SMAPS/$1.status"
}

# baseline: the same agent, no device plugin
rn_agent_start "$RN_TMP/plain.json" >/dev/null || exit 1
bench_register_pods "$PODS" || exit 1
sleep 3
base_rss=$(rss VmRSS) base_hwm=$(rss VmHWM)
keep_smaps plain
rn_agent_stop
rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q

dp_kubelet_start --bench-allocate 500
dp_wait '.event == "kubelet_up"' || exit 1
rn_agent_start "$RN_TMP/dp.json" >/dev/null || exit 1
for i in 1 2 3 4 5 6 7 8; do
	dp_wait ".event == \"allocate_bench\" and .resource == \"spidernet.io/shared_cx5_gpu$i\"" 60 ||
		exit 1
done
bench_register_pods "$PODS" || exit 1
sleep 3
rss=$(rss VmRSS) hwm=$(rss VmHWM)
keep_smaps dp

G=spidernet.io/shared_cx5_gpu1	# ens1f1np1, i.e. roce0
downs=()
for _ in 1 2 3 4 5; do
	dp_mark
	t0=$(date +%s.%N)
	ip -n "$RN_NODE" link set roce0 down
	dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 0" 10 || exit 1
	t1=$(dp_last ".event == \"list\" and .resource == \"$G\" and .healthy == 0" | jq -r .t)
	downs+=("$(echo "$t0 $t1" | awk '{ printf "%.1f", ($2 - $1) * 1000 }')")
	dp_mark
	ip -n "$RN_NODE" link set roce0 up
	dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 100" 10 || exit 1
done
down_ms=$(printf '%s\n' "${downs[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
alloc=$(jq -s -c '[.[] | select(.event == "allocate_bench")] |
	{p50: ([.[].p50_ms] | add / length), p99: ([.[].p99_ms] | max),
	 empty: ([.[].empty_rpc_p50_ms] | add / length)}' "$DP_LOG")

echo "   Allocate (fake kubelet, 8 resources x 500 calls): p50 $(jq -r '.p50 * 1000 | round / 1000' <<<"$alloc") ms, p99 max $(jq -r '.p99 * 1000 | round / 1000' <<<"$alloc") ms; an empty RPC (GetDevicePluginOptions), same client: p50 $(jq -r '.empty * 1000 | round / 1000' <<<"$alloc") ms (target < 1 ms)"
echo "   link down -> kubelet sees Unhealthy: median ${down_ms} ms of ${downs[*]} (target < 1000 ms)"
echo "   rdmanetd RSS with 8 resources, $PODS pods: $rss KiB (peak $hwm KiB); without the device plugin: $base_rss KiB (peak $base_hwm KiB) (target < 15 MiB)"
jq -n --argjson alloc "$alloc" --arg down "$down_ms" --arg rss "$rss" --arg hwm "$hwm" \
	--arg brss "$base_rss" --arg bhwm "$base_hwm" '{ devplugin: {
	allocate_p50_ms: $alloc.p50, allocate_p99_ms: $alloc.p99,
	empty_rpc_p50_ms: $alloc.empty,
	link_down_to_unhealthy_ms: ($down|tonumber),
	agent_rss_kib: ($rss|tonumber), agent_rss_peak_kib: ($hwm|tonumber),
	agent_rss_without_devplugin_kib: ($brss|tonumber),
	agent_rss_peak_without_devplugin_kib: ($bhwm|tonumber),
	resources: 8, pods: 1024,
	targets: { allocate_ms: 1, link_down_to_unhealthy_ms: 1000, rss_mib: 15 } }}' \
	>"$RN_BENCH_OUT/devplugin.json"
