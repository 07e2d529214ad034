#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# "deployment": "cluster": a config that reaches several nodes cannot carry
# a pool that two nodes would allocate from on their own (the node-local
# SQLite store, no single node): every reader refuses it naming the pool
# and the way out; per-node pools and the etcd store pass; a one-node
# config (no "deployment") is as before. rdmanetd --cluster refuses a
# config that does not say "cluster".
set -u
. "$RN_SRC/selftests/lib/tap.sh"

CTL=$RN_BUILD/bin/rdmanetctl
AGENT=$RN_BUILD/bin/rdmanetd
DIR=$(mktemp -d "/tmp/rn-ipam-cluster-$$-XXXXXX")
trap 'rm -rf "$DIR"' EXIT

# cfg NAME DEPLOYMENT STORE POOL_EXTRA: a config with one rail pool
cfg() {
	local dep=""
	[ -n "$2" ] && dep="\"deployment\": \"$2\","
	cat >"$DIR/$1.json" <<EOF
{ "node": "w1", $dep "ipam": $3,
  "pools": [ { "name": "rail1-v4", "subnet": "172.16.11.0/24", "gateway": "172.16.11.254",
               "masters": ["ens6f0np0"] $4 } ] }
EOF
}
q() { "$@" >/dev/null; }
SQLITE="{ \"path\": \"$DIR/ipam.db\" }"
ETCD='{ "store": "etcd", "endpoints": ["http://127.0.0.1:1"], "timeout_s": 1 }'

# fails_with WHAT NEEDLE... -- CMD: non-zero, one line on stderr holding every needle
fails_with() {
	local what=$1 rc n
	shift
	local needles=()
	while [ "$1" != -- ]; do needles+=("$1"); shift; done
	shift
	"$@" >"$DIR/out" 2>"$DIR/err"
	rc=$?
	for n in "${needles[@]}"; do
		grep -qF -- "$n" "$DIR/err" || rc=0
	done
	if [ $rc != 0 ] && [ "$(wc -l <"$DIR/err")" = 1 ]; then
		tap_ok "$what"
	else
		tap_fail "$what: rc=$rc stderr: $(cat "$DIR/err")"
	fi
}

# --- refused: every node would allocate from one range on its own ---------------
cfg shared cluster "$SQLITE" ""
fails_with "cluster + sqlite + no nodes: rdmanetd --check-config refuses, naming the pool and the ways out" \
	'pools[0]' 'pool "rail1-v4"' 'every node' '"nodes": ["<node>"]' '"store": "etcd"' -- \
	"$AGENT" --check-config -c "$DIR/shared.json"
fails_with "rdmanetctl refuses the same config" 'pool "rail1-v4"' -- \
	"$CTL" -c "$DIR/shared.json" pool sync
check_eq "nothing was created" "$(ls -A "$DIR" | grep -c ipam.db)" 0
cfg two cluster "$SQLITE" ', "nodes": ["w1", "w2"]'
fails_with "two nodes on one pool are refused too" 'pool "rail1-v4"' 'its 2 nodes' -- \
	"$AGENT" --check-config -c "$DIR/two.json"
# the CNI plugin reads the same file: its ADD fails (code 7; the reason goes
# to the node's log, not to the tenant's runtime), no address
cat >"$DIR/net.json" <<EOF
{ "cniVersion": "1.1.0", "name": "rail1", "type": "rdmanet", "master": "ens6f0np0",
  "ippools": { "ipv4": ["rail1-v4"] } }
EOF
RDMANET_CONFIG=$DIR/shared.json CNI_COMMAND=ADD CNI_CONTAINERID=c1 CNI_NETNS=/proc/self/ns/net \
	CNI_IFNAME=net1 CNI_PATH=/nonexistent "$RN_BUILD/bin/rdmanet" <"$DIR/net.json" \
	>"$DIR/cni.out" 2>"$DIR/cni.err"
check_eq "CNI ADD under the refused config: code 7, the plugin's log names the pool" \
	"$(jq .code "$DIR/cni.out") $(grep -c 'pool "rail1-v4": every node' "$DIR/cni.err")" "7 1"
check_eq "and no store, no address" "$(ls -A "$DIR" | grep -c ipam.db)" 0

# --- accepted ---------------------------------------------------------------------
cfg pernode cluster "$SQLITE" ', "nodes": ["w1"]'
check "cluster + sqlite + one node per pool (a subnet per node) is accepted" \
	q "$AGENT" --check-config -c "$DIR/pernode.json"
cfg etcd cluster "$ETCD" ""
check "cluster + etcd (one store for the cluster) is accepted" \
	q "$AGENT" --check-config -c "$DIR/etcd.json"
cfg node "" "$SQLITE" ""
check "no \"deployment\" (one node, make demo): a shared pool is accepted as before" \
	q "$AGENT" --check-config -c "$DIR/node.json"
cfg nodeexplicit node "$SQLITE" ""
check "\"deployment\": \"node\" likewise" q "$AGENT" --check-config -c "$DIR/nodeexplicit.json"
fails_with "an unknown deployment is an error naming the key" 'deployment' -- \
	"$AGENT" --check-config -c <(jq '.deployment = "many"' "$DIR/node.json")

# --- rdmanetd --cluster: the config must say so -----------------------------------
fails_with "rdmanetd --cluster refuses a config without \"deployment\": \"cluster\"" \
	'--cluster' '"deployment": "cluster"' -- \
	"$AGENT" --check-config --cluster -c "$DIR/node.json"
check "rdmanetd --cluster takes a cluster config" \
	q "$AGENT" --check-config --cluster -c "$DIR/pernode.json"

# --- pools stored while the config was one node's ----------------------------------
"$CTL" -c "$DIR/node.json" pool sync >/dev/null
check "(one-node config) pool add of a shared pool" q "$CTL" -c "$DIR/node.json" pool add \
	rail2-v4 --subnet 172.16.12.0/24 --master ens6f1np1
cfg clusterrail2 cluster "$SQLITE" ', "nodes": ["w1"]'
fails_with "cluster config: allocating from a stored shared pool is refused" \
	'pool "rail2-v4"' 'every node' -- \
	"$CTL" -c "$DIR/clusterrail2.json" ip allocate --container-id c1 --ifname net1 \
	--pool rail2-v4
check_eq "and nothing was allocated" \
	"$("$CTL" -c "$DIR/clusterrail2.json" pool show rail2-v4 -j | jq .allocated)" 0
fails_with "cluster config: pool add of a shared pool is refused" 'pool "rail3-v4"' -- \
	"$CTL" -c "$DIR/clusterrail2.json" pool add rail3-v4 --subnet 172.16.13.0/24
check_eq "and it was not stored" \
	"$("$CTL" -c "$DIR/clusterrail2.json" pool list -j | jq -c '[.pools[].name]')" \
	'["rail1-v4","rail2-v4"]'
check "cluster config: pool add of a one-node pool works" \
	q "$CTL" -c "$DIR/clusterrail2.json" pool add rail3-v4 --subnet 172.16.13.0/24 --node w1
check "and it allocates" q "$CTL" -c "$DIR/clusterrail2.json" ip allocate \
	--container-id c1 --ifname net1 --pool rail3-v4

# --- "block": per-node blocks of a pool (ipam/block_claim.h) -------------------------
check_eq "pool add --block: stored as given" "$("$CTL" -c "$DIR/node.json" pool add rail4-v4 \
	--subnet 172.16.14.0/24 --block 26 >/dev/null && "$CTL" -c "$DIR/node.json" pool show \
	rail4-v4 -j | jq .block)" 26
fails_with "a block wider than the subnet is refused, naming the key" '"rail5-v4").block' \
	'/20' -- "$CTL" -c "$DIR/node.json" pool add rail5-v4 --subnet 172.16.15.0/24 --block 20
fails_with "a block longer than the family's addresses too" '.block' '/33' -- \
	"$CTL" -c "$DIR/node.json" pool add rail5-v4 --subnet 172.16.15.0/24 --block 33
tap_done
