#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What each node holds in its blocks, published lazily to etcd by its
# agent's tick (ipam/block_publish.h), against a real 3-member etcd with two
# nodes (two stores): before a tick nothing is published; after it,
# `rdmanetctl pool show` and `ip show` on one node name the other node's
# holders; a DEL shows there after the holder's next tick (not before: the
# record is a report, as old as that tick); a block given back and a lease
# revoked take the node's records with them.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"
. "$RN_SRC/selftests/ipam/lib/ipam_check.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks-publish
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

for n in n1 n2; do
	cat >"$DIR/$n.json" <<EOF2
{ "node": "$n", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 3,
            "path": "$DIR/$n.db", "block_lease_s": 3600 },
  "pools": [ { "name": "r1", "subnet": "10.84.0.0/24", "block": 29 } ] }
EOF2
done
CTL=$RN_BUILD/bin/rdmanetctl
BLK=$RN_BUILD/tools/ipam_blocks
alloc() { "$CTL" -c "$DIR/$1.json" ip allocate --container-id "$2" --ifname net1 --pool r1 -j |
	jq -r '.ips[0].address // .ips[0].ip // empty' | cut -d/ -f1; }
tick() { "$BLK" "$DIR/$1.json" "$1" tick 50 600000 >/dev/null; }
published() {	# NODE: "IP NODE CONTAINER" of pool show's published records, sorted
	"$CTL" -c "$DIR/$1.json" pool show r1 -j |
		jq -r '.published[] | "\(.ip) \(.node) \(.container_id)"' | sort
}

for i in 1 2 3; do alloc n1 "a$i" >"$DIR/a$i.ip"; done
for i in 1 2; do alloc n2 "b$i" >/dev/null; done
a1=$(cat "$DIR/a1.ip")
check "n1's first address is known ($a1)" test -n "$a1"
check_eq "before a tick nothing is published" "$(published n2)" ""
tick n1
tick n2
check_eq "after the ticks: n2's pool show names n1's 3 holders and its own 2" \
	"$(published n2 | awk '{print $2}' | sort | uniq -c | xargs)" "3 n1 2 n2"
check_eq "... the same on n1" "$(published n1)" "$(published n2)"
check_eq "n2's ip show of n1's address: n1's holder, as published" \
	"$("$CTL" -c "$DIR/n2.json" ip show "$a1" -j | jq -r '.published[] | "\(.node) \(.container_id) \(.published_at != null)"')" \
	"n1 a1 true"
check "... and in text" bash -c '"$0" -c "$1" ip show "$2" | grep -q "published by node n1"' \
	"$CTL" "$DIR/n2.json" "$a1"
"$CTL" -c "$DIR/n1.json" ip release --container-id a1 --ifname net1 >/dev/null
check_eq "a DEL on n1: n2 still sees the old record until n1's next tick" \
	"$(published n2 | grep -c " a1$")" 1
tick n1
check_eq "after it, a1 is gone from the records" "$(published n2 | grep -c " a1$")" 0
check_eq "... n1's other two stay" "$(published n2 | grep -c ' n1 ')" 2
b2=$("$BLK" "$DIR/n2.json" n2 list r1 | cut -d' ' -f2)
"$BLK" "$DIR/n2.json" n2 release r1 "$b2"
check_eq "a block given back ($b2) takes its record with it" \
	"$(published n1 | grep -c ' n2 ')" 0
"$BLK" "$DIR/n1.json" n1 revoke
check_eq "n1's lease revoked: its records go with its blocks" "$(published n2)" ""
tap_done
