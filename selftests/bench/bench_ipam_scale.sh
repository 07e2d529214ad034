#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Per-node blocks at cluster scale (make bench), against the 3-member etcd
# of the IPAM tests on loopback: BENCH_SCALE_NODES (default 1,000) nodes x
# the 8 rails of deploy/overlays/rails-8 (a /16 per rail, /28 blocks),
# each node with its own node-local store, driven by
# BENCH_SCALE_WORKERS (16) processes running the agent's and the CNI
# plugin's code (bench/ipam_block_sim: rn_block_alloc_tick,
# rn_block_alloc_allocate; no mock):
#   - claims: every node's agent tick claims a block of each rail
#     (block claims per second); a tick etcd answered "try again later"
#     runs again in the next round, as the agent's next tick would;
#   - steady state: every node holds its blocks (the claims are done),
#     then BENCH_SCALE_CHURN_S (10) seconds of pods starting and stopping
#     on every node; etcd requests per ADD from the members' gRPC counters
#     (must be 0: the agents' ticks are not running, their keep-alive is 1
#     request per node per tick, off the ADD path);
#   - etcd outage: every member stopped for BENCH_SCALE_OUTAGE_S (20)
#     seconds while the churn goes on: ADDs that succeeded, "try again
#     later" answers, errors; then, etcd back, every address any node
#     holds or handed out in the outage lies in a block etcd says is that
#     node's, and no address is held by two nodes.
# The issue's 5-minute outage:
#   BENCH_SCALE_OUTAGE_S=300 selftests/bench/bench_ipam_scale.sh
# (the nodes' lease is the shipped 900 s, so a 5-minute outage is within
# it; past the lease's bound ADDs answer "try again later").
# Node stores live in /dev/shm when it exists (1,000 SQLite files: the
# figure is etcd's and the claim code's, not this disk's fsync).
# Writes $RN_BENCH_OUT/ipam_scale.json (merged under "ipam": "blocks_scale").
set -u
cd "$(dirname "$0")/../.."
RN_BUILD=${RN_BUILD:-$(realpath build)}
RN_BENCH_OUT=${RN_BENCH_OUT:-$RN_BUILD/bench-results}
NODES=${BENCH_SCALE_NODES:-1000}
WORKERS=${BENCH_SCALE_WORKERS:-16}
CHURN_S=${BENCH_SCALE_CHURN_S:-10}
OUTAGE_S=${BENCH_SCALE_OUTAGE_S:-20}
. selftests/ipam/lib/etcd_cluster.sh
SIM=$RN_BUILD/bench/ipam_block_sim
DIR=$(mktemp -d "/tmp/rn-bench-scale-$$-XXXXXX")
STORES=$DIR/stores
[ -d /dev/shm ] && STORES=$(mktemp -d "/dev/shm/rn-bench-scale-$$-XXXXXX")
mkdir -p "$STORES"
cleanup() {
	etcd_cluster_stop
	rm -rf "$DIR" "$STORES"
}
trap cleanup EXIT
mkdir -p "$RN_BENCH_OUT"


echo "== IPAM blocks at scale: $NODES nodes x 8 rails, $WORKERS processes, 3-member etcd"
if ! command -v etcd >/dev/null || ! etcd_cluster_start "$DIR/etcd" 3; then
	echo "bench: no etcd cluster" >&2
	exit 1
fi
# the rails-8 overlay's pools and lease, pointed at this cluster
jq --argjson eps "[ $ETCD_ENDPOINTS_JSON ]" --arg p "$DIR/unused.db" \
	'.ipam.endpoints = $eps | .ipam.path = $p | del(.ipam.tls) | .ipam.timeout_s = 5' \
	deploy/overlays/rails-8/config.json >"$DIR/config.json"

claim=$("$SIM" "$DIR/config.json" "$STORES" "$NODES" "$WORKERS" claim)
echo "  claims: $claim"
q0=$(etcd_requests)
churn=$("$SIM" "$DIR/config.json" "$STORES" "$NODES" "$WORKERS" churn "$CHURN_S")
q1=$(etcd_requests)
echo "  steady state: $churn"
for i in 1 2 3; do etcd_member_kill "$i"; done
outage=$("$SIM" "$DIR/config.json" "$STORES" "$NODES" "$WORKERS" churn "$OUTAGE_S")
echo "  etcd outage (${OUTAGE_S} s, every member down): $outage"
for i in 1 2 3; do etcd_member_start "$i"; done
etcd_wait_healthy 60 || { echo "bench: etcd did not come back" >&2; exit 1; }
verify=$("$SIM" "$DIR/config.json" "$STORES" "$NODES" "$WORKERS" verify)
vrc=$?
echo "  after the outage: $verify"

jq -n --argjson claim "$claim" --argjson churn "$churn" --argjson outage "$outage" \
	--argjson verify "$verify" --argjson q "$((q1 - q0))" --argjson nodes "$NODES" \
	--argjson workers "$WORKERS" --argjson outage_s "$OUTAGE_S" --argjson churn_s "$CHURN_S" '
{ ipam: { blocks_scale: {
	nodes: $nodes, rails: 8, workers: $workers,
	block_claims_per_s: $claim.per_s, block_claims: $claim.ok, claim_seconds: $claim.seconds,
	claim_ticks_try_later: $claim.eagain, claim_nodes_failed: $claim.errors,
	steady_adds_per_s: $churn.per_s, steady_adds: $churn.ok, steady_seconds: $churn_s,
	etcd_requests_per_add_steady: (if $churn.ok > 0 then $q / $churn.ok else null end),
	etcd_requests_steady: $q,
	outage_seconds: $outage_s, outage_adds: $outage.ops, outage_adds_ok: $outage.ok,
	outage_try_later: $outage.eagain, outage_errors: $outage.errors,
	outage_success_pct: (if $outage.ops > 0 then ($outage.ok * 1000 / $outage.ops | floor) / 10 else null end),
	after_outage_addresses_checked: $verify.checked,
	after_outage_outside_own_blocks: $verify.outside,
	after_outage_held_twice: $verify.duplicates,
	command: "BENCH_SCALE_OUTAGE_S=\($outage_s) selftests/bench/bench_ipam_scale.sh"
} } }' >"$RN_BENCH_OUT/ipam_scale.json"
jq -r '.ipam.blocks_scale | to_entries[] | "  \(.key)  \(.value)"' "$RN_BENCH_OUT/ipam_scale.json"
[ "$vrc" = 0 ] && [ "$((q1 - q0))" = 0 ]
