#!/bin/bash
# Exported counters never go backwards (Prometheus would see a reset): pods
# are unregistered and registered again, under traffic, while another
# process exports the textfile in a loop and compares every *_total sample
# with its previous value. A master's totals include its pods' traffic
# (registered or since gone), so they must stay monotonic however the
# export interleaves with registration changes.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
GEN_PIDS=()
cleanup() {
	touch "$RN_TMP/stop"
	for p in "${GEN_PIDS[@]}" $READER_PID; do kill "$p" 2>/dev/null; done
	# only these: a bare wait would wait for the agent too
	for p in "${GEN_PIDS[@]}" $READER_PID; do wait "$p" 2>/dev/null; done
	rn_topo_down
}
trap cleanup EXIT
GEN=$RN_BUILD/tools/rn_udpgen
PODS=4
ROUNDS=${RN_CHURN_ROUNDS:-40}

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
declare -A MAC
for k in $(seq $PODS); do MAC[$k]=$(rn_pod_up "p$k" "10.77.0.$((10 + k))"); done
rn_agent_config "$RN_TMP/config.json" monitor
check "agent attaches" rn_agent_start "$RN_TMP/config.json" || tap_done
reg() {	# reg K ROUND
	rn_ctl pod add --namespace t --pod "p$1" --container-id "c$1-$2" --ifname eth1 \
		--master roce0 --mac "${MAC[$1]}" --ip "10.77.0.$((10 + $1))"
}
for k in $(seq $PODS); do reg "$k" 0; done
for k in $(seq $PODS); do
	rn_in "p$k" "$GEN" --dst 10.77.0.100 --count 100000000 --size 200 --interval-us 200 \
		2>/dev/null &
	GEN_PIDS+=($!)
done

# the reader: export, then every counter sample against the previous export
reader() {
	local dir=$RN_TMP/export n=0
	mkdir -p "$dir"
	: >"$RN_TMP/prev"
	while [ ! -e "$RN_TMP/stop" ]; do
		rn_ctl export --textfile "$dir" 2>>"$RN_TMP/reader.err" || continue
		grep -E '^rdmanet_[a-z_]+_total[{ ]' "$dir/rdmanet.prom" >"$RN_TMP/cur"
		awk 'NR == FNR { v = $NF; $NF = ""; prev[$0] = v; next }
		     { v = $NF; $NF = ""; if ($0 in prev && v + 0 < prev[$0] + 0)
			print "backwards: " $0 prev[$0] " -> " v }' \
			"$RN_TMP/prev" "$RN_TMP/cur" >>"$RN_TMP/violations"
		mv "$RN_TMP/cur" "$RN_TMP/prev"
		n=$((n + 1))
		echo $n >"$RN_TMP/reads"
	done
}
: >"$RN_TMP/violations"
reader &
READER_PID=$!

for r in $(seq $ROUNDS); do
	for k in $(seq $PODS); do
		rn_ctl pod del --container-id "c$k-$((r - 1))" --ifname eth1
		reg "$k" "$r"
	done
done
touch "$RN_TMP/stop"
wait $READER_PID
READER_PID=
reads=$(cat "$RN_TMP/reads" 2>/dev/null || echo 0)
tap_diag "$reads exports during $((ROUNDS * PODS)) unregister/register pairs"
check "the reader exported while pods came and went ($reads exports)" test "$reads" -ge 10
check "the master's traffic moved" \
	test "$(grep -c '^rdmanet_master_packets_total' "$RN_TMP/prev")" -gt 0
n=$(wc -l <"$RN_TMP/violations")
[ "$n" = 0 ] || head -20 "$RN_TMP/violations" | sed 's/^/# /'
check_eq "no exported counter went backwards" "$n" 0
check_eq "no export failed" "$(wc -l <"$RN_TMP/reader.err" 2>/dev/null || echo 0)" 0
tap_done
