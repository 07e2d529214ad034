#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Per-node blocks claimed in a real 3-member etcd (ipam/block_claim.h):
# nodes claiming at once never get one block twice, a claim reads a bounded
# window of claimed blocks near its node's start, a node sees only its
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
             { "name": "v6", "subnet": "fd00:70::/64", "block": 120 },
             { "name": "crowd", "subnet": "10.74.0.0/16", "block": 28 },
             { "name": "tiny", "subnet": "10.73.0.0/24", "ips": ["10.73.0.1-10.73.0.14"],
               "block": 28 } ] }
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

# --- a claim reads a window near its node's start, not the whole pool --------------
# 200 blocks of a 4,096-block pool claimed by one node; another node's claim
# then reads at most one window of claimed keys (32) in 3 requests (window,
# the block's per-allocation count, the claim), not every claimed key
q blocks filler claim crowd 200
check_eq "200 blocks claimed" "$(blocks any all crowd | wc -l)" 200
read -r _ cblock creq ckeys <<<"$(blocks newcomer claim-cost crowd)"
check_eq "a claim among 200 claimed blocks: 3 etcd requests, at most 32 keys read ($ckeys)" \
	"$creq $((ckeys <= 32))" "3 1"
check "... the block is newcomer's, in the pool, held once" bash -c '
	"$0" "$1" newcomer owned crowd "$2" && [[ $2 == 10.74.*/28 ]] &&
	[ "$("$0" "$1" any all crowd | grep -c " $2 ")" = 1 ]' \
	"$RN_BUILD/tools/ipam_blocks" "$DIR/config.json" "$cblock"

# --- a full pool, a release ---------------------------------------------------------
check_eq "a pool of 40 addresses has two /27 blocks with addresses" \
	"$(blocks n1 claim small 2 | sort)" "small 10.71.0.0/27
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
v6=$(blocks n1 claim v6 2)
v6_ok() {	# two /120s of fd00:70::/64, aligned, distinct, n1's
	python3 -c 'import ipaddress, sys
bs = [ipaddress.ip_network(l.split()[1]) for l in sys.argv[1].splitlines()]
pool = ipaddress.ip_network("fd00:70::/64")
sys.exit(0 if len(bs) == 2 == len(set(bs)) and
	 all(b.prefixlen == 120 and b.subnet_of(pool) for b in bs) else 1)' "$v6" || return 1
	for b in $(cut -d' ' -f2 <<<"$v6"); do blocks n1 owned v6 "$b" || return 1; done
}
check "IPv6 blocks: two distinct /120s of the pool, n1's ($(xargs <<<"$v6"))" v6_ok

# --- a pool switched to blocks with live per-allocation addresses ------------------
jq '.pools = [ { "name": "mig", "subnet": "10.72.0.0/24" } ]' "$DIR/config.json" \
	>"$DIR/per-alloc.json"
jq '.pools += [ { "name": "mig", "subnet": "10.72.0.0/24", "block": 28 } ]' "$DIR/config.json" \
	>"$DIR/mig.json"
"$RN_BUILD/bin/rdmanetctl" -c "$DIR/per-alloc.json" ip allocate --container-id old \
	--ifname net1 --pool mig >/dev/null
"$RN_BUILD/tools/ipam_blocks" "$DIR/mig.json" n1 claim mig 16 >"$DIR/mig" 2>"$DIR/mig.err"
check_eq "a block holding a live per-allocation address is not claimed: 15 of 16, then full" \
	"$? $(wc -l <"$DIR/mig") $(grep -c '^mig 10\.72\.0\.0/28$' "$DIR/mig")" "3 15 0"
"$RN_BUILD/bin/rdmanetctl" -c "$DIR/per-alloc.json" ip release --container-id old \
	--ifname net1 >/dev/null
check_eq "released, its block is free to claim" \
	"$("$RN_BUILD/tools/ipam_blocks" "$DIR/mig.json" n1 claim mig)" "mig 10.72.0.0/28"

# --- a node that goes away past its lease ------------------------------------------
ttl=$(blocks gone lease 2 | cut -d' ' -f2)
check_range "a short lease granted (s)" "$ttl" 1 5
# tiny has one block: whoever claims it next takes the gone node's
gone_block=$(blocks gone claim tiny 1 | cut -d' ' -f2)
check "the gone node holds $gone_block" blocks gone owned tiny "$gone_block"
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
		blocks any all | grep -q " $1\$" || return 0
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
check_eq "another node claims the gone node's block" \
	"$(blocks n3 claim tiny | cut -d' ' -f2)" "$gone_block"
check "back, the gone node does not hold it (a new lease)" bash -c "! '$RN_BUILD/tools/ipam_blocks' \
	'$DIR/config.json' gone owned tiny '$gone_block'"
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
