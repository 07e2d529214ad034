#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# No address held twice across redefined pools, on both stores (SQLite and
# a real 3-member etcd cluster). Pool A hands out 10.60.0.1 on master m0;
# A is redefined away from it (a config edit synced, as rdmanetd's start
# does); a pool B covering 10.60.0.1 on m0 must then be refused, naming the
# address and its holder, however it is written (pool add, a config sync,
# a redefinition of another pool), while a pool on another master or
# other nodes may have it. `pool check` reports an address two pools of
# one master hold (put there behind the API's back) and exits non-zero.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"

CTL=$RN_BUILD/bin/rdmanetctl
DIR=$(mktemp -d "/tmp/rn-ipam-held-$$-XXXXXX")
cleanup() {
	etcd_cluster_stop
	rm -rf "$DIR"
}
trap cleanup EXIT

# fails OK: exit status non-zero, exactly one line on stderr with every needle
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
		tap_fail "$what: stderr: $(cat "$DIR/err")"
	fi
}

# config FILE IPAM_JSON A_SUBNET [EXTRA_POOL_JSON]
config() {
	cat >"$1" <<JSON
{ "node": "n1", "ipam": $2,
  "pools": [ { "name": "A", "subnet": "$3", "masters": ["m0"] }${4:+, $4} ] }
JSON
}

# scenario STORE IPAM_JSON INJECT_FN
scenario() {
	local st=$1 ipam=$2 inject=$3 held
	config "$DIR/$st-1.json" "$ipam" 10.60.0.0/29
	config "$DIR/$st-2.json" "$ipam" 10.60.1.0/29
	ctl1() { "$CTL" -c "$DIR/$st-1.json" "$@"; }
	ctl2() { "$CTL" -c "$DIR/$st-2.json" "$@"; }
	check_eq "$st: A (10.60.0.0/29 on m0) hands out 10.60.0.1" \
		"$(ctl1 -j ip allocate --container-id c1 --ifname net1 --pool A | jq -r '.ips[0].address | sub("/.*"; "")' 2>/dev/null)" \
		10.60.0.1
	check "$st: A redefined to 10.60.1.0/29 and synced" ctl2 pool sync
	check "$st: pool check: no problem yet (A still holds it)" ctl2 pool check
	fails_with "$st: pool add B 10.60.0.0/29 on m0: refused, naming 10.60.0.1 and c1/net1" \
		'pool "B"' "10.60.0.1 is held by c1/net1" 'in pool "A"' -- \
		ctl2 pool add B --subnet 10.60.0.0/29 --master m0
	config "$DIR/$st-3.json" "$ipam" 10.60.1.0/29 \
		'{ "name": "B", "subnet": "10.60.0.0/29", "masters": ["m0"] }'
	fails_with "$st: B in the config, synced: refused the same way" \
		"10.60.0.1 is held by c1/net1" -- "$CTL" -c "$DIR/$st-3.json" pool sync
	fails_with "$st: ... and an allocation through the config with B: fails, B never written" \
		"10.60.0.1 is held by c1/net1" -- \
		"$CTL" -c "$DIR/$st-3.json" ip allocate --container-id c2 --ifname net1 --pool B
	held=$(ctl2 -j ip show 10.60.0.1 | jq -c '[.allocations[] | "\(.pool) \(.container_id)"]')
	check_eq "$st: ip show 10.60.0.1: one holder" "$held" '["A c1"]'
	check "$st: B on another master may have the address" \
		ctl2 pool add B --subnet 10.60.0.0/29 --master m1
	check_eq "$st: ... and hands it out there" \
		"$(ctl2 -j ip allocate --container-id c3 --ifname net1 --pool B | jq -r '.ips[0].address | sub("/.*"; "")' 2>/dev/null)" \
		10.60.0.1
	check "$st: pool check: two pools on different masters are no problem" ctl2 pool check
	config "$DIR/$st-4.json" "$ipam" 10.60.1.0/29 \
		'{ "name": "B", "subnet": "10.60.0.0/29", "masters": ["m0", "m1"] }'
	fails_with "$st: B redefined onto m0 too (config sync) while A holds 10.60.0.1: refused" \
		'pool "B"' "10.60.0.1 is held by c1/net1" -- "$CTL" -c "$DIR/$st-4.json" pool sync
	check_eq "$st: ... B left as it was" "$(ctl2 -j pool show B | jq -c .masters)" '["m1"]'
	# a double put into the store behind the API's back (an older version,
	# a hand edit): pool D on m0 excludes the address, then holds it anyway
	check "$st: D (10.60.0.0/29 on m0, 10.60.0.1 excluded) can be added" \
		ctl2 pool add D --subnet 10.60.0.0/29 --master m0 --exclude 10.60.0.1
	"$inject" "$DIR/$st-2.json"
	ctl2 pool check >"$DIR/check.out" 2>"$DIR/check.err"
	check "$st: pool check with 10.60.0.1 held by A and D (both m0): exits non-zero" \
		test $? != 0
	check "$st: ... reporting it" grep -q "10.60.0.1 held twice" "$DIR/check.out" "$DIR/check.err"
}

inject_sqlite() {
	sqlite3 "$DIR/ipam.db" "INSERT INTO allocations (pool, ip, family, container_id, ifname,
		node, created) SELECT 'D', ip, family, 'c-dup', 'net1', node, created
		FROM allocations WHERE container_id = 'c1'"
}

inject_etcd() {
	local v
	v=$(etcdctl --endpoints "$ETCD_URLS" get --print-value-only /rn-held/ips/A/0a3c0001)
	etcdctl --endpoints "$ETCD_URLS" put /rn-held/ips/D/0a3c0001 \
		"$(jq -c '.container_id = "c-dup"' <<<"$v")" >/dev/null
}

scenario sqlite "{ \"store\": \"sqlite\", \"path\": \"$DIR/ipam.db\" }" inject_sqlite

command -v etcd >/dev/null || { tap_skip "etcd" "etcd-server is not installed"; tap_done; }
if ! etcd_cluster_start "$DIR/etcd" 3; then
	tap_fail "a 3-member etcd cluster starts on loopback"
	tap_done
fi
scenario etcd "{ \"store\": \"etcd\", \"endpoints\": [ $ETCD_ENDPOINTS_JSON ], \"prefix\": \"/rn-held\" }" \
	inject_etcd
tap_done
