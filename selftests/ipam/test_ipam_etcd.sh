#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The etcd store against a real 3-member cluster on loopback: allocator
# semantics, 8 processes allocating 2,000 addresses, allocators killed with
# SIGKILL, the leader killed mid-run, every member down ("try again later"
# within the configured bound), members back (recovery), and TLS with
# client certificates.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"
. "$RN_SRC/selftests/ipam/lib/ipam_check.sh"

command -v etcd >/dev/null || tap_skip_all "etcd-server is not installed (make deps)"
STRESS=$RN_BUILD/tools/ipam_stress
etcd_test_cluster ipam-etcd
tap_ok "a 3-member etcd cluster starts on loopback ($ETCD_URLS)"

# config PREFIX TIMEOUT POOLS...
config() {
	cat <<EOF
{ "node": "n1",
  "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "prefix": "$1",
            "timeout_s": $2 },
  "pools": [ { "name": "conc", "subnet": "10.50.0.0/20" },
             { "name": "crash", "subnet": "10.51.0.0/20" },
             { "name": "fault", "subnet": "10.52.0.0/20" } ] }
EOF
}
config /rn 10 >"$DIR/config.json"
config /rn 2 >"$DIR/short.json"
config /rn-crash 10 >"$DIR/crash.json"

# --- the allocator semantics, same cases as on SQLite -----------------------
if RN_IPAM_TEST_ETCD=$ETCD_URLS CMOCKA_MESSAGE_OUTPUT=TAP \
	"$RN_BUILD/selftests/unit/test_ipam_alloc" >"$DIR/semantics.log" 2>&1; then
	tap_ok "allocator semantics on etcd ($(grep -c '^ok' "$DIR/semantics.log") cases)"
else
	tap_fail "allocator semantics on etcd"
	grep -A3 '^not ok' "$DIR/semantics.log" | sed 's/^/# /'
fi
if command -v valgrind >/dev/null; then
	if RN_IPAM_TEST_ETCD=$ETCD_URLS valgrind -q --error-exitcode=99 \
		"$RN_BUILD/selftests/unit/test_ipam_alloc" >"$DIR/semantics-vg.log" 2>&1; then
		tap_ok "allocator semantics on etcd under valgrind: no memory error"
	else
		tap_fail "allocator semantics on etcd under valgrind"
		grep -E -m 40 '==[0-9]+==|^not ok' "$DIR/semantics-vg.log" | sed 's/^/# /'
	fi
else
	tap_skip "allocator semantics on etcd under valgrind" "valgrind is not installed"
fi

# --- 8 concurrent processes, 2,000 allocations ------------------------------
ipam_concurrent "concurrent" "$DIR/config.json" conc "$DIR" 8 250

# --- kill -9 at random moments (own prefix: gc is store-wide) -----------------
ipam_crash "etcd crash" "$DIR/crash.json" crash "$DIR" 8 1500

# --- the leader killed mid-run: allocations continue ---------------------------
leader=$(etcd_leader)
check "the leader is known" test -n "$leader"
pids=()
: >"$DIR/fault.report"
for i in 0 1 2 3; do
	"$STRESS" -c "$DIR/config.json" -p fault -n 150 -i "f$i" -r "$DIR/fault.report" \
		>"$DIR/f$i.json" 2>"$DIR/f$i.err" &
	pids+=($!)
done
sleep 0.4
before=$(wc -l <"$DIR/fault.report")
etcd_member_kill "${leader:-1}" KILL
t_kill=$(date +%s%3N)
fails=0
for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
tap_diag "leader m${leader:-?} killed after $before allocations; $(jq -s -r \
	'map(.max_eagain_ms) | max' "$DIR"/f*.json) ms longest retry"
check_eq "leader killed: every allocator finished without error" "$fails" 0
[ "$fails" = 0 ] || cat "$DIR"/f*.err | head -5 | sed 's/^/# /'
check_eq "leader killed: all 600 allocations done" "$(wc -l <"$DIR/fault.report")" 600
check "leader killed: allocations continued after the kill" test "$before" -lt 600
ipam_verify "leader killed" "$DIR/config.json" fault "$DIR/fault.report" 600
etcd_member_start "${leader:-1}"
check "the killed member rejoins" etcd_wait_healthy 20

# --- every member down: bounded "try again later" ------------------------------
etcd_cluster_stop
expect_try_later "all down: ip allocate (2 s bound)" 1500 2700 \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id down1 --ifname net1 --pool conc
expect_try_later "all down: pool list (2 s bound)" 1500 2700 \
	"$CTL" -c "$DIR/short.json" pool list
"$STRESS" -c "$DIR/short.json" -p conc -n 1 -i down2 >/dev/null 2>"$DIR/down2.err"
check_eq "all down: the library returns -EAGAIN (ipam_stress exits 75)" "$?" 75
t0=$(date +%s%3N)
"$RN_BUILD/tools/ipam_textfile" "$DIR/short.json" >"$DIR/down.prom"
ms=$(($(date +%s%3N) - t0))
check "all down: the textfile says the store is down" \
	grep -qx 'rdmanet_ipam_store_up{store="etcd"} 0' "$DIR/down.prom"
check_range "all down: the textfile export is not held up past the bound, ms" "$ms" 0 2700

# quorum lost (one member of three up): the same bounded answer, no hang
etcd_member_start 1
sleep 1
expect_try_later "no quorum: ip allocate (2 s bound)" 1500 2700 \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id down3 --ifname net1 --pool conc

# --- members back: it recovers ---------------------------------------------
etcd_member_start 2
etcd_member_start 3
check "all members back and healthy" etcd_wait_healthy 30
check "recovered: allocation succeeds" \
	"$CTL" -c "$DIR/config.json" ip allocate --container-id back1 --ifname net1 --pool conc
check_eq "recovered: nothing was allocated while down" \
	"$("$CTL" -c "$DIR/config.json" ip show --container-id down1 --ifname net1 -j |
		jq '.allocations | length')" 0
ipam_verify "recovered" "$DIR/config.json" conc "$DIR/conc.report" 2001
"$RN_BUILD/tools/ipam_textfile" "$DIR/config.json" >"$DIR/up.prom"
check "recovered: the textfile has the pool usage from etcd" \
	grep -qx 'rdmanet_ipam_pool_allocated_addresses{pool="conc"} 2001' "$DIR/up.prom"
check "recovered: the textfile says the store is up" \
	grep -qx 'rdmanet_ipam_store_up{store="etcd"} 1' "$DIR/up.prom"

# --- TLS with client certificates ---------------------------------------------
etcd_cluster_stop
if ! command -v openssl >/dev/null || ! etcd_make_tls "$DIR/tls"; then
	tap_skip "TLS" "openssl could not make test certificates"
elif ! etcd_cluster_start "$DIR/etcd-tls" 1 "$DIR/tls"; then
	tap_fail "a TLS etcd member starts"
else
	cat >"$DIR/tls.json" <<EOF
{ "ipam": { "store": "etcd", "endpoints": [ $ETCD_ENDPOINTS_JSON ], "timeout_s": 2,
            "tls": { "ca_file": "$DIR/tls/ca.pem", "cert_file": "$DIR/tls/client.pem",
                     "key_file": "$DIR/tls/client-key.pem" } },
  "pools": [ { "name": "tls", "subnet": "10.53.0.0/24" } ] }
EOF
	check "TLS: allocation over https with a client certificate" \
		"$CTL" -c "$DIR/tls.json" ip allocate --container-id t1 --ifname net1 --pool tls
	jq 'del(.ipam.tls.cert_file, .ipam.tls.key_file)' "$DIR/tls.json" >"$DIR/tls-nocert.json"
	"$CTL" -c "$DIR/tls-nocert.json" pool list >/dev/null 2>"$DIR/tls.err"
	rc=$?
	check "TLS: without a client certificate the cluster refuses" test "$rc" != 0
	jq '.ipam.tls.ca_file = "/nonexistent/ca.pem"' "$DIR/tls.json" >"$DIR/tls-noca.json"
	t0=$(date +%s%3N)
	"$CTL" -c "$DIR/tls-noca.json" pool list >/dev/null 2>"$DIR/tls2.err"
	rc=$?
	ms=$(($(date +%s%3N) - t0))
	check_eq "TLS: a missing CA file is a configuration error (exit 1, not 75)" "$rc" 1
	check "TLS: ... named as such" grep -q "ipam.tls" "$DIR/tls2.err"
	check_range "TLS: ... reported at once, ms" "$ms" 0 1000
fi

tap_done
