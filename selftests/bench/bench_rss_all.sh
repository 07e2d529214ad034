#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make bench: rdmanetd's RSS with everything a node serves at once (issue
# 24's number: < 15 MiB): the device plugin with 8 resources (the fake
# kubelet of selftests/devplugin registers them and makes 500 Allocate
# calls on each), the DRA driver (slices published to the API-server
# stand-in of selftests/kubeapi, a claim prepared 50 times by the DRA
# kubelet stand-in) and 1,024 pods registered (rdmanetctl pod add); next to
# the same agent without device plugin and DRA, with the same pods.
# VmRSS, VmHWM (the peak), RssAnon and RssFile, read a few seconds after
# the last call (the agent's tick, every second in these configs, has run
# since); RSS_RUNS agents of each kind (default 3), medians. Printed and
# written to $RN_BENCH_OUT/rss_all.json, not asserted.
# RN_BENCH_SMAPS=DIR keeps each agent's /proc/PID/{smaps,status} where RSS
# is read (DIR/{plain,all}.N.{smaps,status}), for a breakdown by mapping.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
. "$RN_SRC/selftests/bench/lib_dp_node.sh"
PODS=1024
RUNS=${RSS_RUNS:-3}
cleanup() {
	standin_stop
	dp_kubelet_stop
	umount "$NSYS" 2>/dev/null
	rn_topo_down
}
trap cleanup EXIT
fail() { echo "bench_rss_all: $*" >&2; exit 1; }

dp_have_python_grpc || fail "python3-grpcio missing: make deps"
command -v openssl >/dev/null || fail "openssl missing: make deps"
rn_topo_up || fail "cannot create network namespaces"
bench_dp_node || fail "cannot set up the node"

rn_in_node ip link set lo up
mkdir -p "$RN_TMP/api" "$DP_KUBELET/plugins_registry"
STANDIN_RUN="nsenter --net=/run/netns/$RN_NODE"
standin_start "$RN_TMP/api" || fail "the API-server stand-in did not start"
standin_kubeconfig "$RN_TMP/api" "$RN_TMP/kubeconfig"
dra_config "$RN_TMP/dra.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\" }"
jq -s '.[0] * {dra: .[1].dra, cni: .[1].cni}' "$RN_TMP/dp.json" "$RN_TMP/dra.json" >"$RN_TMP/all.json"
dp_kubelet_start --bench-allocate 500 --watcher
dp_wait '.event == "watcher_up"' || fail "the fake kubelet did not start"

rss() { awk "/$1/ {print \$2}" /proc/"$RN_AGENT_PID"/status; }
# one JSON line: the agent's four numbers now (KiB)
reading() {
	if [ -n "${RN_BENCH_SMAPS:-}" ]; then
		mkdir -p "$RN_BENCH_SMAPS"
		cat /proc/"$RN_AGENT_PID"/smaps >"$RN_BENCH_SMAPS/$1.smaps"
		cat /proc/"$RN_AGENT_PID"/status >"$RN_BENCH_SMAPS/$1.status"
	fi
	jq -n -c --arg rss "$(rss VmRSS)" --arg hwm "$(rss VmHWM)" --arg anon "$(rss RssAnon)" \
		--arg file "$(rss RssFile)" '{ rss_kib: ($rss|tonumber), peak_kib: ($hwm|tonumber),
		anon_kib: ($anon|tonumber), file_kib: ($file|tonumber) }'
}
agent_done() {
	rn_agent_stop
	rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
}

for run in $(seq "$RUNS"); do
	# the baseline: no device plugin, no DRA driver
	rn_agent_start "$RN_TMP/plain.json" >/dev/null || fail "rdmanetd (plain) did not start"
	bench_register_pods "$PODS" || fail "pod add (plain)"
	sleep 3
	reading "plain.$run" >>"$RN_TMP/plain.jsonl"
	agent_done

	dp_mark
	rn_agent_start "$RN_TMP/all.json" >/dev/null || fail "rdmanetd (all) did not start"
	for i in 1 2 3 4 5 6 7 8; do
		dp_wait ".event == \"allocate_bench\" and .resource == \"spidernet.io/shared_cx5_gpu$i\"" 60 ||
			fail "Allocate bench of resource $i"
	done
	reg=$(dra_kubelet register --registry "$DP_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
	[ "$(jq -r .error <<<"$reg")" = null ] || fail "DRA registration: $reg"
	dra_claim default shared "11111111-1111-4111-8111-111111111111" "[$(dra_result nic mlx5-0-port1)]"
	out=$(dra_kubelet bench --endpoint "$DRA_SOCK" --service v1.DRAPlugin \
		--claim "default/shared/11111111-1111-4111-8111-111111111111" --count 50)
	[ "$(jq -r .error <<<"$out")" = null ] || fail "prepare: $out"
	bench_register_pods "$PODS" || fail "pod add (all)"
	slices=$(rn_in_node "$RN_BUILD/tools/kube_request" --kubeconfig "$RN_TMP/kubeconfig" \
		GET /apis/resource.k8s.io/v1/resourceslices | sed -n 2p | jq '.items | length')
	[ "${slices:-0}" -gt 0 ] || fail "no ResourceSlice at the API server"
	sleep 3
	reading "all.$run" >>"$RN_TMP/all.jsonl"
	agent_done
	echo "   run $run: plain $(tail -n 1 "$RN_TMP/plain.jsonl"); all $(tail -n 1 "$RN_TMP/all.jsonl")"
done

# medians of each number over the runs
median() { jq -s -c '. as $a | reduce ($a[0] | keys[]) as $k ({};
	.[$k] = ([$a[][$k]] | sort | .[(length - 1) / 2 | floor]))' "$1"; }
plain=$(median "$RN_TMP/plain.jsonl") all=$(median "$RN_TMP/all.jsonl")
mib() { jq -r ".$2 / 1024 * 10 | round / 10" <<<"$1"; }
echo "   rdmanetd RSS, device plugin (8 resources) + DRA driver + $PODS pods: $(mib "$all" rss_kib) MiB (peak $(mib "$all" peak_kib), anon $(mib "$all" anon_kib), file $(mib "$all" file_kib)); without device plugin and DRA: $(mib "$plain" rss_kib) MiB (peak $(mib "$plain" peak_kib), anon $(mib "$plain" anon_kib), file $(mib "$plain" file_kib)); medians of $RUNS (target < 15 MiB)"
jq -n --argjson all "$all" --argjson plain "$plain" --argjson runs "$RUNS" '{ rss_all: {
	with_devplugin_dra: $all, without: $plain, runs: $runs, resources: 8, pods: 1024,
	targets: { rss_mib: 15 } } }' >"$RN_BENCH_OUT/rss_all.json"
