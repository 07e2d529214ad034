#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench, the DRA driver (rdmanetd with a "dra" section, the ConnectX-5
# SR-IOV fixture, kubelet's side played by selftests/dra/kubelet_dra.py, the
# API server by the stand-in of selftests/kubeapi):
#  1. NodePrepareResources and NodeUnprepareResources of one claim, a
#     shared HCA port and an exclusive VF (CDI spec, state file, the VF's
#     hold), each call timed by the client on one channel as kubelet keeps
#     one; the baseline is the same client's unprepare of a claim never
#     prepared (an RPC without work): the rest is the driver's work.
#  2. A port going down until the API server holds a slice generation
#     that says so (the issue's goal: within a second), polled every 50 ms
#     (each poll a kube_request: TLS and the stand-in's Python, tens of
#     ms, counted in); DBENCH_FLIPS down/up flips (default 4). The kernel
#     changes a RoCE port's state with its netdev's carrier, one rtnetlink
#     link event; here the fixture's port state file is written and a
#     veth in the node's netns flips with it (the event).
#  3. rdmanetd's RSS with the driver (serving, slices published, claims
#     prepared and gone) against the same agent without a "dra" section.
# Printed and written to $RN_BENCH_OUT/dra.json, not asserted.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
trap 'standin_stop; rn_topo_down' EXIT
COUNT=${DBENCH_COUNT:-200}
FLIPS=${DBENCH_FLIPS:-4}
fail() { echo "bench_dra: $*" >&2; exit 1; }
med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.1f\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

dp_have_python_grpc || fail "python3-grpcio missing: make deps"
command -v openssl >/dev/null || fail "openssl missing: make deps"
rn_topo_up || fail "cannot create network namespaces"
dp_fixture cx5_sriov
rn_in_node ip link set lo up
mkdir -p "$RN_TMP/api"
STANDIN_RUN="nsenter --net=/run/netns/$RN_NODE"
standin_start "$RN_TMP/api" || fail "the API-server stand-in did not start"
standin_kubeconfig "$RN_TMP/api" "$RN_TMP/kubeconfig"
rss() { awk "/$1/ {print \$2}" /proc/"$RN_AGENT_PID"/status; }

# the baseline: the same agent, no dra section
rn_agent_config "$RN_TMP/plain.json" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" }"
rn_agent_start "$RN_TMP/plain.json" >/dev/null || fail "rdmanetd (plain) did not start"
sleep 3
plain_rss=$(rss VmRSS) plain_hwm=$(rss VmHWM) plain_anon=$(rss RssAnon) plain_file=$(rss RssFile)
rn_agent_stop
rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q

dra_config "$RN_TMP/config.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\", \"resync_s\": 600 }"
rn_agent_start "$RN_TMP/config.json" >/dev/null || fail "rdmanetd (dra) did not start"
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
[ "$(jq -r .error <<<"$reg")" = null ] || fail "registration: $reg"

echo "-- prepare/unprepare ($COUNT rounds per device kind)"
dra_claim default shared "11111111-1111-4111-8111-111111111111" "[$(dra_result nic mlx5-0-port1)]"
dra_claim default vf "22222222-2222-4222-8222-222222222222" "[$(dra_result nic vf-0000-3b-00-2)]"
one() {	# one CLAIM UID: the bench's JSON
	dra_kubelet bench --endpoint "$DRA_SOCK" --service v1.DRAPlugin --claim "default/$1/$2" --count "$COUNT"
}
shared=$(one shared 11111111-1111-4111-8111-111111111111)
vf=$(one vf 22222222-2222-4222-8222-222222222222)
for j in "$shared" "$vf"; do [ "$(jq -r .error <<<"$j")" = null ] || fail "prepare bench: $j"; done
jq -r '"   shared HCA port: prepare p50 \(.prepare_p50_ms) ms p99 \(.prepare_p99_ms); unprepare p50 \(.unprepare_p50_ms) ms; an RPC without work \(.empty_rpc_p50_ms) ms"' <<<"$shared"
jq -r '"   VF (held):       prepare p50 \(.prepare_p50_ms) ms p99 \(.prepare_p99_ms); unprepare p50 \(.unprepare_p50_ms) ms; an RPC without work \(.empty_rpc_p50_ms) ms"' <<<"$vf"

echo "-- a port going down, until the API server holds the slice that says so ($FLIPS flips)"
REQ=$RN_BUILD/tools/kube_request
state_is() {	# the published portState of mlx5-0-port1
	rn_in_node "$REQ" --kubeconfig "$RN_TMP/kubeconfig" GET /apis/resource.k8s.io/v1/resourceslices 2>/dev/null |
		sed -n 2p | jq -r '[.items[].spec.devices[] | select(.name == "mlx5-0-port1") | .attributes.portState.string] | .[0] // ""'
}
for _ in $(seq 100); do [ "$(state_is)" = ACTIVE ] && break; sleep 0.1; done
[ "$(state_is)" = ACTIVE ] || fail "the first slices were not published"
PORT=$RN_TMP/host/sys/class/infiniband/mlx5_0/ports/1/state
rn_in_node ip link add rdbench0 type veth peer name rdbench1 && rn_in_node ip link set rdbench1 up || fail "no veth"
lat=()
for i in $(seq "$FLIPS"); do
	for s in "1: DOWN" "4: ACTIVE"; do
		want=${s#*: }
		t0=$EPOCHREALTIME
		echo "$s" >"$PORT"
		rn_in_node ip link set rdbench0 "$([ "$want" = DOWN ] && echo down || echo up)"
		for _ in $(seq 200); do [ "$(state_is)" = "$want" ] && break; sleep 0.05; done
		[ "$(state_is)" = "$want" ] || fail "the slice never said $want"
		lat+=("$(echo "($EPOCHREALTIME - $t0) * 1000" | bc)")
	done
done
flip_med=$(printf '%s\n' "${lat[@]}" | med)
flip_max=$(printf '%s\n' "${lat[@]}" | sort -g | tail -1)
echo "   sysfs write -> slice published: median $flip_med ms, max $flip_max ms over ${#lat[@]} changes (goal: within 1000 ms)"

dra_rss=$(rss VmRSS) dra_hwm=$(rss VmHWM) dra_anon=$(rss RssAnon) dra_file=$(rss RssFile)
echo "-- RSS: $dra_rss KiB with the driver (peak $dra_hwm), $plain_rss KiB without (peak $plain_hwm): x $(echo "scale=3; $dra_rss / $plain_rss" | bc)"
echo "   of which anonymous (the agent's own memory) $dra_anon KiB with the driver, $plain_anon KiB without;"
echo "   the rest is the pages of shared libraries it maps (gRPC and its C++ runtime,"
echo "   OpenSSL), $dra_file KiB with, $plain_file KiB without"
rn_agent_stop

mkdir -p "$RN_BENCH_OUT"
jq -n --argjson shared "$shared" --argjson vf "$vf" --argjson fm "$flip_med" --argjson fx "$flip_max" \
	--argjson n "${#lat[@]}" --argjson pr "$plain_rss" --argjson ph "$plain_hwm" \
	--argjson dr "$dra_rss" --argjson dh "$dra_hwm" --argjson pa "$plain_anon" --argjson pf "$plain_file" \
	--argjson da "$dra_anon" --argjson df "$dra_file" --arg load "$(cut -d' ' -f1-3 /proc/loadavg)" '{dra: {
	  load_average_1_5_15m: $load,
	  prepare: {shared_hca_port: ($shared | del(.error)), vf: ($vf | del(.error))},
	  port_down_to_slice_ms: {median: $fm, max: $fx, changes: $n, goal: 1000},
	  rss_kib: {without_dra: $pr, without_dra_peak: $ph, with_dra: $dr, with_dra_peak: $dh,
		    ratio: ($dr / $pr),
		    anon_without_dra: $pa, anon_with_dra: $da, file_without_dra: $pf, file_with_dra: $df}}}' >"$RN_BENCH_OUT/dra.json"
echo "wrote $RN_BENCH_OUT/dra.json"
