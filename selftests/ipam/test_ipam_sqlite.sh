#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The embedded store under real concurrency and crashes: 8 processes
# allocating 2,000 addresses from one pool; allocators killed with SIGKILL
# at random moments; a write lock held by another process turning into
# "try again later" within the configured bound, and recovery after.
set -u
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/ipam/lib/ipam_check.sh"

STRESS=$RN_BUILD/tools/ipam_stress
DIR=$(mktemp -d "/tmp/rn-ipam-sqlite-$$-XXXXXX")
cleanup() {
	jobs -p | xargs -r kill -KILL 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT

cat >"$DIR/config.json" <<EOF
{ "node": "n1", "ipam": { "store": "sqlite", "path": "$DIR/ipam.db", "timeout_s": 10 },
  "pools": [ { "name": "conc", "subnet": "10.40.0.0/20" },
             { "name": "crash", "subnet": "10.40.32.0/19" },
             { "name": "lock", "subnet": "10.42.0.0/24" } ] }
EOF

# --- 8 concurrent processes, 2,000 allocations ------------------------------
ipam_concurrent "concurrent" "$DIR/config.json" conc "$DIR" 8 250

# --- kill -9 at random moments (own database: gc is store-wide) ---------------
sed "s|$DIR/ipam.db|$DIR/crash.db|" "$DIR/config.json" >"$DIR/crash.json"
ipam_crash "sqlite crash" "$DIR/crash.json" crash "$DIR" 8 500

# --- a held write lock: bounded "try again later", then recovery -------------
sed 's/"timeout_s": 10/"timeout_s": 1/' "$DIR/config.json" >"$DIR/short.json"
"$RN_BUILD/tools/ipam_sqlite_hold" "$DIR/ipam.db" 4 >"$DIR/hold.out" &
hold=$!
for _ in $(seq 50); do grep -q locked "$DIR/hold.out" 2>/dev/null && break; sleep 0.1; done
expect_try_later "locked store (1 s bound)" 900 1500 \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id lock1 --ifname net1 --pool lock
"$CTL" -c "$DIR/short.json" ip allocate --container-id lock1 --ifname net1 --pool lock \
	>/dev/null 2>"$DIR/lock.err"
check_eq "locked store: one line on stderr" "$(wc -l <"$DIR/lock.err")" 1
wait "$hold"
check "lock released: allocation succeeds" \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id lock1 --ifname net1 --pool lock
check_eq "lock released: exactly one allocation for lock1" \
	"$("$CTL" -c "$DIR/config.json" ip show --container-id lock1 --ifname net1 -j |
		jq '.allocations | length')" 1

# --- the writer queue: bounded wait, and a holder killed with SIGKILL ---------
"$RN_BUILD/tools/ipam_sqlite_hold" "$DIR/ipam.db" 4 queue >"$DIR/q.out" &
hold=$!
for _ in $(seq 50); do grep -q locked "$DIR/q.out" 2>/dev/null && break; sleep 0.1; done
expect_try_later "writer queue held (1 s bound)" 900 1500 \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id q1 --ifname net1 --pool lock
kill -KILL "$hold"
wait "$hold" 2>/dev/null
t0=$(date +%s%3N)
check "writer queue holder killed (SIGKILL): allocation succeeds" \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id q1 --ifname net1 --pool lock
ms=$(($(date +%s%3N) - t0))
check_range "... at once, ms" "$ms" 0 800

# --- durability settings actually in force -----------------------------------
check_eq "database is in WAL mode" "$(head -c 20 "$DIR/ipam.db" | od -An -tu1 -j18 -N2 |
	tr -s ' ')" " 2 2"

tap_done
