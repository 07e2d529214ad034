#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# CNI plugin benchmarks (make bench), on the two-rail netns node of the CNI
# tests with rdmanetd running (so every rdmanet ADD also registers the pod
# in the data path):
#  1. ADD+DEL of one macvlan attachment with IPAM and policy routes, median
#     and p99, against the reference macvlan + host-local doing the same
#     attachment in the same run, the plugins taking turns round by round so
#     a busy machine weighs on all alike (target: rdmanet <= 0.5x). rdmanet
#     is measured with its checks as shipped (ARP conflict probe: the answer
#     that matters is silence, so ADD waits its 50 ms window; gateway ARP:
#     answered in microseconds) and with both checks off. Also timed: the
#     kernel deleting such a macvlan with nothing around it: the reference
#     DEL waits for all of it, rdmanet's DEL until the kernel announces the
#     link gone (a child waits for the rest: user/cni/link_delete.h).
#     Targets (figures only, never asserted): ADD with the checks off <= 0.5x
#     the reference ADD; ADD with the checks on <= the probe window + 10 ms;
#     DEL <= 1.0x the reference DEL.
#  2. an 8-rail pod (8 NetworkAttachmentDefinitions, 8 sequential ADDs as
#     Multus does, on 8 masters): the whole pod's ADD and DEL, rdmanet (checks
#     as shipped and off) against the reference macvlan + host-local. Checks
#     on twice: with rdmanetd's pre-checked addresses (the rails' pools marked
#     by a first ADD each, the table filled before the rounds: ADD skips the
#     conflict window) and without (a node config whose cni.state_dir has no
#     table: every ADD waits out the window). Target: pre-checked <= 2x the
#     reference.
#  3. 1,000 pod interfaces attached on one node, one after another and by 8
#     processes at once, then detached the same way: wall time, per-call
#     latency, failures, and the store/registry/link counts in between.
# Knobs: BENCH_CNI_CYCLES (default 150), BENCH_CNI_PODS (default 1000),
# BENCH_CNI_POD_ROUNDS (default 30), BENCH_CNI_OLD (another build's rdmanet,
# e.g. a copy of the binary before a change: it takes turns in the cycles
# too, checks on and off, on a store of its own, and its rows and the
# new/old ratios are printed; not in cni.json).
# Writes $RN_BENCH_OUT/cni.json.
set -u
RN_SRC=${RN_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
RN_BUILD=${RN_BUILD:-$RN_SRC/build}
RN_BENCH_OUT=${RN_BENCH_OUT:-$RN_BUILD/bench-results}
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
RUNNER=$RN_BUILD/bench/cni_bench_run
CYCLES=${BENCH_CNI_CYCLES:-150}
PODS=${BENCH_CNI_PODS:-1000}
POD_ROUNDS=${BENCH_CNI_POD_ROUNDS:-30}
RAILS=8
REF=/usr/lib/cni
mkdir -p "$RN_BENCH_OUT"

fail() { echo "bench_cni: $*" >&2; exit 1; }
[ -x "$CNI_BIN" ] && [ -x "$RUNNER" ] || fail "build first (make)"
[ -x "$REF/macvlan" ] && [ -x "$REF/host-local" ] || fail "reference plugins missing"
cni_topo_up || fail "cannot create network namespaces"
# two /22 for the scale run (and the cycles): one pool for rdmanet, one
# range for host-local, each with its gateway on the fabric
cni_in fabric ip addr add 10.84.3.254/22 dev wa0
cni_in fabric ip addr add 10.85.3.254/22 dev wa0
# the 8 rails of a pod: masters pr0..pr7 (veths to the fabric), each with
# a gateway for rdmanet's pool (10.100.K.254) and one for host-local's range
# (10.110.K.254)
rail_pools=
for ((k = 0; k < RAILS; k++)); do
	ip -n "$CNI_NODE" link add name "pr$k" type veth peer name "pw$k" netns "$CNI_FABRIC" ||
		fail "rail $k"
	ip -n "$CNI_NODE" link set "pr$k" up
	ip -n "$CNI_FABRIC" link set "pw$k" up
	ip -n "$CNI_FABRIC" addr add "10.100.$k.254/24" dev "pw$k"
	ip -n "$CNI_FABRIC" addr add "10.110.$k.254/24" dev "pw$k"
	rail_pools+=", { \"name\": \"rail$k\", \"subnet\": \"10.100.$k.0/24\", \"gateway\": \"10.100.$k.254\", \"masters\": [\"pr$k\"] }"
done
cni_node_config "$CNI_CONFIG" monitor \
	'{ "name": "bench-v4", "subnet": "10.84.0.0/22", "gateway": "10.84.3.254", "masters": ["ra0"] }'"$rail_pools" \
	"{ \"store\": \"sqlite\", \"path\": \"$CNI_TMP/ipam.db\" }"
# rdmanetd manages the pod's rails too
jq --argjson n "$RAILS" '.masters += [range($n) | {ifname: "pr\(.)", policy: "monitor"}]' \
	"$CNI_CONFIG" >"$CNI_CONFIG.new" && mv "$CNI_CONFIG.new" "$CNI_CONFIG"
cni_agent_start "$CNI_CONFIG" || fail "rdmanetd did not start"
# the runtime's environment names the node config (cni_bench_run passes it on)
export RDMANET_CONFIG=$CNI_CONFIG

cni_netconf "$CNI_TMP/rn.json" 1.0.0 bench \
	'{"master": "ra0", "ippools": {"ipv4": ["bench-v4"]}}'
jq '. + {gatewayCheck: false, ipConflictCheck: false}' "$CNI_TMP/rn.json" >"$CNI_TMP/rn-nocheck.json"
# the same attachment through the reference: a bridge macvlan on ra0, an
# address from host-local, a default route via the gateway (the reference
# puts it in the pod's main table; rdmanet puts subnet and default routes in
# the interface's own table and a rule in front)
jq -n --arg dir "$CNI_TMP/host-local" '{cniVersion: "1.0.0", name: "ref", type: "macvlan",
	master: "ra0", mode: "bridge",
	ipam: {type: "host-local", dataDir: $dir,
	       ranges: [[{subnet: "10.85.0.0/22", gateway: "10.85.3.254"}]],
	       routes: [{dst: "0.0.0.0/0"}]}}' >"$CNI_TMP/ref.json"

# a pod without a default route of its own, so the reference's default
# route can go in (as for a pod whose only interface this is)
ip netns add "$CNI_PFX-c0" && CNI_NS_LIST+=("$CNI_PFX-c0")
ip -n "$CNI_PFX-c0" link set lo up

bench() { # NAME PLUGIN CONF MODE COUNT PARALLEL NETNS_PREFIX
	cni_in node "$RUNNER" --plugin "$2" --conf "$3" --mode "$4" --count "$5" --parallel "$6" \
		--netns "$7" --cni-path "$REF" --id-prefix "$1" 2>>"$CNI_TMP/bench.err"
}

echo "CNI ADD+DEL of a macvlan attachment with IPAM and policy routes ($CYCLES rounds, plugins taking turns)"
old=()
if [ -n "${BENCH_CNI_OLD:-}" ]; then
	# its own store: the stores' files (a WAL or none) differ between builds
	jq --arg p "$CNI_TMP/ipam-old.db" '.ipam.path = $p' "$CNI_CONFIG" >"$CNI_TMP/node-old.json"
	old=(--plugin "$BENCH_CNI_OLD" --conf "$CNI_TMP/rn.json" --label old
	     --node-config "$CNI_TMP/node-old.json"
	     --plugin "$BENCH_CNI_OLD" --conf "$CNI_TMP/rn-nocheck.json" --label old0
	     --node-config "$CNI_TMP/node-old.json")
fi
cycles=$(cni_in node "$RUNNER" --mode cycle --count "$CYCLES" --netns /run/netns/"$CNI_PFX-c" \
	--cni-path "$REF" \
	--plugin "$REF/macvlan" --conf "$CNI_TMP/ref.json" --label ref \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/rn.json" --label rn \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/rn-nocheck.json" --label rn0 "${old[@]}" \
	2>>"$CNI_TMP/bench.err")
ref=$(jq -c .ref <<<"$cycles")
rn=$(jq -c .rn <<<"$cycles")
rn0=$(jq -c .rn0 <<<"$cycles")
row() { printf '  %-44s median %7.2f ms  p99 %7.2f ms  (ADD %6.2f, DEL %6.2f)  failed %s\n' "$1" \
	"$(jq .add_del.median_ms <<<"$2")" "$(jq .add_del.p99_ms <<<"$2")" \
	"$(jq .add.median_ms <<<"$2")" "$(jq .del.median_ms <<<"$2")" "$(jq .failed <<<"$2")"; }
row "reference macvlan + host-local" "$ref"
row "rdmanet, checks on (as shipped)" "$rn"
row "rdmanet, conflict and gateway checks off" "$rn0"
ratio() { jq -n --argjson a "$1" --argjson b "$2" "\$a.$3 / \$b.$3 * 1000 | round / 1000"; }
WINDOW=$(jq '.ipConflictCheck.timeoutMs // 50' "$CNI_TMP/rn.json")
printf '  ratio rdmanet/reference, ADD+DEL: median %s (checks on), %s (checks off); p99 %s / %s\n' \
	"$(ratio "$rn" "$ref" add_del.median_ms)" "$(ratio "$rn0" "$ref" add_del.median_ms)" \
	"$(ratio "$rn" "$ref" add_del.p99_ms)" "$(ratio "$rn0" "$ref" add_del.p99_ms)"
printf '  ADD, checks off: %6.2f ms = %s x the reference ADD  [target <= 0.5]\n' \
	"$(jq .add.median_ms <<<"$rn0")" "$(ratio "$rn0" "$ref" add.median_ms)"
printf '  ADD, checks on:  %6.2f ms (probe window %s ms)  [target <= window + 10 = %s ms]\n' \
	"$(jq .add.median_ms <<<"$rn")" "$WINDOW" "$((WINDOW + 10))"
printf '  DEL: %6.2f ms (checks on), %6.2f ms (off) = %s / %s x the reference DEL  [target <= 1.0]\n' \
	"$(jq .del.median_ms <<<"$rn")" "$(jq .del.median_ms <<<"$rn0")" \
	"$(ratio "$rn" "$ref" del.median_ms)" "$(ratio "$rn0" "$ref" del.median_ms)"
if [ -n "${BENCH_CNI_OLD:-}" ]; then
	row "old build $BENCH_CNI_OLD, checks on" "$(jq -c .old <<<"$cycles")"
	row "old build, checks off" "$(jq -c .old0 <<<"$cycles")"
	printf '  new/old ADD: %s (checks off), %s (on); DEL: %s (off), %s (on)\n' \
		"$(ratio "$rn0" "$(jq -c .old0 <<<"$cycles")" add.median_ms)" \
		"$(ratio "$rn" "$(jq -c .old <<<"$cycles")" add.median_ms)" \
		"$(ratio "$rn0" "$(jq -c .old0 <<<"$cycles")" del.median_ms)" \
		"$(ratio "$rn" "$(jq -c .old <<<"$cycles")" del.median_ms)"
	printf '  old build: ADD checks off %s x the reference ADD; DEL %s / %s x (on / off)\n' \
		"$(ratio "$(jq -c .old0 <<<"$cycles")" "$ref" add.median_ms)" \
		"$(ratio "$(jq -c .old <<<"$cycles")" "$ref" del.median_ms)" \
		"$(ratio "$(jq -c .old0 <<<"$cycles")" "$ref" del.median_ms)"
fi
# the kernel's part of DEL, the same for both plugins: deleting a macvlan
# (netdev unregister waits for RCU) timed with nothing else around it
ip netns add "$CNI_PFX-k" && CNI_NS_LIST+=("$CNI_PFX-k")
kdel=()
for i in $(seq 20); do
	ip -n "$CNI_NODE" link add link ra0 name kd0 netns "$CNI_PFX-k" type macvlan mode bridge
	ip -n "$CNI_PFX-k" link set kd0 up
	kdel+=("$(cni_in k "$RUNNER" --mode link-del --ifname kd0 | jq .ms)")
done
kernel_del=$(printf '%s\n' "${kdel[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
printf '  the kernel alone deleting such a macvlan (the reference DEL waits for all of it, rdmanet'"'"'s DEL for its announcement): median %.2f ms\n' "$kernel_del"
echo "An 8-rail pod: 8 networks, 8 sequential ADDs (as Multus does), then the DELs ($POD_ROUNDS rounds)"
jq -n --argjson n "$RAILS" '[range($n) | {cniVersion: "1.0.0", name: "rail\(.)", type: "rdmanet",
	master: "pr\(.)", ippools: {ipv4: ["rail\(.)"]}}]' >"$CNI_TMP/pod-rn.json"
jq '[.[] | . + {gatewayCheck: false, ipConflictCheck: false}]' "$CNI_TMP/pod-rn.json" \
	>"$CNI_TMP/pod-rn0.json"
# the reference: a macvlan on each rail and host-local (no default route:
# a pod has one, on its primary interface)
jq -n --argjson n "$RAILS" --arg dir "$CNI_TMP/host-local-pod" '[range($n) | {cniVersion: "1.0.0",
	name: "ref\(.)", type: "macvlan", master: "pr\(.)", mode: "bridge",
	ipam: {type: "host-local", dataDir: $dir,
	       ranges: [[{subnet: "10.110.\(.).0/24", gateway: "10.110.\(.).254"}]]}}]' \
	>"$CNI_TMP/pod-ref.json"
# without pre-checks: the same store, a state dir with no pre-check table
jq --arg d "$CNI_TMP/state-nopre" '.cni.state_dir = $d' "$CNI_CONFIG" >"$CNI_TMP/node-nopre.json"
# a first pod marks the rails' pools for pre-checks; the agent fills the table
cni_in node "$RUNNER" --mode pod --count 1 --netns /run/netns/"$CNI_PFX-c" --cni-path "$REF" \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/pod-rn.json" --label warm >/dev/null 2>>"$CNI_TMP/bench.err"
rails_prechecked() {
	[ "$(awk 'NR > 1 && $1 ~ /^rail[0-7]$/ { print $1 }' "$CNI_STATE/.precheck" 2>/dev/null |
		sort -u | wc -l)" = "$RAILS" ]
}
cni_wait "$CNI_AGENT_PID" rails_prechecked || echo "  (the rails' pools are not all pre-checked)"
pod=$(cni_in node "$RUNNER" --mode pod --count "$POD_ROUNDS" --netns /run/netns/"$CNI_PFX-c" \
	--cni-path "$REF" \
	--plugin "$REF/macvlan" --conf "$CNI_TMP/pod-ref.json" --label ref \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/pod-rn.json" --label rn \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/pod-rn.json" --label rn_nopre \
	--node-config "$CNI_TMP/node-nopre.json" \
	--plugin "$CNI_BIN" --conf "$CNI_TMP/pod-rn0.json" --label rn0 2>>"$CNI_TMP/bench.err")
pod_ref=$(jq -c .ref <<<"$pod")
pod_rn=$(jq -c .rn <<<"$pod")
pod_nopre=$(jq -c .rn_nopre <<<"$pod")
pod_rn0=$(jq -c .rn0 <<<"$pod")
prow() { printf '  %-44s ADD %7.2f ms  DEL %7.2f ms  (p99 ADD %7.2f)  failed %s\n' "$1" \
	"$(jq .add.median_ms <<<"$2")" "$(jq .del.median_ms <<<"$2")" \
	"$(jq .add.p99_ms <<<"$2")" "$(jq .failed <<<"$2")"; }
prow "reference macvlan + host-local, 8 rails" "$pod_ref"
prow "rdmanet, checks on, pre-checked, 8 rails" "$pod_rn"
prow "rdmanet, checks on, no pre-checks, 8 rails" "$pod_nopre"
prow "rdmanet, checks off, 8 rails" "$pod_rn0"
printf '  whole-pod ADD ratio rdmanet/reference: %s (checks on, pre-checked) [target <= 2], %s (checks on, no pre-checks), %s (checks off)\n' \
	"$(ratio "$pod_rn" "$pod_ref" add.median_ms)" "$(ratio "$pod_nopre" "$pod_ref" add.median_ms)" \
	"$(ratio "$pod_rn0" "$pod_ref" add.median_ms)"

echo "1,000 pod interfaces on one node ($PODS pods, checks on)"
for ((i = 0; i < PODS; i++)); do
	ip netns add "$CNI_PFX-s$i" || fail "netns $i"
	CNI_NS_LIST+=("$CNI_PFX-s$i")
done
counts() {
	local links=0 i
	for ((i = 0; i < PODS; i++)); do
		[ -e "/sys/class/net" ] && ip -n "$CNI_PFX-s$i" -o link show net1 >/dev/null 2>&1 &&
			links=$((links + 1))
	done
	echo "links=$links allocations=$(cni_ctl -j pool show bench-v4 | jq .allocated) registered=$(cni_ctl -j pod show | jq length)"
}
declare -A scale
for par in 1 8; do
	a=$(bench "s$par-" "$CNI_BIN" "$CNI_TMP/rn.json" attach "$PODS" "$par" /run/netns/"$CNI_PFX-s")
	after_add=$(counts)
	d=$(bench "s$par-" "$CNI_BIN" "$CNI_TMP/rn.json" detach "$PODS" "$par" /run/netns/"$CNI_PFX-s")
	after_del=$(counts)
	scale[$par]=$(jq -n --argjson a "$a" --argjson d "$d" --arg aa "$after_add" --arg ad "$after_del" \
		'{attach: $a, detach: $d, after_attach: $aa, after_detach: $ad}')
	printf '  %s at a time: attach %6.1f s (%5.1f/s, call median %6.1f ms p99 %6.1f ms, failed %s)\n' \
		"$par" "$(jq .wall_s <<<"$a")" "$(jq .per_s <<<"$a")" "$(jq .call.median_ms <<<"$a")" \
		"$(jq .call.p99_ms <<<"$a")" "$(jq .failed <<<"$a")"
	printf '  %s at a time: detach %6.1f s (%5.1f/s, call median %6.1f ms p99 %6.1f ms, failed %s)\n' \
		"$par" "$(jq .wall_s <<<"$d")" "$(jq .per_s <<<"$d")" "$(jq .call.median_ms <<<"$d")" \
		"$(jq .call.p99_ms <<<"$d")" "$(jq .failed <<<"$d")"
	echo "    after attach: $after_add; after detach: $after_del"
done
[ -s "$CNI_TMP/bench.err" ] && { echo "  plugin errors (first 5):"; head -5 "$CNI_TMP/bench.err" | sed 's/^/    /'; }

jq -n --argjson ref "$ref" --argjson rn "$rn" --argjson rn0 "$rn0" --argjson kdel "$kernel_del" \
	--argjson s1 "${scale[1]}" --argjson s8 "${scale[8]}" --argjson cycles "$CYCLES" \
	--argjson pods "$PODS" --argjson pod_ref "$pod_ref" --argjson pod_rn "$pod_rn" \
	--argjson pod_rn0 "$pod_rn0" --argjson pod_nopre "$pod_nopre" --argjson window "$WINDOW" --argjson pod_rounds "$POD_ROUNDS" \
	'{cni: {
	  add_del: {cycles: $cycles, reference_macvlan_host_local: $ref,
		    rdmanet_checks_on: $rn, rdmanet_checks_off: $rn0,
		    ratio_median_checks_on: ($rn.add_del.median_ms / $ref.add_del.median_ms),
		    ratio_median_checks_off: ($rn0.add_del.median_ms / $ref.add_del.median_ms),
		    ratio_p99_checks_on: ($rn.add_del.p99_ms / $ref.add_del.p99_ms),
		    ratio_p99_checks_off: ($rn0.add_del.p99_ms / $ref.add_del.p99_ms),
		    kernel_macvlan_delete_median_ms: $kdel,
		    add_checks_off_over_reference_add: ($rn0.add.median_ms / $ref.add.median_ms),
		    add_checks_on_ms: $rn.add.median_ms, probe_window_ms: $window,
		    del_over_reference_del: ($rn.del.median_ms / $ref.del.median_ms),
		    del_checks_off_over_reference_del: ($rn0.del.median_ms / $ref.del.median_ms),
		    targets: {add_checks_off_over_reference_max: 0.5,
			      add_checks_on_max_ms: ($window + 10), del_over_reference_max: 1.0,
			      met: {add_checks_off: ($rn0.add.median_ms / $ref.add.median_ms <= 0.5),
				    add_checks_on: ($rn.add.median_ms <= $window + 10),
				    del: ($rn.del.median_ms / $ref.del.median_ms <= 1.0)}}},
	  pod_8_rails: {rounds: $pod_rounds, reference_macvlan_host_local: $pod_ref,
			rdmanet_checks_on: $pod_rn, rdmanet_checks_on_no_prechecks: $pod_nopre,
			rdmanet_checks_off: $pod_rn0,
			add_ratio_checks_on: ($pod_rn.add.median_ms / $pod_ref.add.median_ms),
			add_ratio_checks_on_no_prechecks:
				($pod_nopre.add.median_ms / $pod_ref.add.median_ms),
			add_ratio_checks_off: ($pod_rn0.add.median_ms / $pod_ref.add.median_ms),
			targets: {add_ratio_checks_on_max: 2,
				  met: ($pod_rn.add.median_ms / $pod_ref.add.median_ms <= 2)}},
	  scale: {pods: $pods, sequential: $s1, parallel_8: $s8}}}' >"$RN_BENCH_OUT/cni.json"
echo "wrote $RN_BENCH_OUT/cni.json"
