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

# --- the lock file of a crash image: a copy taken while the queue was held,
# put back after its holder is gone (what a machine that crashed mid-write
# finds on its disk after the reboot) must not hold anyone up ---------------
"$RN_BUILD/tools/ipam_sqlite_hold" "$DIR/ipam.db" 30 queue >"$DIR/img.out" &
hold=$!
for _ in $(seq 50); do grep -q locked "$DIR/img.out" 2>/dev/null && break; sleep 0.1; done
cp "$DIR/ipam.db.lock" "$DIR/lock.image"
kill -KILL "$hold"
wait "$hold" 2>/dev/null
cp "$DIR/lock.image" "$DIR/ipam.db.lock"
check "lock file restored from a crash image: allocation succeeds" \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id img1 --ifname net1 --pool lock
check "  and the next one too" \
	"$CTL" -c "$DIR/short.json" ip allocate --container-id img2 --ifname net1 --pool lock

# --- root-only: the store, its WAL and shared memory, its lock -----------------
# (a reader keeps the database open: SQLite removes -wal and -shm at the last close)
"$RN_BUILD/tools/ipam_sqlite_hold" "$DIR/ipam.db" 60 open >"$DIR/open.out" &
reader=$!
for _ in $(seq 50); do grep -q locked "$DIR/open.out" 2>/dev/null && break; sleep 0.1; done
"$CTL" -c "$DIR/short.json" ip allocate --container-id mode0 --ifname net1 --pool lock >/dev/null
modes() { stat -c '%a' "$DIR/ipam.db" "$DIR/ipam.db-wal" "$DIR/ipam.db-shm" "$DIR/ipam.db.lock" | tr '\n' ' '; }
check_eq "store, WAL, shm and lock file are 0600" "$(modes)" "600 600 600 600 "
chmod 0644 "$DIR/ipam.db" "$DIR/ipam.db-wal" "$DIR/ipam.db-shm" "$DIR/ipam.db.lock"
"$CTL" -c "$DIR/short.json" ip allocate --container-id mode1 --ifname net1 --pool lock >/dev/null
check_eq "  made 0600 again when found 0644 (an older version's files)" "$(modes)" "600 600 600 600 "
kill "$reader"
wait "$reader" 2>/dev/null
sed "s|$DIR/ipam.db|$DIR/fresh/ipam.db|" "$DIR/short.json" >"$DIR/fresh.json"
(umask 0; "$CTL" -c "$DIR/fresh.json" ip allocate --container-id mode2 --ifname net1 --pool lock >/dev/null)
check_eq "  a new store under umask 0 is 0600 too" \
	"$(stat -c '%a' "$DIR/fresh/ipam.db" "$DIR/fresh/ipam.db.lock" | tr '\n' ' ')" "600 600 "

# --- the WAL stays small: no checkpoint at each close, a bounded one instead ---
# every process here is the store's only connection while it runs, as a CNI
# process mostly is (before, each one's close checkpointed and removed the
# WAL; without a bound, the WAL grew with every commit, and each open reads
# all of it)
sed "s|$DIR/ipam.db|$DIR/wal/ipam.db|" "$DIR/short.json" >"$DIR/wal.json"
wal_ok=0
for i in $(seq 150); do
	"$CTL" -c "$DIR/wal.json" ip allocate --container-id "w$i" --ifname net1 --pool lock \
		>/dev/null && wal_ok=$((wal_ok + 1))
	[ $((i % 3)) = 0 ] &&
		"$CTL" -c "$DIR/wal.json" ip release --container-id "w$((i - 1))" --ifname net1 >/dev/null
done
check_eq "  150 allocations by one-shot processes" "$wal_ok" 150
# 32 frames (RN_SQLITE_WAL_MAX_FRAMES) plus one commit's few, 4 KiB + 24 bytes each
check_range "  the WAL holds at most ~40 pages (bytes)" "$(stat -c %s "$DIR/wal/ipam.db-wal")" 0 \
	$((32 + 40 * (4096 + 24)))
check_eq "  every commit is there after it (100 held)" \
	"$("$CTL" -c "$DIR/wal.json" -j pool show lock | jq .allocated)" 100

# --- durability settings actually in force -----------------------------------
check_eq "database is in WAL mode" "$(head -c 20 "$DIR/ipam.db" | od -An -tu1 -j18 -N2 |
	tr -s ' ')" " 2 2"

tap_done
