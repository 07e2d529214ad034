#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# rdmanetctl pool|ip on the SQLite store: every verb, JSON and table
# output, errors that are one clear line and change nothing, and the pool
# usage metrics of the agent's textfile (promtool-clean, values right).
set -u
. "$RN_SRC/selftests/lib/tap.sh"

CTL=$RN_BUILD/bin/rdmanetctl
DIR=$(mktemp -d "/tmp/rn-ipam-cli-$$-XXXXXX")
trap 'rm -rf "$DIR"' EXIT
cat >"$DIR/config.json" <<EOF
{ "node": "w1", "ipam": { "path": "$DIR/ipam.db" },
  "pools": [ { "name": "rail1", "subnet": "172.16.11.0/24", "ips": ["172.16.11.1-172.16.11.200"],
               "exclude": ["172.16.11.7"], "gateway": "172.16.11.254",
               "routes": [ { "dst": "172.16.0.0/16", "gw": "172.16.11.254" } ],
               "masters": ["ens6f0np0"] } ] }
EOF
ctl() { "$CTL" -c "$DIR/config.json" "$@"; }

# fails OK: exit status non-zero, exactly one line on stderr mentioning $2
fails_with() {
	local what=$1 needle=$2 rc
	shift 2
	"$@" >"$DIR/out" 2>"$DIR/err"
	rc=$?
	if [ $rc != 0 ] && [ "$(wc -l <"$DIR/err")" = 1 ] && grep -qF -- "$needle" "$DIR/err"; then
		tap_ok "$what"
	else
		tap_fail "$what: rc=$rc stderr: $(cat "$DIR/err")"
	fi
}

# the store's files as they are (the main file and its WAL; -shm is SQLite's
# shared-memory index, which readers use too)
store_state() {
	local f
	for f in "$DIR/ipam.db" "$DIR/ipam.db-wal"; do
		[ -e "$f" ] && echo "$f $(stat -c %y "$f") $(sha256sum <"$f")"
	done
}

# --- read verbs on a store that does not exist yet --------------------------------
fails_with "pool list without a store says so" "no IPAM store yet" ctl pool list
fails_with "pool list -j without a store says so" "no IPAM store yet" ctl pool list -j
fails_with "pool show without a store says so" "no IPAM store yet" ctl pool show rail1
fails_with "ip show without a store says so" "no IPAM store yet" ctl ip show 172.16.11.1
fails_with "pool check without a store says so" "no IPAM store yet" ctl pool check
fails_with "pool gc --dry-run without a store says so" "no IPAM store yet" \
	ctl pool gc --valid - --dry-run <<<'[]'
"$RN_BUILD/tools/ipam_textfile" "$DIR/config.json" >"$DIR/none.prom"
check_eq "textfile without a store: up, no pools" \
	"$(grep -v '^#' "$DIR/none.prom")" 'rdmanet_ipam_store_up{store="sqlite"} 1'
check_eq "read verbs left no file behind" "$(ls -A "$DIR" | grep ipam.db)" ""

# --- pools ----------------------------------------------------------------------
check_eq "pool sync creates the store with the config's pools" "$(ctl pool sync)" \
	"1 pool written to the store"
check_eq "config pool in the store" "$(ctl pool list -j | jq -r '.pools[0].name')" rail1
check_eq "usable addresses: 200 minus one exclude" \
	"$(ctl pool list -j | jq '.pools[0].total')" 199
check "pool list table" bash -c "'$CTL' -c '$DIR/config.json' pool list | grep -q '^rail1 .*config'"
check "pool add with flags" ctl pool add rail2 --subnet 172.16.12.0/24 --gateway 172.16.12.254 \
	--range 172.16.12.10-172.16.12.19 --exclude 172.16.12.15 --route 0.0.0.0/0,172.16.12.254 \
	--vlan 12 --master ens6f1np1 --node w1 --node w2
check_eq "pool add: stored as given" "$(ctl pool show rail2 -j |
	jq -c '{ips, exclude, vlan, nodes, total}')" \
	'{"ips":["172.16.12.10-172.16.12.19"],"exclude":["172.16.12.15"],"vlan":12,"nodes":["w1","w2"],"total":9}'
cat >"$DIR/v6.json" <<EOF
{ "name": "rail1-v6", "subnet": "fd00:11::/64", "gateway": "fd00:11::1", "masters": ["ens6f0np0"] }
EOF
check "pool add --file (IPv6)" ctl pool add --file "$DIR/v6.json"
check_eq "IPv6 /64 total saturates nowhere below 2^63" \
	"$(ctl pool show rail1-v6 -j | jq '.total >= 9223372036854775807')" true
before=$(ctl pool list -j | jq -c .)
fails_with "overlapping pool on the same master is rejected, naming both" \
	'pool "bad" overlaps pool "rail1"' ctl pool add bad --subnet 172.16.11.128/25 --master ens6f0np0
fails_with "host bits set is rejected with the fix" "did you mean 172.16.13.0/24" \
	ctl pool add bad --subnet 172.16.13.1/24
fails_with "range outside the subnet is rejected" "is outside the subnet" \
	ctl pool add bad --subnet 172.16.13.0/24 --range 172.16.14.1-172.16.14.9
fails_with "gateway outside the subnet is rejected" "gateway: \"10.0.0.1\" is outside" \
	ctl pool add bad --subnet 172.16.13.0/24 --gateway 10.0.0.1
fails_with "malformed CIDR is rejected" "is not a CIDR prefix" ctl pool add bad --subnet 172.16.13/24
fails_with "an empty usable set is rejected" "no usable address" \
	ctl pool add bad --subnet 172.16.13.4/32 --exclude 172.16.13.4
fails_with "an existing name is refused" 'pool "rail2" already exists' \
	ctl pool add rail2 --subnet 172.16.20.0/24
fails_with "unknown pool option" 'unexpected argument "--colour"' \
	ctl pool add x --subnet 172.16.21.0/24 --colour red
check_eq "rejected pools changed nothing" "$(ctl pool list -j | jq -c .)" "$before"

# --- addresses ----------------------------------------------------------------
a=$(ctl ip allocate --container-id c1 --ifname net1 --pool rail1 --pool rail1-v6 \
	--namespace ns1 --pod pod1 -j)
check_eq "ip allocate dual stack" "$(jq -r '[.ips[].address] | join(" ")' <<<"$a")" \
	"172.16.11.1/24 fd00:11::2/64"
check_eq "ip allocate is idempotent" "$(ctl ip allocate --container-id c1 --ifname net1 \
	--pool rail1 --pool rail1-v6 -j | jq -c .)" "$(jq -c . <<<"$a")"
for i in 2 3 4 5 6 7 8; do
	ctl ip allocate --container-id "c$i" --ifname net1 --pool rail1 --namespace ns1 \
		--pod "pod$i" >/dev/null
done
check_eq "the excluded address is skipped" \
	"$(ctl ip show 172.16.11.7 -j | jq -c '{a: (.allocations | length), pools}')" \
	'{"a":0,"pools":[]}'
check_eq "c7 got .8 (after .6, skipping .7)" \
	"$(ctl ip show --container-id c7 --ifname net1 -j | jq -r '.allocations[0].ip')" 172.16.11.8
check "ip show IP names the owner" bash -c \
	"'$CTL' -c '$DIR/config.json' ip show 172.16.11.3 | grep -q 'container c3 ifname net1 pod ns1/pod3 node w1'"
check "ip show of a free address names its pool" bash -c \
	"'$CTL' -c '$DIR/config.json' ip show 172.16.11.100 | grep -q 'is free (pool \[\"rail1\"\])'"
check "ip show of an address in no pool" bash -c \
	"'$CTL' -c '$DIR/config.json' ip show 10.99.0.1 | grep -q 'in no pool'"
show=$(ctl pool show rail1 -j)
check_eq "pool show: usage" "$(jq -c '{allocated, free}' <<<"$show")" '{"allocated":8,"free":191}'
check_eq "pool show: each allocation with its owner" \
	"$(jq -r '.allocations[2] | "\(.ip) \(.container_id) \(.ifname) \(.namespace)/\(.pod) \(.node)"' \
	<<<"$show")" "172.16.11.3 c3 net1 ns1/pod3 w1"
check "pool show table lists allocations" bash -c \
	"'$CTL' -c '$DIR/config.json' pool show rail1 | grep -q '^172.16.11.4 *c4 *net1 *ns1/pod4'"

# read verbs change nothing: not the file, not its WAL (mtime and content),
# also with a config that declares a pool the store lacks (the agent's
# config gained one; only an allocation or a sync writes it)
jq '.pools += [{"name": "rail9", "subnet": "172.16.19.0/24"}]' "$DIR/config.json" \
	>"$DIR/config-new.json"
ctl_new() { "$CTL" -c "$DIR/config-new.json" "$@"; }
before=$(store_state)
sleep 0.05
ctl_new ip show 172.16.11.3 >/dev/null
check_eq "ip show IP changes nothing in the store" "$(store_state)" "$before"
ctl_new ip show --container-id c3 --ifname net1 -j >/dev/null
ctl_new pool list >/dev/null
ctl_new pool show rail1 -j >/dev/null
ctl_new pool check >/dev/null
"$RN_BUILD/tools/ipam_textfile" "$DIR/config-new.json" >/dev/null
check_eq "ip show, pool list/show/check and metrics change nothing" "$(store_state)" "$before"
check_eq "... not even with a config pool the store lacks" \
	"$(ctl_new pool list -j | jq -r '[.pools[].name] | join(",")')" rail1,rail1-v6,rail2
fails_with "pool show of a config pool not in the store yet says so" \
	'pool "rail9" is in the config but not in the store yet' ctl_new pool show rail9

check_eq "ip release by owner" "$(ctl ip release --container-id c2 --ifname net1 -j)" \
	'{"released":1}'
check_eq "ip release by owner is idempotent" "$(ctl ip release --container-id c2 --ifname net1 -j)" \
	'{"released":0}'
check_eq "ip release by address" "$(ctl ip release 172.16.11.3 -j)" '{"released":1}'
check_eq "released addresses are not reused while others are free" \
	"$(ctl ip allocate --container-id c9 --ifname net1 --pool rail1 -j | jq -r '.ips[0].address')" \
	172.16.11.10/24
fails_with "ip show with a bad address" '"172.16.11.300" is not an IP address' \
	ctl ip show 172.16.11.300
fails_with "ip allocate from an unknown pool" 'pool "nope" not found' \
	ctl ip allocate --container-id x --ifname net1 --pool nope
fails_with "ip allocate without an owner" "--container-id, --ifname and --pool are required" \
	ctl ip allocate --pool rail1
fails_with "ip allocate of the wrong master" 'serves master "ens9"' \
	ctl ip allocate --container-id x --ifname net1 --pool rail1 --master ens9

# --- del and gc -----------------------------------------------------------------
ctl ip allocate --container-id g1 --ifname net1 --pool rail2 --node w2 >/dev/null
fails_with "pool del refuses while addresses are in use" "still holds 1 address" \
	ctl pool del rail2
fails_with "pool del refuses a pool the config declares" "declared in the config file" \
	ctl pool del rail1
check "pool del --force" ctl pool del rail2 --force
check_eq "... and its allocation went with it" \
	"$(ctl ip show --container-id g1 --ifname net1 -j | jq '.allocations | length')" 0
fails_with "pool del of an unknown pool" 'pool "rail2" not found' ctl pool del rail2

echo '[{"containerID":"c1","ifname":"net1"},{"containerID":"c4","ifname":"net1"}]' >"$DIR/valid.json"
echo '{"cni.dev/valid-attachments":[{"containerID":"c1","ifname":"net1"},{"containerID":"c4","ifname":"net1"}]}' \
	>"$DIR/valid-cni.json"
# another node's attachment in the same store (as with etcd): w1's valid list
# says nothing about it
ctl ip allocate --container-id r1 --ifname net1 --pool rail1 --node w2 >/dev/null
n_before=$(ctl pool show rail1 -j | jq '.allocated')
check_eq "pool gc --dry-run counts this node's only, and keeps" \
	"$(ctl pool gc --valid "$DIR/valid.json" --dry-run -j | jq -c '{released, node}')" \
	"{\"released\":$((n_before - 3)),\"node\":\"w1\"}"
check_eq "... nothing changed" "$(ctl pool show rail1 -j | jq '.allocated')" "$n_before"
check_eq "pool gc with the CNI valid-attachments form" \
	"$(ctl pool gc --valid "$DIR/valid-cni.json" -j | jq .released)" $((n_before - 3))
check_eq "pool gc keeps the valid ones and other nodes' allocations" \
	"$(ctl pool show rail1 -j | jq -r '[.allocations[].container_id] | join(",")')" c1,c4,r1
check_eq "... and c1's IPv6 too" \
	"$(ctl pool show rail1-v6 -j | jq -r '[.allocations[].container_id] | join(",")')" c1
check_eq "pool gc --node w2 collects w2's allocations" \
	"$(ctl pool gc --valid "$DIR/valid.json" --node w2)" \
	"released 1 address (allocations of node w2)"
ctl ip allocate --container-id r2 --ifname net1 --pool rail1 --node w3 >/dev/null
check_eq "pool gc --all-nodes collects every node's" \
	"$(ctl pool gc --valid "$DIR/valid.json" --all-nodes -j | jq -c '{released, all_nodes}')" \
	'{"released":1,"all_nodes":true}'
check_eq "... leaving the valid ones" \
	"$(ctl pool show rail1 -j | jq -r '[.allocations[].container_id] | join(",")')" c1,c4
fails_with "pool gc --node with --all-nodes" "exclude each other" \
	ctl pool gc --valid "$DIR/valid.json" --node w2 --all-nodes
echo '[{"containerID":"c1"}]' >"$DIR/bad.json"
fails_with "pool gc with a malformed valid list" 'valid attachments[0]' \
	ctl pool gc --valid "$DIR/bad.json"
check "pool check on a healthy store" ctl pool check

# --- sync: the config owns its pools ---------------------------------------------
jq '.pools[0].ips = ["172.16.11.1-172.16.11.250"]' "$DIR/config.json" >"$DIR/config2.json"
check_eq "pool sync writes the changed config pool" \
	"$("$CTL" -c "$DIR/config2.json" pool sync)" "1 pool written to the store"
check_eq "... which is now in force" \
	"$("$CTL" -c "$DIR/config2.json" pool show rail1 -j | jq .total)" 249

# --- metrics -----------------------------------------------------------------------
"$RN_BUILD/tools/ipam_textfile" "$DIR/config2.json" >"$DIR/ipam.prom"
check "textfile: rdmanet_ipam_pool_allocated_addresses for rail1" \
	grep -qx 'rdmanet_ipam_pool_allocated_addresses{pool="rail1"} 2' "$DIR/ipam.prom"
check "textfile: total and free add up" \
	grep -qx 'rdmanet_ipam_pool_free_addresses{pool="rail1"} 247' "$DIR/ipam.prom"
check "textfile: store up" grep -qx 'rdmanet_ipam_store_up{store="sqlite"} 1' "$DIR/ipam.prom"
if command -v promtool >/dev/null; then
	check "textfile: promtool check metrics is clean" \
		bash -c "promtool check metrics <'$DIR/ipam.prom'"
else
	tap_skip "promtool check metrics" "promtool not installed"
fi
echo '{ "node": "w1" }' >"$DIR/noipam.json"
if [ -e /var/lib/rdmanet/ipam.db ]; then
	tap_skip "no IPAM configured: no IPAM metrics" "this machine has /var/lib/rdmanet/ipam.db"
else
	check_eq "no IPAM configured: no IPAM metrics" \
		"$("$RN_BUILD/tools/ipam_textfile" "$DIR/noipam.json" | wc -c)" 0
	check "no IPAM configured: no store created" test ! -e /var/lib/rdmanet/ipam.db
fi

tap_done
