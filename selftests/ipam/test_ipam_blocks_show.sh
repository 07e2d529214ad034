#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# `rdmanetctl ip show` on a node, with the node's own config (the etcd
# store, block pools), finds the addresses that node handed out of its
# blocks: they are in its own store (ipam.path), not in etcd. ip show opens
# the store read-only, and a read-only handle looked in etcd alone, so an
# operator on the node was told that a pod's interface "holds no address"
# and that its address was free (found by selftests/vm/test_two_nodes.sh).
# Another node's show still knows only what etcd has (published records),
# and a show on a node with no store yet creates none. `ip release IP`
# frees a block address from the node's store.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks-show
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

config() {	# config NODE: the node's config, its store in DIR/NODE.db
	cat >"$DIR/$1.json" <<EOF
{ "node": "$1", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 2,
            "path": "$DIR/$1.db", "block_lease_s": 3600 },
  "pools": [ { "name": "r1", "subnet": "10.81.0.0/24", "block": 29 } ] }
EOF
}
config n1
config n2
CTL=$RN_BUILD/bin/rdmanetctl
show() { local n=$1; shift; "$CTL" -c "$DIR/$n.json" ip show "$@"; }

a1=$("$CTL" -c "$DIR/n1.json" ip allocate --container-id c1 --ifname net1 --pool r1 \
	--namespace team --pod p1 -j | jq -r '.ips[0].address | sub("/.*"; "")')
check "n1 allocates from its block" test -n "$a1"

check_eq "ip show --container-id on n1: the address its store holds, under its pod and node" \
	"$(show n1 --container-id c1 --ifname net1 -j | jq -r '.allocations[] | "\(.ip) \(.pool) \(.pod) \(.node)"')" \
	"$a1 r1 p1 n1"
check_eq "ip show IP on n1: its holder" \
	"$(show n1 "$a1" -j | jq -r '.allocations[] | "\(.container_id) \(.ifname)"')" "c1 net1"
check "... and in text, not \"free\"" bash -c '"$0" -c "$1" ip show "$2" | grep -q "^$2 pool r1 container c1 ifname net1"' \
	"$CTL" "$DIR/n1.json" "$a1"
check_eq "ip show --container-id of an interface holding nothing: nothing" \
	"$(show n1 --container-id c9 --ifname net1 -j | jq -c .allocations)" "[]"

# n2: no store of its own yet, and n1 published nothing (no agent here)
check_eq "ip show IP on n2: not in n2's store, nothing published: no holder" \
	"$(show n2 "$a1" -j | jq -c '[.allocations, .published]')" "[[],[]]"
check "... and the read-only show created no store for n2" test ! -e "$DIR/n2.db"
# ip release IP, as an operator frees an address by hand: a block address
# is in the node's store, not in etcd (it released nothing before)
a2=$("$CTL" -c "$DIR/n1.json" ip allocate --container-id c2 --ifname net1 --pool r1 \
	--namespace team --pod p2 -j | jq -r '.ips[0].address | sub("/.*"; "")')
check_eq "ip release IP on n1 frees a block address (pool found in the node's store)" \
	"$("$CTL" -c "$DIR/n1.json" ip release "$a2" -j | jq .released):$(show n1 "$a2" -j | jq '.allocations | length')" \
	"1:0"
a3=$("$CTL" -c "$DIR/n1.json" ip allocate --container-id c3 --ifname net1 --pool r1 -j |
	jq -r '.ips[0].address | sub("/.*"; "")')
check_eq "... with --pool too" \
	"$("$CTL" -c "$DIR/n1.json" ip release "$a3" --pool r1 -j | jq .released)" 1
check_eq "the release by DEL's path still finds it (ip release --container-id)" \
	"$("$CTL" -c "$DIR/n1.json" ip release --container-id c1 --ifname net1 >/dev/null &&
		show n1 --container-id c1 --ifname net1 -j | jq -c .allocations)" "[]"
tap_done
