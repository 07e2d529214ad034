#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Per-node blocks claimed in a real 3-member etcd (ipam/block_claim.h):
# nodes claiming at once never get one block twice, a node sees only its
# own blocks, a full pool says so, a release gives a block back, a node
# whose lease expires (gone, or paused past its TTL) loses its blocks to
# the pool and, back, does not hold them any more; its keep-alive says so.
# etcd faults: a member down changes nothing, all down is "try again later".
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"
. "$RN_SRC/selftests/ipam/lib/ipam_check.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

cat >"$DIR/config.json" <<EOF
{ "node": "n1", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 3 },
  "pools": [ { "name": "wide", "subnet": "10.70.0.0/22", "block": 28 },
             { "name": "small", "subnet": "10.71.0.0/24", "ips": ["10.71.0.1-10.71.0.40"],
               "block": 27 },
             { "name": "v6", "subnet": "fd00:70::/64", "block": 120 } ] }
EOF
blocks() { "$RN_BUILD/tools/ipam_blocks" "$DIR/config.json" "$@"; }
q() { "$@" >/dev/null; }

# --- 8 nodes claim 4 blocks each at once ----------------------------------------
pids=()
for n in 1 2 3 4 5 6 7 8; do
	blocks "c$n" claim wide 4 >"$DIR/claims-$n" 2>"$DIR/claims-$n.err" &
	pids+=($!)
done
wait "${pids[@]}"
check_eq "8 nodes x 4 claims at once: 32 blocks claimed" "$(cat "$DIR"/claims-? | wc -l)" 32
check_eq "no block claimed twice" "$(cat "$DIR"/claims-? | sort | uniq -d | wc -l)" 0
blocks any all wide | awk '{print $1, $2}' | sort >"$DIR/all"
check_eq "etcd holds exactly the claimed blocks" "$(cat "$DIR"/claims-? | sort)" "$(cat "$DIR/all")"
ok=1
for n in 1 2 3 4 5 6 7 8; do
	[ "$(blocks "c$n" list wide | sort)" = "$(sort "$DIR/claims-$n")" ] || ok=0
done
check_eq "each node lists exactly its own blocks" "$ok" 1
check_eq "blocks are aligned /28s of the subnet" \
	"$(awk '{split($2, a, "[./]"); if (a[4] % 16 || a[5] != 28 || a[1] != 10 || a[2] != 70) print}' \
	"$DIR/all")" ""
check_eq "one lease per node, shared by its processes" \
	"$(blocks c1 lease | cut -d' ' -f1)" "$(blocks c1 lease | cut -d' ' -f1)"

# --- a full pool, a release ---------------------------------------------------------
check_eq "a pool of 40 addresses has two /27 blocks with addresses" \
	"$(blocks n1 claim small 2)" "small 10.71.0.0/27
small 10.71.0.32/27"
blocks n2 claim small >/dev/null 2>"$DIR/err"
check_eq "the next claim: exit 3, naming the pool" \
	"$? $(grep -c 'pool "small": every /27 block is claimed' "$DIR/err")" "3 1"
check "n2 does not hold n1's block" bash -c "! '$RN_BUILD/tools/ipam_blocks' \
	'$DIR/config.json' n2 owned small 10.71.0.0/27"
check "n1 holds it" blocks n1 owned small 10.71.0.0/27
check "n1 releases it" blocks n1 release small 10.71.0.0/27
check "a second release finds nothing" bash -c "! '$RN_BUILD/tools/ipam_blocks' \
	'$DIR/config.json' n1 release small 10.71.0.0/27"
check_eq "n2 claims the released block" "$(blocks n2 claim small)" "small 10.71.0.0/27"
check_eq "IPv6 blocks" "$(blocks n1 claim v6 2)" "v6 fd00:70::/120
v6 fd00:70::100/120"

# --- a pool switched to blocks with live per-allocation addresses ------------------
jq '.pools = [ { "name": "mig", "subnet": "10.72.0.0/24" } ]' "$DIR/config.json" \
	>"$DIR/per-alloc.json"
jq '.pools += [ { "name": "mig", "subnet": "10.72.0.0/24", "block": 28 } ]' "$DIR/config.json" \
	>"$DIR/mig.json"
"$RN_BUILD/bin/rdmanetctl" -c "$DIR/per-alloc.json" ip allocate --container-id old \
	--ifname net1 --pool mig >/dev/null
check_eq "a block holding a live per-allocation address is not claimed: the next one is" \
	"$("$RN_BUILD/tools/ipam_blocks" "$DIR/mig.json" n1 claim mig)" "mig 10.72.0.16/28"
"$RN_BUILD/bin/rdmanetctl" -c "$DIR/per-alloc.json" ip release --container-id old \
	--ifname net1 >/dev/null
check_eq "released, its block is free to claim" \
	"$("$RN_BUILD/tools/ipam_blocks" "$DIR/mig.json" n1 claim mig)" "mig 10.72.0.0/28"

# --- a node that goes away past its lease ------------------------------------------
ttl=$(blocks gone lease 2 | cut -d' ' -f2)
check_range "a short lease granted (s)" "$ttl" 1 5
gone_block=$(blocks gone claim v6 1 | cut -d' ' -f2)
check "the gone node holds $gone_block" blocks gone owned v6 "$gone_block"
# a node that keeps its lease alive (an agent) is paused past the TTL, as a
# partition would hold it
blocks paused claim v6 1 2 >"$DIR/paused-claim"
"$RN_BUILD/tools/ipam_blocks" "$DIR/config.json" paused hold 2 >"$DIR/hold.out" \
	2>"$DIR/hold.err" &
hold=$!
for _ in $(seq 100); do grep -q held "$DIR/hold.out" && break; sleep 0.1; done
kill -STOP $hold
gone_wait() {	# until no block of $1 is left (etcd expired the lease), 30 s at most
	for _ in $(seq 300); do
		blocks any all v6 | grep -q " $1\$" || return 0
		sleep 0.1
	done
	return 1
}
check "the gone node's blocks come back to the pool when its lease expires" gone_wait gone
check "so do the paused node's" gone_wait paused
kill -CONT $hold
wait $hold
check_eq "the paused node's keep-alive finds its lease gone and says so" \
	"$? $(grep -c 'expired: every block bound to it is lost' "$DIR/hold.err")" "1 1"
check_eq "another node claims the first free block: the gone node's" \
	"$(blocks n3 claim v6 | cut -d' ' -f2)" "$gone_block"
check "back, the gone node does not hold it (a new lease)" bash -c "! '$RN_BUILD/tools/ipam_blocks' \
	'$DIR/config.json' gone owned v6 '$gone_block'"
check_eq "nor anything else" "$(blocks gone list)" ""

# --- revoke -------------------------------------------------------------------------
blocks c1 revoke
check_eq "a revoked lease takes every block of the node with it" \
	"$(blocks any all wide | grep -c ' c1$')" 0
check_eq "other nodes' blocks stay" "$(blocks any all wide | wc -l)" 28

# --- etcd faults --------------------------------------------------------------------
leader=$(etcd_leader)
etcd_member_kill "$leader"
check "the leader down: a claim still works" q blocks n4 claim wide
etcd_member_kill 1; etcd_member_kill 2; etcd_member_kill 3
expect_try_later "every member down: a claim" 1000 6000 blocks n4 claim wide
for i in 1 2 3; do etcd_member_start $i; done
etcd_wait_healthy 30 >/dev/null
check "members back: claims work again" q blocks n4 claim wide
check_eq "still no block twice" "$(blocks any all | awk '{print $1, $2}' | sort | uniq -d)" ""
tap_done
