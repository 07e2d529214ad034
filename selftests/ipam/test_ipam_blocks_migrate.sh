#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A per-allocation pool switched to blocks with live allocations in it
# (ipam/block_adopt.h), against a real 3-member etcd: the addresses stay
# where they are and land in the blocks that contain them, owned by their
# node (the agent's tick adopts them); a block holding two nodes' addresses
# stays unclaimed and its addresses per-allocation; no address is ever held
# twice, through new ADDs on both nodes; DEL releases adopted and left
# addresses alike; a second pass changes nothing; a DEL that comes while
# the agent adopts its address leaves nothing held.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
etcd_test_cluster ipam-blocks-migrate
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

config() {	# NODE BLOCK_JSON
	cat >"$DIR/$1.json" <<EOF
{ "node": "$1", "deployment": "cluster",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 2,
            "path": "$DIR/$1.db", "block_lease_s": 3600 },
  "pools": [ { "name": "r1", "subnet": "10.82.0.0/24" $2 } ] }
EOF
	echo "{ \"node\": \"$1\", \"ipam\": { \"path\": \"$DIR/$1.db\" } }" >"$DIR/$1-local.json"
}
CTL=$RN_BUILD/bin/rdmanetctl
BLK=$RN_BUILD/tools/ipam_blocks
alloc() { "$CTL" -c "$DIR/$1.json" ip allocate --container-id "$2" --ifname net1 --pool r1 >/dev/null; }
etcd_held() { "$CTL" -c "$DIR/old.json" pool show r1 -j | jq -r '.allocations[] | "\(.ip) \(.node)"'; }
local_held() { [ -e "$DIR/$1.db" ] && "$CTL" -c "$DIR/$1-local.json" pool show r1 -j | jq -r '.allocations[].ip'; }
all_held() { (etcd_held | cut -d' ' -f1; local_held n1; local_held n2) | sort; }

# per-allocation: n1 .1-.3, n2 .4-.5, n1 .6-.11 (round robin from the cursor)
config n1 ""
config n2 ""
cp "$DIR/n1.json" "$DIR/old.json"
for i in 1 2 3; do alloc n1 "a$i"; done
for i in 1 2; do alloc n2 "b$i"; done
for i in 4 5 6 7 8 9; do alloc n1 "a$i"; done
check_eq "11 per-allocation addresses in etcd" "$(etcd_held | wc -l)" 11
check_eq "... .8-.11 all n1's" "$(etcd_held | awk '$1 ~ /^10\.82\.0\.(8|9|10|11)$/ {print $2}' | sort -u)" n1

# the pool gains a block on both nodes; n1's agent ticks
config n1 ', "block": 29'
config n2 ', "block": 29'
out=$("$BLK" "$DIR/n1.json" n1 tick 0 3600000 2>&1)
check_eq "n1's tick adopts its 4 addresses of 10.82.0.8/29 (and claims nothing else: reserve 0)" "$out" 4
check_eq "the block that holds only n1's addresses is n1's in etcd" \
	"$("$BLK" "$DIR/n1.json" n1 all r1)" "r1 10.82.0.8/29 n1"
check_eq "... its addresses are in n1's store, same owners" \
	"$("$CTL" -c "$DIR/n1-local.json" pool show r1 -j | jq -r '.allocations[] | "\(.ip) \(.container_id)"' | xargs)" \
	"10.82.0.8 a6 10.82.0.9 a7 10.82.0.10 a8 10.82.0.11 a9"
check_eq "... and no longer per-allocation in etcd; the mixed block's stay" \
	"$(etcd_held | cut -d' ' -f1 | xargs)" "10.82.0.1 10.82.0.2 10.82.0.3 10.82.0.4 10.82.0.5 10.82.0.6 10.82.0.7"
check_eq "11 addresses held, each once" "$(all_held | uniq | wc -l) $(all_held | wc -l)" "11 11"
check_eq "a second tick adopts nothing" "$("$BLK" "$DIR/n1.json" n1 tick 0 3600000 2>&1)" 0
check_eq "n2's tick adopts nothing (the mixed block is no one's)" \
	"$("$BLK" "$DIR/n2.json" n2 tick 0 3600000 2>&1)" 0

# new pods on both nodes: never an address someone holds
for i in $(seq 1 10); do alloc n1 "n1-$i" || echo fail; alloc n2 "n2-$i" || echo fail; done >"$DIR/fails"
check_eq "20 new ADDs on the two nodes succeed" "$(cat "$DIR/fails")" ""
check_eq "31 addresses held, each once" "$(all_held | uniq | wc -l) $(all_held | wc -l)" "31 31"
check "the mixed block 10.82.0.0/29 is still nobody's" \
	bash -c '! "$0" "$1" n1 all r1 | grep -q "10.82.0.0/29"' "$BLK" "$DIR/n1.json"

# DEL: an adopted address (from n1's store), a left one (from etcd)
"$CTL" -c "$DIR/n1.json" ip release --container-id a6 --ifname net1 >/dev/null
"$CTL" -c "$DIR/n1.json" ip release --container-id a1 --ifname net1 >/dev/null
check "DEL of an adopted address frees it on the node" \
	bash -c '! grep -qx 10.82.0.8 <(echo "$0")' "$(local_held n1)"
check "DEL of a per-allocation address frees it in etcd" \
	bash -c '! echo "$0" | grep -q "^10.82.0.1 "' "$(etcd_held)"
check_eq "29 addresses held, each once" "$(all_held | uniq | wc -l) $(all_held | wc -l)" "29 29"

# --- a DEL while the agent adopts its address ---------------------------------------
# The DEL finds nothing in n1's store (the address is per-allocation) and
# stops before it asks etcd (RDMANET_IPAM_FAULT); n1's agent adopts the
# address meanwhile (a copy in n1's store, the record gone from etcd); the
# DEL goes on: etcd has nothing, and the copy must not stay held on n1.
r2() {	# NODE BLOCK_JSON: n1's config with pool r2 only
	sed "s#\"r1\", \"subnet\": \"10.82.0.0/24\" [^}]*#\"r2\", \"subnet\": \"10.83.0.0/24\" $2 #" \
		"$DIR/n1.json" >"$DIR/$1"
}
r2 r2-old.json ""
r2 r2-blk.json ', "block": 29'
"$CTL" -c "$DIR/r2-old.json" ip allocate --container-id d1 --ifname net1 --pool r2 >/dev/null
RDMANET_IPAM_FAULT=stop@release-etcd "$CTL" -c "$DIR/r2-blk.json" ip release \
	--container-id d1 --ifname net1 >/dev/null 2>"$DIR/del.err" &
del=$!
stopped() { [ "$(awk '{print $3}' "/proc/$del/stat" 2>/dev/null)" = T ]; }
for _ in $(seq 100); do stopped && break; sleep 0.1; done
check "the DEL stops between n1's store and etcd" stopped
check_eq "n1's tick adopts the address meanwhile" \
	"$("$BLK" "$DIR/r2-blk.json" n1 tick 0 3600000 2>&1)" 1
kill -CONT $del
wait $del
check_eq "the DEL goes on and succeeds" "$?" 0
check_eq "... and the adopted copy is released: r2 holds nothing on n1 or in etcd" \
	"$("$CTL" -c "$DIR/n1-local.json" pool show r2 -j | jq '.allocations | length') $("$CTL" -c "$DIR/r2-old.json" pool show r2 -j | jq '.allocations | length')" "0 0"
tap_done
