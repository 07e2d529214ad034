#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The operator's view of the blocks (rn_block_report, ipam/block_report.h)
# against a real 3-member etcd: every claimed block with its holder and
# lease as etcd has them, and the addresses this node's store holds in
# each of its own blocks (another node's block: "-"); a pool filter;
# `rdmanetctl pool show` prints it; an etcd that does not answer is "try
# again later", not an empty list.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks-report
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

for n in n1 n2; do
	cat >"$DIR/$n.json" <<EOF
{ "node": "$n", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 2,
            "path": "$DIR/$n.db", "block_lease_s": 3600 },
  "pools": [ { "name": "r1", "subnet": "10.81.0.0/24", "block": 29 },
             { "name": "r2", "subnet": "fd00:81::/64", "block": 124 } ] }
EOF
done
CTL=$RN_BUILD/bin/rdmanetctl
BLK=$RN_BUILD/tools/ipam_blocks
alloc() { "$CTL" -c "$DIR/$1.json" ip allocate --container-id "$2" --ifname net1 --pool "$3" >/dev/null; }

check_eq "no block claimed: an empty report" "$("$BLK" "$DIR/n1.json" n1 report)" ""
for i in 1 2 3; do alloc n1 "a$i" r1; done
for i in $(seq 1 10); do alloc n2 "b$i" r1; done
alloc n2 v6 r2
l1=$("$BLK" "$DIR/n1.json" n1 lease | cut -d' ' -f1)
l2=$("$BLK" "$DIR/n2.json" n2 lease | cut -d' ' -f1)
# where the blocks are depends on the nodes' names (block_pick.h): what
# etcd lists is the truth the report must match
b1=$("$BLK" "$DIR/n1.json" any all r1 | awk '$3 == "n1" {print $2}')
b2=$("$BLK" "$DIR/n1.json" any all r1 | awk '$3 == "n2" {print $2}' | head -1)
expected() {	# the report for node $1: every block; usage "-" in others' blocks
	"$BLK" "$DIR/n1.json" any all | while read -r pool block holder; do
		lease=$l1; [ "$holder" = n2 ] && lease=$l2
		echo "$pool $block $holder $lease"
	done
}
check_eq "n1 holds one r1 block, n2 two r1 and one r2" \
	"$("$BLK" "$DIR/n1.json" any all | awk '{print $1, $3}' | sort | uniq -c | xargs)" \
	"1 r1 n1 2 r1 n2 1 r2 n2"
check_eq "n1's view: every block, its holder and lease" \
	"$("$BLK" "$DIR/n1.json" n1 report | cut -d' ' -f1-4)" "$(expected)"
check_eq "... n1's usage in its own (3 of 8), - in n2's" \
	"$("$BLK" "$DIR/n1.json" n1 report | awk '{print $3, $5}' | sort -u | xargs)" \
	"n1 3/8 n2 -/16 n2 -/8"
check_eq "n2's view: its usage in its blocks (10 in r1, 1 in r2), - in n1's" \
	"$("$BLK" "$DIR/n2.json" n2 report | awk '$3 == "n1" {print $5} $3 == "n2" {split($5, u, "/"); s[$1] += u[1]} END {print s["r1"], s["r2"]}' | xargs)" \
	"-/8 10 1"
"$CTL" -c "$DIR/n2.json" ip release --container-id b10 --ifname net1 >/dev/null
check_eq "a release shows at once on the node" \
	"$("$BLK" "$DIR/n2.json" n2 report r1 | awk '$3 == "n2" {split($5, u, "/"); s += u[1]} END {print s}')" 9
check_eq "a pool filter: only that pool's blocks" \
	"$("$BLK" "$DIR/n1.json" n1 report r2 | cut -d' ' -f1,3)" "r2 n2"
sed 's/"n2"/"n3"/; s#n2.db#n3.db#' "$DIR/n2.json" >"$DIR/n3.json"
check_eq "a node without a store yet: every block another's" \
	"$("$BLK" "$DIR/n3.json" n3 report | awk '{print $5}' | sort -u | xargs)" "-/16 -/8"
check "... and its report created no store" test ! -e "$DIR/n3.db"

# rdmanetctl pool show: the same, per pool
check_eq "pool show -j: the pool's blocks, holders, leases, this node's usage" \
	"$("$CTL" -c "$DIR/n1.json" pool show r1 -j |
		jq -r '.blocks[] | "\(.block) \(.node) \(.lease) \(.used_here // "-")/\(.size)"' | xargs)" \
	"$("$BLK" "$DIR/n1.json" n1 report r1 | cut -d' ' -f2- | xargs)"
out=$("$CTL" -c "$DIR/n1.json" pool show r1)
check "pool show: a block table after the allocations" grep -q '^BLOCK  *NODE  *LEASE  *USED HERE' <<<"$out"
check "... n1's block with its usage, n2's with -" \
	bash -c 'grep -Eq "^${3//./\\.} +n1 +$1 +3 of 8$" <<<"$0" &&
		grep -Eq "^${4//./\\.} +n2 +$2 +- of 8$" <<<"$0"' "$out" "$l1" "$l2" "$b1" "$b2"
echo "{ \"node\": \"n1\", \"ipam\": { \"path\": \"$DIR/n1.db\" } }" >"$DIR/n1-local.json"
check_eq "the node's own store (SQLite) shows its allocations, no blocks" \
	"$("$CTL" -c "$DIR/n1-local.json" pool show r1 -j | jq -c '[has("blocks"), (.allocations | length)]')" \
	"[false,3]"

etcd_cluster_stop
"$BLK" "$DIR/n1.json" n1 report >"$DIR/down.out" 2>"$DIR/down.err"
rc=$?
check_eq "etcd down: try again later (75), nothing listed" "$rc $(wc -c <"$DIR/down.out")" "75 0"
tap_done
