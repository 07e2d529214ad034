#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Allocation from block pools (ipam/block_alloc.h) against a real 3-member
# etcd: two nodes allocating at once hand out no address twice, each from
# the blocks etcd says it holds; with every etcd member down a node goes on
# allocating and releasing inside its blocks while its lease is known valid,
# and past that answers "try again later", never an address; a node whose
# lease expired in the outage holds none of its old blocks once back, and
# the other node may take them: still no address twice.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"
. "$RN_SRC/selftests/ipam/lib/ipam_check.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks-alloc
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

# config NODE LEASE_S: the node's view (its own local store)
config() {
	cat >"$DIR/$1.json" <<EOF
{ "node": "$1", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 2,
            "path": "$DIR/$1.db", "block_lease_s": $2 },
  "pools": [ { "name": "r1", "subnet": "10.80.0.0/24", "block": 29 } ] }
EOF
	# the node's store read as a SQLite store: what it holds
	echo "{ \"node\": \"$1\", \"ipam\": { \"path\": \"$DIR/$1.db\" } }" >"$DIR/$1-local.json"
}
config n1 3600
config n2 3600
config short 4
CTL=$RN_BUILD/bin/rdmanetctl
q() { "$@" >/dev/null; }
alloc() { "$CTL" -c "$DIR/$1.json" ip allocate --container-id "$2" --ifname net1 --pool r1; }
held() {	# NODE: the addresses its store holds, one a line
	"$CTL" -c "$DIR/$1-local.json" pool show r1 -j | jq -r '.allocations[].ip'
}
in_blocks() {	# NODE: every address it holds lies in a block etcd says is its own
	local blocks ip
	blocks=$("$RN_BUILD/tools/ipam_blocks" "$DIR/$1.json" any all r1 | awk -v n="$1" '$3 == n {print $2}')
	for ip in $(held "$1"); do
		python3 -c 'import ipaddress, sys
ip = ipaddress.ip_address(sys.argv[1])
sys.exit(0 if any(ip in ipaddress.ip_network(b) for b in sys.argv[2:]) else 1)' "$ip" $blocks || return 1
	done
}

# --- two nodes at once --------------------------------------------------------------
pids=()
for n in n1 n2; do
	for p in 1 2 3; do
		( for i in 1 2 3 4 5 6; do alloc $n "$n-p$p-$i" >/dev/null || echo fail; done ) \
			>"$DIR/$n-$p.out" 2>&1 &
		pids+=($!)
	done
done
wait "${pids[@]}"
check_eq "2 nodes x 3 processes x 6 ADDs: every one succeeded" "$(cat "$DIR"/n?-?.out)" ""
check_eq "36 addresses held" "$( (held n1; held n2) | wc -l)" 36
check_eq "no address held twice across the nodes" "$( (held n1; held n2) | sort | uniq -d)" ""
check "n1's addresses lie in n1's blocks" in_blocks n1
check "n2's addresses lie in n2's blocks" in_blocks n2
check_eq "an ADD again for the same attachment gets the same address" \
	"$(alloc n1 n1-p1-1)" "$(alloc n1 n1-p1-1)"

# --- the agent's tick: a reserve before the outage ----------------------------------------
tick() { "$RN_BUILD/tools/ipam_blocks" "$DIR/$1.json" "$1" tick "$2" "$3"; }
# (a reserve of one block: at least 8 addresses free in n1's blocks after it)
before=$("$RN_BUILD/tools/ipam_blocks" "$DIR/n1.json" any all r1 | grep -c ' n1$')
claimed=$(tick n1 100 60000)
check_range "a tick claims the reserve if it is missing" "$claimed" 0 1
check_eq "etcd has it" "$("$RN_BUILD/tools/ipam_blocks" "$DIR/n1.json" any all r1 |
	grep -c ' n1$')" $((before + claimed))
q0=$(etcd_requests Range)
check_eq "the next tick claims nothing" "$(tick n1 100 60000)" 0
q1=$(etcd_requests Range)
# its lease kept alive keeps its blocks: no read of every claimed block;
# and one count finds no per-allocation address to adopt in any pool
check_eq "... and reads etcd once (the per-allocation count)" "$((q1 - q0))" 1
check "the ADDs' view has it: in n1's blocks" in_blocks n1

# --- every member down ------------------------------------------------------------------
alloc short s-1 >/dev/null
etcd_member_kill 1; etcd_member_kill 2; etcd_member_kill 3
ok=1
for i in 1 2 3 4 5 6 7 8; do alloc n1 "n1-out-$i" >/dev/null || ok=0; done
check_eq "etcd down: 8 more ADDs on n1 succeed (room in its blocks, lease valid)" "$ok" 1
check_eq "n1 holds 26 addresses" "$(held n1 | wc -l)" 26
check "etcd down: a release (DEL) works" q "$CTL" -c "$DIR/n1.json" ip release \
	--container-id n1-out-1 --ifname net1
# the short lease's node: past its bound it cannot tell its blocks are its own
for _ in $(seq 100); do alloc short "s-wait" >/dev/null 2>&1 || break; \
	"$CTL" -c "$DIR/short.json" ip release --container-id s-wait --ifname net1 >/dev/null; sleep 0.1; done
expect_try_later "etcd down past the lease: ADD" 0 8000 alloc short s-2
check_eq "and nothing was handed out" "$(held short | wc -l)" 1
for i in 1 2 3; do etcd_member_start $i; done
etcd_wait_healthy 30 >/dev/null
check "the outage's addresses lie in n1's blocks" in_blocks n1

# --- back: the short node's lease expired, its blocks are gone ----------------------------
gone() {
	for _ in $(seq 300); do
		"$RN_BUILD/tools/ipam_blocks" "$DIR/n1.json" any all r1 | grep -q ' short$' || return 0
		sleep 0.1
	done
	return 1
}
check "etcd back: the short node's blocks came back to the pool" gone
old=$(held short)
# n2 takes every free block first
while "$RN_BUILD/tools/ipam_blocks" "$DIR/n2.json" n2 claim r1 >/dev/null 2>&1; do :; done
check "n2 took the short node's old block" bash -c "'$RN_BUILD/tools/ipam_blocks' \
	'$DIR/n2.json' any all r1 | grep -q ' n2\$'"
alloc short s-3 >/dev/null 2>"$DIR/short.err"
check_eq "the returning node hands out nothing from the block it lost: the pool is full" \
	"$? $(grep -c 'every /29 block is claimed' "$DIR/short.err")" "1 1"
check_eq "its old allocation stays on its disk until its DEL" "$(held short)" "$old"

if command -v valgrind >/dev/null; then
	vg() { valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite "$@" >/dev/null 2>>"$DIR/vg.log"; }
	ok=1
	vg "$CTL" -c "$DIR/n1.json" ip allocate --container-id vg1 --ifname net1 --pool r1 || ok=0
	vg "$CTL" -c "$DIR/n1.json" ip release --container-id vg1 --ifname net1 || ok=0
	vg "$RN_BUILD/tools/ipam_blocks" "$DIR/n1.json" n1 tick 100 0 || ok=0
	check_eq "ADD, DEL and a tick under valgrind: no memory error, no leak" "$ok" 1
	[ $ok = 1 ] || sed 's/^/# /' "$DIR/vg.log" | head -30
fi
tap_done
