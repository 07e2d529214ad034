#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# IPAM benchmarks (make bench): allocations and releases per second on the
# SQLite store with 1 and 8 processes and on a 3-member etcd cluster with 1
# and 8 clients, the time to fill a /20 from empty, and baselines measured
# in the same run, interleaved with the measurements they are compared to:
#   - a bare SQLite insert loop with the same durability (WAL,
#     synchronous=FULL): the raw durable-transaction limit of this disk;
#   - the raw single-client compare-and-swap transaction rate of the same
#     etcd cluster, through the same gateway and HTTP client;
#   - cold, one process per operation as a CNI plugin runs (exec, open,
#     allocate, exit): `rdmanetctl ip allocate` on etcd against the raw
#     per-process CAS rate (ipam_etcd_raw doing one transaction per
#     process) of the same cluster, interleaved round by round;
#   - the reference host-local IPAM plugin (containernetworking-plugins),
#     driven as a runtime drives it (env vars + stdin, one process per
#     ADD/DEL), against the same work through rdmanetctl (one process per
#     allocation, as the CNI plugin would run).
#   - per-node blocks (etcd claims, the node's SQLite store): ADD latency,
#     one process per ADD, median and p99, against the node-local SQLite
#     store's ADD in the same run, and etcd requests per 1,000 ADDs in the
#     steady state (after the node's first ADD took its lease and block).
# Each figure is the median of BENCH_REPS (default 3) runs.
# Writes $RN_BENCH_OUT/ipam.json.
set -u
cd "$(dirname "$0")/../.."
RN_BUILD=${RN_BUILD:-$(realpath build)}
RN_BENCH_OUT=${RN_BENCH_OUT:-$RN_BUILD/bench-results}
REPS=${BENCH_REPS:-3}
. selftests/ipam/lib/etcd_cluster.sh

STRESS=$RN_BUILD/tools/ipam_stress
CTL=$RN_BUILD/bin/rdmanetctl
HOST_LOCAL=${HOST_LOCAL:-/usr/lib/cni/host-local}
DIR=$(mktemp -d "/tmp/rn-bench-ipam-$$-XXXXXX")
cleanup() {
	etcd_cluster_stop
	rm -rf "$DIR"
}
trap cleanup EXIT
mkdir -p "$RN_BENCH_OUT"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }'; }
now_ms() { date +%s%3N; }

sqlite_config() {	# FILE DB SUBNET
	cat >"$1" <<EOF
{ "node": "bench", "ipam": { "store": "sqlite", "path": "$2", "timeout_s": 30 },
  "pools": [ { "name": "bench", "subnet": "$3" } ] }
EOF
}

etcd_config() {		# FILE PREFIX SUBNET
	cat >"$1" <<EOF
{ "node": "bench", "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ],
  "prefix": "$2", "timeout_s": 30 }, "pools": [ { "name": "bench", "subnet": "$3" } ] }
EOF
}

# parallel CONFIG PROCS COUNT MODE(alloc|release) TAG -> aggregate ops/s
parallel() {
	local cfg=$1 procs=$2 count=$3 mode=$4 tag=$5 start i flag=() pids=() slowest
	[ "$mode" = release ] && flag=(-X)
	start=$(($(now_ms) + 400))
	for ((i = 0; i < procs; i++)); do
		"$STRESS" -c "$cfg" -p bench -n "$count" -i "$tag$i" -s "$start" "${flag[@]}" \
			>"$DIR/par$i.json" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || { echo "bench: allocator failed" >&2; return 1; }; done
	if [ "$mode" = release ]; then
		slowest=$(jq -s 'map(.alloc_s + .release_s) | max' "$DIR"/par*.json)
	else
		slowest=$(jq -s 'map(.alloc_s) | max' "$DIR"/par*.json)
	fi
	rm -f "$DIR"/par*.json
	rate $((procs * count)) "$slowest"
}

echo "== IPAM: SQLite store ($REPS runs each, medians)"
declare -a raw_sq al1 re1 al8 re8 fill_sq
for ((r = 1; r <= REPS; r++)); do
	raw_sq+=("$("$RN_BUILD/bench/ipam_sqlite_raw" "$DIR/raw$r.db" 3000 | jq .per_s)")
	sqlite_config "$DIR/s1-$r.json" "$DIR/s1-$r.db" 10.64.0.0/18
	out=$("$STRESS" -c "$DIR/s1-$r.json" -p bench -n 3000 -i one -R)
	al1+=("$(rate 3000 "$(jq .alloc_s <<<"$out")")")
	re1+=("$(rate 3000 "$(jq .release_s <<<"$out")")")
	sqlite_config "$DIR/s8-$r.json" "$DIR/s8-$r.db" 10.64.0.0/18
	al8+=("$(parallel "$DIR/s8-$r.json" 8 400 alloc p)")
	re8+=("$(parallel "$DIR/s8-$r.json" 8 400 release p)")
	sqlite_config "$DIR/f-$r.json" "$DIR/f-$r.db" 10.65.0.0/20
	fill_sq+=("$("$STRESS" -c "$DIR/f-$r.json" -p bench -n 4094 -i fill | jq .alloc_s)")
	check_full=$("$STRESS" -c "$DIR/f-$r.json" -p bench -n 1 -i over 2>&1)
	[[ "$check_full" == *"no free IPv4 address"* ]] ||
		echo "bench: /20 not full after 4094 allocations: $check_full" >&2
done
SQ_RAW=$(printf '%s\n' "${raw_sq[@]}" | median)
SQ_A1=$(printf '%s\n' "${al1[@]}" | median)
SQ_R1=$(printf '%s\n' "${re1[@]}" | median)
SQ_A8=$(printf '%s\n' "${al8[@]}" | median)
SQ_R8=$(printf '%s\n' "${re8[@]}" | median)
SQ_FILL=$(printf '%s\n' "${fill_sq[@]}" | median)
SQ_RATIO=$(awk -v a="$SQ_A1" -v b="$SQ_RAW" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
printf '  %-44s %10s\n' "raw fsync'd insert loop (txn/s)" "$SQ_RAW" \
	"allocations/s, 1 process" "$SQ_A1" "releases/s, 1 process" "$SQ_R1" \
	"allocations/s, 8 processes" "$SQ_A8" "releases/s, 8 processes" "$SQ_R8" \
	"whole /20 (4094) from empty (s)" "$SQ_FILL" "allocations / raw (1 process)" "$SQ_RATIO"
echo "  samples: raw ${raw_sq[*]} | 1p ${al1[*]} | 8p ${al8[*]}"

echo "== IPAM: etcd store, 3-member cluster on loopback"
ET_OK=1
if ! command -v etcd >/dev/null || ! etcd_cluster_start "$DIR/etcd" 3; then
	echo "bench: no etcd cluster; etcd figures are 0" >&2
	ET_OK=0
fi
declare -a raw_et ea1 er1 ea8 er8 raw_cold rn_cold
ET_FILL=0
COLD_N=${BENCH_COLD_N:-100}
# cold_rate CMD...: COLD_N processes one after another ("{}" in the
# arguments becomes the round's index), processes per second
cold_rate() {
	local t0 t1 i args
	t0=$(now_ms)
	for ((i = 0; i < COLD_N; i++)); do
		args=("${@//\{\}/$i}")
		"${args[@]}" >/dev/null || { echo "bench: cold $1 failed" >&2; return 1; }
	done
	t1=$(now_ms)
	rate "$COLD_N" "$(awk -v ms=$((t1 - t0)) 'BEGIN { print ms / 1000 }')"
}
if [ $ET_OK = 1 ]; then
	for ((r = 1; r <= REPS; r++)); do
		raw_et+=("$("$RN_BUILD/bench/ipam_etcd_raw" "$ETCD_URLS" 1000 "/raw$r" | jq .per_s)")
		etcd_config "$DIR/e1-$r.json" "/b1-$r" 10.66.0.0/18
		out=$("$STRESS" -c "$DIR/e1-$r.json" -p bench -n 1000 -i one -R)
		ea1+=("$(rate 1000 "$(jq .alloc_s <<<"$out")")")
		er1+=("$(rate 1000 "$(jq .release_s <<<"$out")")")
		etcd_config "$DIR/e8-$r.json" "/b8-$r" 10.66.0.0/18
		ea8+=("$(parallel "$DIR/e8-$r.json" 8 150 alloc p)")
		er8+=("$(parallel "$DIR/e8-$r.json" 8 150 release p)")
		etcd_config "$DIR/ec-$r.json" "/bc-$r" 10.66.0.0/18
		"$CTL" -c "$DIR/ec-$r.json" pool sync >/dev/null
		raw_cold+=("$(cold_rate "$RN_BUILD/bench/ipam_etcd_raw" "$ETCD_URLS" 1 "/rawc$r/{}")")
		rn_cold+=("$(cold_rate "$CTL" -c "$DIR/ec-$r.json" ip allocate --container-id "c{}" \
			--ifname net1 --pool bench)")
	done
	etcd_config "$DIR/ef.json" /fill 10.67.0.0/20
	ET_FILL=$("$STRESS" -c "$DIR/ef.json" -p bench -n 4094 -i fill | jq .alloc_s)
fi
ET_RAW=$(printf '%s\n' "${raw_et[@]:-0}" | median)
ET_A1=$(printf '%s\n' "${ea1[@]:-0}" | median)
ET_R1=$(printf '%s\n' "${er1[@]:-0}" | median)
ET_A8=$(printf '%s\n' "${ea8[@]:-0}" | median)
ET_R8=$(printf '%s\n' "${er8[@]:-0}" | median)
ET_RATIO=$(awk -v a="$ET_A1" -v b="$ET_RAW" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
ET_RAW_COLD=$(printf '%s\n' "${raw_cold[@]:-0}" | median)
ET_COLD=$(printf '%s\n' "${rn_cold[@]:-0}" | median)
ET_COLD_RATIO=$(awk -v a="$ET_COLD" -v b="$ET_RAW_COLD" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
printf '  %-44s %10s\n' "raw single-client CAS txn/s" "$ET_RAW" \
	"allocations/s, 1 client" "$ET_A1" "releases/s, 1 client" "$ET_R1" \
	"allocations/s, 8 clients" "$ET_A8" "releases/s, 8 clients" "$ET_R8" \
	"whole /20 (4094) from empty (s)" "$ET_FILL" "allocations / raw CAS (1 client)" "$ET_RATIO" \
	"raw CAS, one process each (processes/s)" "$ET_RAW_COLD" \
	"allocations, one process each (cold, /s)" "$ET_COLD" \
	"cold allocations / cold raw CAS [>= 0.5]" "$ET_COLD_RATIO"

echo "== IPAM: per-node blocks (etcd + the node's SQLite store) against the node-local SQLite store"
# one process per ADD (rdmanetctl ip allocate, as the CNI plugin runs), each
# timed alone: median and p99 in ms; etcd requests per 1,000 ADDs from the
# members' gRPC counters (the JSON gateway calls the member's gRPC server)
BLK_N=${BENCH_BLOCK_N:-200}
declare -a blk_med blk_p99 loc_med loc_p99 blk_req
# add_times CONFIG PREFIX: ms of each of BLK_N ADDs, one a line
add_times() {
	local i t0
	for ((i = 0; i < BLK_N; i++)); do
		t0=$(date +%s%N)
		"$CTL" -c "$1" ip allocate --container-id "$2$i" --ifname net1 --pool bench \
			>/dev/null || echo "bench: block ADD failed" >&2
		echo $(( ($(date +%s%N) - t0) / 1000 ))
	done | awk '{ printf "%.3f\n", $1 / 1000 }'
}
p99() { sort -g | awk '{ v[NR] = $1 } END { i = int(NR * 0.99 + 0.999); if (i < 1) i = 1; print (NR ? v[i] : 0) }'; }
if [ $ET_OK = 1 ]; then
	for ((r = 1; r <= REPS; r++)); do
		cat >"$DIR/blk-$r.json" <<EOF
{ "node": "bench", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "prefix": "/blk$r",
            "timeout_s": 30, "path": "$DIR/blk-$r.db" },
  "pools": [ { "name": "bench", "subnet": "10.70.0.0/16", "block": 24 } ] }
EOF
		sqlite_config "$DIR/loc-$r.json" "$DIR/loc-$r.db" 10.71.0.0/16
		# warm: the node's first ADD takes its lease and a block, as a
		# node's first pod does; the steady state is what follows
		"$CTL" -c "$DIR/blk-$r.json" ip allocate --container-id warm --ifname net1 \
			--pool bench >/dev/null
		"$CTL" -c "$DIR/loc-$r.json" ip allocate --container-id warm --ifname net1 \
			--pool bench >/dev/null
		q0=$(etcd_requests)
		add_times "$DIR/blk-$r.json" b >"$DIR/blk-$r.ms"
		q1=$(etcd_requests)
		add_times "$DIR/loc-$r.json" l >"$DIR/loc-$r.ms"
		blk_med+=("$(median <"$DIR/blk-$r.ms")")
		blk_p99+=("$(p99 <"$DIR/blk-$r.ms")")
		loc_med+=("$(median <"$DIR/loc-$r.ms")")
		loc_p99+=("$(p99 <"$DIR/loc-$r.ms")")
		blk_req+=("$(awk -v q=$((q1 - q0)) -v n="$BLK_N" 'BEGIN { printf "%.1f", q * 1000 / n }')")
	done
fi
BLK_MED=$(printf '%s\n' "${blk_med[@]:-0}" | median)
BLK_P99=$(printf '%s\n' "${blk_p99[@]:-0}" | median)
LOC_MED=$(printf '%s\n' "${loc_med[@]:-0}" | median)
LOC_P99=$(printf '%s\n' "${loc_p99[@]:-0}" | median)
BLK_REQ=$(printf '%s\n' "${blk_req[@]:-0}" | median)
BLK_RATIO=$(awk -v a="$BLK_MED" -v b="$LOC_MED" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
BLK_RATIO99=$(awk -v a="$BLK_P99" -v b="$LOC_P99" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
printf '  %-44s %10s\n' "blocks ADD, one process each (ms, median)" "$BLK_MED" \
	"blocks ADD (ms, p99)" "$BLK_P99" "node-local SQLite ADD (ms, median)" "$LOC_MED" \
	"node-local SQLite ADD (ms, p99)" "$LOC_P99" "blocks / SQLite, median [<= 1.1]" "$BLK_RATIO" \
	"blocks / SQLite, p99" "$BLK_RATIO99" "etcd requests per 1,000 ADDs [<= 50]" "$BLK_REQ"
echo "  samples: blocks ${blk_med[*]} | sqlite ${loc_med[*]} | requests/1000 ${blk_req[*]}"
etcd_cluster_stop

echo "== IPAM: one process per operation, rdmanetctl vs the reference host-local plugin"
N=${BENCH_PEER_N:-100}
declare -a hl_add hl_del rn_add rn_del
if [ -x "$HOST_LOCAL" ]; then
	for ((r = 1; r <= REPS; r++)); do
		cat >"$DIR/hl.json" <<EOF
{ "cniVersion": "1.0.0", "name": "bench$r",
  "ipam": { "type": "host-local", "ranges": [ [ { "subnet": "10.68.0.0/20" } ] ],
            "dataDir": "$DIR/hl-data" } }
EOF
		t0=$(now_ms)
		for ((i = 0; i < N; i++)); do
			CNI_COMMAND=ADD CNI_CONTAINERID="c$r-$i" CNI_NETNS=/proc/self/ns/net \
			CNI_IFNAME=net1 CNI_PATH=/usr/lib/cni "$HOST_LOCAL" <"$DIR/hl.json" >/dev/null ||
				echo "bench: host-local ADD failed" >&2
		done
		t1=$(now_ms)
		for ((i = 0; i < N; i++)); do
			CNI_COMMAND=DEL CNI_CONTAINERID="c$r-$i" CNI_NETNS=/proc/self/ns/net \
			CNI_IFNAME=net1 CNI_PATH=/usr/lib/cni "$HOST_LOCAL" <"$DIR/hl.json" >/dev/null ||
				echo "bench: host-local DEL failed" >&2
		done
		t2=$(now_ms)
		hl_add+=("$(awk -v t=$((t1 - t0)) -v n="$N" 'BEGIN { printf "%.2f", t / n }')")
		hl_del+=("$(awk -v t=$((t2 - t1)) -v n="$N" 'BEGIN { printf "%.2f", t / n }')")
		sqlite_config "$DIR/p-$r.json" "$DIR/p-$r.db" 10.69.0.0/20
		t0=$(now_ms)
		for ((i = 0; i < N; i++)); do
			"$CTL" -c "$DIR/p-$r.json" ip allocate --container-id "c$r-$i" --ifname net1 \
				--pool bench >/dev/null || echo "bench: rdmanetctl ip allocate failed" >&2
		done
		t1=$(now_ms)
		for ((i = 0; i < N; i++)); do
			"$CTL" -c "$DIR/p-$r.json" ip release --container-id "c$r-$i" --ifname net1 \
				>/dev/null || echo "bench: rdmanetctl ip release failed" >&2
		done
		t2=$(now_ms)
		rn_add+=("$(awk -v t=$((t1 - t0)) -v n="$N" 'BEGIN { printf "%.2f", t / n }')")
		rn_del+=("$(awk -v t=$((t2 - t1)) -v n="$N" 'BEGIN { printf "%.2f", t / n }')")
	done
fi
HL_ADD=$(printf '%s\n' "${hl_add[@]:-0}" | median)
HL_DEL=$(printf '%s\n' "${hl_del[@]:-0}" | median)
RN_ADD=$(printf '%s\n' "${rn_add[@]:-0}" | median)
RN_DEL=$(printf '%s\n' "${rn_del[@]:-0}" | median)
PEER=$(awk -v a="$RN_ADD" -v b="$HL_ADD" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')
printf '  %-44s %10s\n' "host-local ADD (ms/op)" "$HL_ADD" "host-local DEL (ms/op)" "$HL_DEL" \
	"rdmanetctl ip allocate (ms/op)" "$RN_ADD" "rdmanetctl ip release (ms/op)" "$RN_DEL" \
	"rdmanet / host-local (allocate)" "$PEER"
# in-process rates per host-local process: the library's own cost
HL_RATE=$(awk -v m="$HL_ADD" 'BEGIN { printf "%.1f", (m > 0 ? 1000 / m : 0) }')

met() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a >= b) ? "true" : "false") }'; }
SQ_RAW_OK=$(met "$SQ_RATIO" 0.25)
jq -n \
	--argjson sq_raw "$SQ_RAW" --argjson sq_a1 "$SQ_A1" --argjson sq_r1 "$SQ_R1" \
	--argjson sq_a8 "$SQ_A8" --argjson sq_r8 "$SQ_R8" --argjson sq_fill "$SQ_FILL" \
	--argjson sq_ratio "$SQ_RATIO" \
	--argjson et_raw "$ET_RAW" --argjson et_a1 "$ET_A1" --argjson et_r1 "$ET_R1" \
	--argjson et_a8 "$ET_A8" --argjson et_r8 "$ET_R8" --argjson et_fill "$ET_FILL" \
	--argjson et_ratio "$ET_RATIO" --argjson et_raw_cold "$ET_RAW_COLD" \
	--argjson et_cold "$ET_COLD" --argjson et_cold_ratio "$ET_COLD_RATIO" \
	--argjson hl_add "$HL_ADD" --argjson hl_del "$HL_DEL" --argjson hl_rate "$HL_RATE" \
	--argjson rn_add "$RN_ADD" --argjson rn_del "$RN_DEL" --argjson peer "$PEER" \
	--argjson reps "$REPS" \
	--argjson blk_med "$BLK_MED" --argjson blk_p99 "$BLK_P99" --argjson loc_med "$LOC_MED" \
	--argjson loc_p99 "$LOC_P99" --argjson blk_ratio "$BLK_RATIO" \
	--argjson blk_ratio99 "$BLK_RATIO99" --argjson blk_req "$BLK_REQ" \
	--argjson t_blk "$(awk -v a="$BLK_RATIO" 'BEGIN { print (a > 0 && a <= 1.1) ? "true" : "false" }')" \
	--argjson t_blk_req "$(awk -v a="$BLK_REQ" 'BEGIN { print (a <= 50) ? "true" : "false" }')" \
	--argjson t_sq "$(met "$SQ_A1" 2000)" --argjson t_sq_ratio "$SQ_RAW_OK" \
	--argjson t_et "$(met "$ET_A1" 300)" --argjson t_et_ratio "$(met "$ET_RATIO" 0.5)" \
	--argjson t_et_cold "$(met "$ET_COLD_RATIO" 0.5)" \
	'{ ipam: {
	     runs_per_figure: $reps,
	     sqlite: { raw_insert_txn_per_s: $sq_raw,
	               allocs_per_s_1proc: $sq_a1, releases_per_s_1proc: $sq_r1,
	               allocs_per_s_8proc: $sq_a8, releases_per_s_8proc: $sq_r8,
	               fill_slash20_s: $sq_fill, allocs_over_raw: $sq_ratio },
	     etcd: { raw_cas_txn_per_s: $et_raw,
	             allocs_per_s_1client: $et_a1, releases_per_s_1client: $et_r1,
	             allocs_per_s_8clients: $et_a8, releases_per_s_8clients: $et_r8,
	             fill_slash20_s: $et_fill, allocs_over_raw_cas: $et_ratio,
	             cold_per_process: { raw_cas_per_s: $et_raw_cold, allocs_per_s: $et_cold,
	                                 allocs_over_raw_cas: $et_cold_ratio } },
	     blocks: { add_ms_median: $blk_med, add_ms_p99: $blk_p99,
	               sqlite_add_ms_median: $loc_med, sqlite_add_ms_p99: $loc_p99,
	               over_sqlite_median: $blk_ratio, over_sqlite_p99: $blk_ratio99,
	               etcd_requests_per_1000_adds: $blk_req },
	     per_process: { host_local_add_ms: $hl_add, host_local_del_ms: $hl_del,
	                    host_local_adds_per_s: $hl_rate,
	                    rdmanetctl_allocate_ms: $rn_add, rdmanetctl_release_ms: $rn_del,
	                    rdmanet_over_host_local: $peer },
	     targets: { sqlite_allocs_per_s_min: 2000, sqlite_over_raw_min: 0.25,
	                etcd_allocs_per_s_min: 300, etcd_over_raw_cas_min: 0.5,
	                etcd_cold_over_raw_cold_min: 0.5,
	                blocks_over_sqlite_max: 1.1, blocks_etcd_requests_per_1000_max: 50,
	                met: { sqlite_allocs_per_s: $t_sq, sqlite_over_raw: $t_sq_ratio,
	                       etcd_allocs_per_s: $t_et, etcd_over_raw_cas: $t_et_ratio,
	                       etcd_cold_over_raw_cold: $t_et_cold,
	                       blocks_over_sqlite: $t_blk,
	                       blocks_etcd_requests_per_1000: $t_blk_req } } } }' \
	>"$RN_BENCH_OUT/ipam.json"
echo "wrote $RN_BENCH_OUT/ipam.json"
