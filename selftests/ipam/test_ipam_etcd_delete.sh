#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Deleting a large pool from etcd (a real 3-member cluster), with a 1 s
# store timeout: an interrupted `pool del --force` (the pool left marked
# "deleting") blocks nothing but that pool on a node whose config still
# lists it (allocations and releases from its other pools work, a sync
# writes the others); the next `pool del --force` finishes the deletion in
# one run, each step bounded by the timeout rather than the whole run.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
CTL=$RN_BUILD/bin/rdmanetctl
N=${RN_TEST_DELETE_N:-1500}
etcd_test_cluster ipam-etcd-del
ipam="{ \"store\": \"etcd\", \"endpoints\": [ $ETCD_ENDPOINTS_JSON ], \"prefix\": \"/rn-del\", \"timeout_s\": 1 }"
# the node's config lists both pools; the operator's lists only "other"
cat >"$DIR/node.json" <<EOF
{ "node": "n1", "ipam": $ipam,
  "pools": [ { "name": "big", "subnet": "10.70.0.0/20" },
             { "name": "other", "subnet": "10.71.0.0/24" } ] }
EOF
cat >"$DIR/admin.json" <<EOF
{ "node": "n1", "ipam": $ipam, "pools": [ { "name": "other", "subnet": "10.71.0.0/24" } ] }
EOF
node() { "$CTL" -c "$DIR/node.json" "$@"; }
admin() { "$CTL" -c "$DIR/admin.json" "$@"; }
etcdc() { etcdctl --endpoints "$ETCD_URLS" "$@"; }

# --- fill "big" ------------------------------------------------------------------------
pids=()
for i in 0 1 2 3; do
	"$RN_BUILD/tools/ipam_stress" -c "$DIR/node.json" -p big -n $((N / 4)) -i "b$i" -t 10 \
		>"$DIR/fill$i.json" 2>"$DIR/fill$i.err" &
	pids+=($!)
done
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
check_eq "$N allocations in pool big" "$fails $(node -j pool show big | jq .allocated)" "0 $N"

# --- an interrupted deletion: the pool marked, its addresses still there ----------------
rec=$(etcdc get --print-value-only /rn-del/pools/big)
etcdc put /rn-del/pools/big "$(jq -c '.deleting = true' <<<"$rec")" >/dev/null
check "pool big marked deleting" \
	bash -c "etcdctl --endpoints '$ETCD_URLS' get --print-value-only /rn-del/pools/big | jq -e .deleting"
check "node listing big: allocation from pool other works" \
	node ip allocate --container-id o1 --ifname net1 --pool other
check "  and its release" node ip release --container-id o1 --ifname net1
node ip allocate --container-id b-new --ifname net1 --pool big >/dev/null 2>"$DIR/big.err"
check "  an allocation from big fails" test $? != 0
check "  naming the pool" grep -q '"big"' "$DIR/big.err"
cat >"$DIR/node2.json" <<EOF
{ "node": "n1", "ipam": $ipam,
  "pools": [ { "name": "big", "subnet": "10.70.0.0/20" },
             { "name": "other", "subnet": "10.71.0.0/24", "gateway": "10.71.0.254" } ] }
EOF
"$CTL" -c "$DIR/node2.json" pool sync >/dev/null 2>"$DIR/sync.err"
check "  pool sync: fails for big (being deleted)" grep -q 'being deleted' "$DIR/sync.err"
check_eq "  but writes other's new definition" \
	"$(node -j pool show other | jq -r .gateway)" 10.71.0.254

# --- the next pool del --force finishes it in one run --------------------------------
admin pool del big --force >"$DIR/del.out" 2>"$DIR/del.err"
check "pool del big --force: one run ($N addresses, 1 s timeout per step)" \
	test $? = 0 -a ! -s "$DIR/del.err"
[ -s "$DIR/del.err" ] && tap_diag "$(cat "$DIR/del.err")"
keys() { etcdc get --prefix --keys-only "$1" | grep -c .; }
check_eq "  the pool, its addresses and their owners are gone" \
	"$(keys /rn-del/pools/big)|$(keys /rn-del/ips/big/)|$(keys /rn-del/owners/)" "0|0|0"
check "  pool check: no problem" admin pool check
tap_done
