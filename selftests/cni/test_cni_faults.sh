#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Fault injection, with rdmanetd running (so registrations can leak too):
#  - kill -9 of the plugin at every step of ADD (it stops itself there with
#    RDMANET_CNI_FAULT=stop@STEP), then DEL, then GC: no link, rule, route,
#    address, allocation, registration or record is left; and the same with
#    GC alone, as when a runtime lost track of the attachment;
#  - the pod's netns deleted while ADD runs: code 3 and everything rolled back;
#  - DEL with the node config unreadable: code 7, but the pod side and the
#    registration are torn down; the retried DEL releases once it is fixed;
#  - the IPAM store (a real etcd) unavailable: ADD answers 11 within the
#    store's timeout and leaves nothing; DEL and STATUS say so; once etcd is
#    back, DEL releases and ADD works.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" monitor
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/net.json" 1.1.0 faults \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"], "ipv6": ["railA-v6"]}}'
# links of the node other than the pods' primary veths (h-*)
node_links() { ip -n "$CNI_NODE" -o link | awk -F': ' '$2 !~ /^h-/' | wc -l; }
node_links0=$(node_links)

# clean CID IFNAME POD: nothing of the attachment anywhere
clean() {
	echo "$(cni_pod_leftovers "$3")|$(cni_held "$1" "$2")|$(cni_registered "$1" "$2")|$(ls "$CNI_STATE/faults" 2>/dev/null)|$(node_links)"
}
CLEAN="||0||$node_links0"

# add_stopped STEP CID POD: an ADD (or the command in STOP_CMD) stopped at
# STEP (its answer goes to $CNI_TMP/bg.out); sets STOPPED_PID (the stopped
# process: the plugin, or the child DEL deletes the link from)
# and STOPPED_BG (the job)
add_stopped() {
	local pid= p
	(CNI_OUT=$CNI_TMP/bg.out CNI_ERR=$CNI_TMP/bg.err RDMANET_CNI_FAULT=stop@$1 \
		cni_run "${STOP_CMD:-ADD}" "$CNI_TMP/net.json" "$2" net1 /run/netns/"$CNI_PFX-$3") &
	STOPPED_BG=$!
	# the plugin's pid: the process running our binary with this fault and
	# container, once stopped there. DEL's deleting child shares that
	# environment and may still be running (or a zombie) when DEL stops:
	# taking it instead left the test waiting for a DEL that never resumes.
	for _ in $(seq 400); do
		for p in $(pgrep -x rdmanet); do
			grep -qz "RDMANET_CNI_FAULT=stop@$1" "/proc/$p/environ" 2>/dev/null &&
				grep -qz "CNI_CONTAINERID=$2" "/proc/$p/environ" 2>/dev/null &&
				[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = T ] && pid=$p
		done
		[ -n "$pid" ] && break
		sleep 0.02
	done
	STOPPED_PID=$pid
	if [ -z "$pid" ]; then
		wait "$STOPPED_BG"
		return 1
	fi
	return 0
}

# add_killed STEP CID POD: an ADD stopped at STEP, then killed with SIGKILL
add_killed() {
	add_stopped "$@" || return 1
	kill -9 "$STOPPED_PID"
	wait "$STOPPED_BG"
	return 0
}

STEPS="recorded allocated created renamed checked addressed routed registered"
for step in $STEPS; do
	cni_pod_up "k$step" >/dev/null
	check "kill -9 at $step" add_killed "$step" "c-k$step" "k$step"
	cni_run DEL "$CNI_TMP/net.json" "c-k$step" net1 /run/netns/"$CNI_PFX-k$step"
	cni_check_ok "  DEL after it succeeds"
	check_eq "  nothing left (pod|IPAM|registration|record|node links)" \
		"$(clean "c-k$step" net1 "k$step")" "$CLEAN"
done
jq '. + {"cni.dev/valid-attachments": []}' "$CNI_TMP/net.json" >"$CNI_TMP/gc.json"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
check "GC after those DELs succeeds and finds nothing to collect" \
	test "$CNI_RC" = 0 -a "$(find "$CNI_STATE" -type f ! -path "$CNI_STATE/.precheck*" | wc -l)" = 0

# --- a record write killed before its rename --------------------------------------------
# (the final record of an ADD replaces the first through a temporary file):
# the temporary file is left beside the first record; GC collects the
# attachment, leaves the file alone while it may be a write under way, and
# removes it once it is old
cni_pod_up ktmp >/dev/null
check "kill -9 while the final record is written, before its rename" \
	add_killed record-written c-ktmp ktmp
tmpf=$(find "$CNI_STATE/faults" -name '.rec.*' -type f)
check_eq "  it left a temporary file beside the first record (temporary files|records|complete)" \
	"$(grep -c . <<<"$tmpf")|$(ls "$CNI_STATE/faults" | wc -l)|$(jq .complete "$CNI_STATE/faults/c-ktmp:net1")" \
	"1|1|false"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
check "  GC collects the attachment but keeps the file while it is younger than a minute" \
	test "$CNI_RC" = 0 -a -e "$tmpf" -a ! -e "$CNI_STATE/faults/c-ktmp:net1"
check_eq "  nothing else left (pod|IPAM|registration|record|node links)" \
	"$(clean c-ktmp net1 ktmp)" "$CLEAN"
touch -d '-2 min' "$tmpf"
RDMANET_CNI_LOG=info cni_run GC "$CNI_TMP/gc.json" "" "" ""
check "  GC removes it once it is two minutes old" test "$CNI_RC" = 0 -a ! -e "$tmpf"
check "  and says so" grep -q 'removed 1 temporary record file' "$CNI_ERR"

# --- GC leaves the temporary record file of a running ADD alone -------------------------
# (an ADD stopped for more than a minute between writing its final record
# and renaming it: GC used to delete the file, and the ADD then failed, 109)
cni_pod_up stmp >/dev/null
check "ADD stopped between writing its final record and renaming it" \
	add_stopped record-written c-stmp stmp
tmpf=$(find "$CNI_STATE/faults" -name '.rec.*' -type f)
touch -d '-2 min' "$tmpf"
RDMANET_CNI_LOG=info cni_run GC "$CNI_TMP/gc.json" "" "" ""
check "  GC, the file two minutes old, leaves it (and the attachment) to the ADD" \
	test "$CNI_RC" = 0 -a -e "$tmpf" -a -e "$CNI_STATE/faults/c-stmp:net1"
check "  and says why" grep -q "still running: temporary record files are left" "$CNI_ERR"
kill -CONT "$STOPPED_PID"
wait "$STOPPED_BG"
check_eq "  the ADD then finishes (exit|complete record|temporary files)" \
	"$?|$(jq .complete "$CNI_STATE/faults/c-stmp:net1")|$(find "$CNI_STATE/faults" -name '.rec.*' | wc -l)" \
	"0|true|0"
cni_run DEL "$CNI_TMP/net.json" c-stmp net1 /run/netns/"$CNI_PFX-stmp"
cni_check_ok "  DEL c-stmp"

# --- a record cut short still names its attachment ---------------------------------------
# (a writer killed mid-write, or a final record whose content a crash lost:
# it is not synced); GC goes by the file's name and releases what the
# store holds for it
cni_pod_up kcut >/dev/null
cni_run ADD "$CNI_TMP/net.json" c-kcut net1 /run/netns/"$CNI_PFX-kcut"
cni_check_ok "ADD c-kcut"
: >"$CNI_STATE/faults/c-kcut:net1"
ip netns del "$CNI_PFX-kcut"	# as after a reboot: the pod side is gone
cni_run GC "$CNI_TMP/gc.json" "" "" ""
cni_check_ok "  GC with its record emptied succeeds"
check "  says it went by the name" grep -q 'c-kcut:net1.*going by its name' "$CNI_ERR"
check_eq "  and released and unregistered it, record gone (IPAM|registration|record)" \
	"$(cni_held c-kcut net1)|$(cni_registered c-kcut net1)|$(ls "$CNI_STATE/faults" 2>/dev/null)" "|0|"

# --- the first record is on disk before ADD allocates -------------------------------------
# (what a power loss would lose cannot be tested here; the order of the
# calls that prevent it can: the record created at its name and fsync'd, its
# directory fsync'd, both done before the store's first write; they run on
# a thread while ADD opens the store and creates the link)
if command -v strace >/dev/null; then
	cni_pod_up dur >/dev/null
	# checks off: the quickest ADD, the one least likely to hide a store
	# write that is not done before it answers
	jq '. + {gatewayCheck: false, ipConflictCheck: false}' "$CNI_TMP/net.json" >"$CNI_TMP/fast.json"
	CNI_WRAP="strace -f -y -qq -ttt -T -e trace=openat,fsync,fdatasync,pwrite64,write,setns -o $CNI_TMP/strace.log" \
		cni_run ADD "$CNI_TMP/fast.json" c-dur net1 /run/netns/"$CNI_PFX-dur"
	cni_check_ok "ADD under strace"
	# times: a call's start, and its end (start + duration, or the time of
	# its "resumed" line). Two verdicts, one a line: the first record is on
	# disk, file and directory entry, before the store is written; the
	# allocation is on disk (its WAL fsync'd) before ADD answers.
	order=$(awk -v dir="$CNI_STATE/faults" -v rec="$CNI_STATE/faults/c-dur:net1" '
		function dur(l) { return substr(l, match(l, /<[0-9.]+>$/) + 1, RLENGTH - 2) + 0 }
		/unfinished/ { pend[$1] = $0; pstart[$1] = $2; next }
		/resumed>/ { line = pend[$1]; start = pstart[$1]; end = $2 }
		!/resumed>/ { line = $0; start = $2; end = $2 + dur($0) }
		line ~ /openat\(/ && index(line, "\"" rec "\"") && line ~ /O_EXCL/ { created = start }
		line ~ /^[0-9]+ +[0-9.]+ fsync\(/ && index(line, "<" rec ">") { fsynced = end }
		line ~ /^[0-9]+ +[0-9.]+ fsync\(/ && index(line, "<" dir ">") && !dstart { dstart = start; dend = end }
		line ~ /(pwrite64|write)\(/ && index(line, "ipam.db-wal>") && !wal { wal = start }
		line ~ /f(data)?sync\(/ && index(line, "ipam.db-wal>") { synced = end }
		line ~ / write\(1</ && !answered { answered = start }
		END {
			if (!created) print "not created at its name"
			else if (!fsynced) print "file not fsynced"
			else if (!dstart || dstart < fsynced) print "directory not fsynced after the file"
			else if (!wal) print "no write to the store"
			else if (wal < dend) print "store written before the directory sync ended"
			else print "created, file synced, directory synced, then the store"
			if (!synced) print "the WAL never fsynced"
			else if (!answered) print "no answer on stdout"
			else if (answered < synced) print "answered before the WAL fsync ended"
			else print "WAL synced, then the answer"
		}' "$CNI_TMP/strace.log")
	check_eq "  the first record: created, fsync'd, its directory fsync'd, before the store is written" \
		"$(sed -n 1p <<<"$order")" "created, file synced, directory synced, then the store"
	check_eq "  the allocation: its commit synced before ADD answers" \
		"$(sed -n 2p <<<"$order")" "WAL synced, then the answer"
	# the link's sysctls (addr_gen_mode, and arp_notify and ndisc_notify
	# with the checks off) in one visit to the pod netns (S: setns, K: a
	# knob of net1 opened), while the first record is synced: before the
	# store's first write (W)
	seq=$(awk '/resumed>/ { next }
		/ setns\(/ { seq = seq "S" }
		/openat\(/ && /\/proc\/sys\/net\/ipv[46]\/conf\/net1\// { seq = seq "K" }
		/(pwrite64|write)\(/ && index($0, "ipam.db-wal>") && !w { seq = seq "W"; w = 1 }
		END { print seq }' "$CNI_TMP/strace.log")
	check "  the link's three sysctls in one visit to the pod netns, before the store is written ($seq)" \
		grep -Eq '^[^K]*SKKKS[^K]*W[^K]*$' <<<"$seq"
	check_eq "  and set (addr_gen_mode arp_notify ndisc_notify)" \
		"$(cni_in dur cat /proc/sys/net/ipv6/conf/net1/addr_gen_mode /proc/sys/net/ipv4/conf/net1/arp_notify \
			/proc/sys/net/ipv6/conf/net1/ndisc_notify | tr '\n' ' ')" "0 1 1 "
	cni_run DEL "$CNI_TMP/fast.json" c-dur net1 /run/netns/"$CNI_PFX-dur"
	cni_check_ok "  DEL"
else
	tap_skip "record durability (the order of create, fsync and the store's write)" "no strace"
fi

# --- the store's disk full when the allocation commits ---------------------------------
# (between the store's open and the allocation's commit: the commit's
# failure fails the ADD, which rolls back everything it built)
full=$CNI_TMP/full
if mkdir -p "$full" && mount -t tmpfs -o size=1m tmpfs "$full"; then
	cni_node_config "$CNI_TMP/full-node.json" monitor "" \
		"{ \"store\": \"sqlite\", \"path\": \"$full/ipam.db\" }"
	full_held() {
		cni_in node "$RN_BUILD/bin/rdmanetctl" -c "$CNI_TMP/full-node.json" -j ip show \
			--container-id "$1" --ifname net1 2>/dev/null | jq -r '.allocations | length'
	}
	export CNI_RUN_CONFIG=$CNI_TMP/full-node.json
	cni_pod_up full0 >/dev/null
	cni_run ADD "$CNI_TMP/fast.json" c-full0 net1 /run/netns/"$CNI_PFX-full0"
	cni_check_ok "a store on a 1 MiB tmpfs: ADD"
	cni_run DEL "$CNI_TMP/fast.json" c-full0 net1 /run/netns/"$CNI_PFX-full0"
	cni_pod_up full1 >/dev/null
	check "ADD stopped once the store is open" add_stopped recorded c-full1 full1
	dd if=/dev/zero of="$full/filler" bs=4k 2>/dev/null
	kill -CONT "$STOPPED_PID"
	wait "$STOPPED_BG"
	CNI_RC=$? CNI_OUT=$CNI_TMP/bg.out
	check "  the disk filled meanwhile: ADD fails ($(cni_code))" \
		test "$CNI_RC" != 0 -a "$(cni_code)" != none
	check "  saying the store could not write" grep -qi 'full' "$CNI_TMP/bg.out"
	CNI_OUT=$CNI_TMP/out.json
	check_eq "  rolled back (pod|allocations|registration|record)" \
		"$(cni_pod_leftovers full1)|$(full_held c-full1)|$(cni_registered c-full1 net1)|$(ls "$CNI_STATE/faults" 2>/dev/null)" \
		"|0|0|"
	rm -f "$full/filler"
	cni_run ADD "$CNI_TMP/fast.json" c-full1 net1 /run/netns/"$CNI_PFX-full1"
	cni_check_ok "  room again: the ADD retried succeeds"
	check_eq "  and holds its addresses" "$(full_held c-full1)" 2
	cni_run DEL "$CNI_TMP/fast.json" c-full1 net1 /run/netns/"$CNI_PFX-full1"
	unset CNI_RUN_CONFIG
	umount "$full"
else
	tap_skip "the store's disk full at the commit" "cannot mount a tmpfs"
fi

# --- DEL gives the addresses back once the link has left the pod's netns ----------------
# (the kernel then still waits out an RCU grace period before the delete
# returns; the host side runs meanwhile: link_delete.h). Stopped at that
# point, the link is gone from the netns and the store still holds the
# addresses; let go, DEL finishes and leaves nothing.
cni_pod_up dgone >/dev/null
cni_run ADD "$CNI_TMP/net.json" c-dgone net1 /run/netns/"$CNI_PFX-dgone"
cni_check_ok "ADD c-dgone"
dgone_held=$(cni_held c-dgone net1)
STOP_CMD=DEL check "DEL stopped where the host side begins" \
	add_stopped pod-side-gone c-dgone dgone
check_eq "  the link has left the netns, the addresses are still held (links|held)" \
	"$(ip -n "$CNI_PFX-dgone" -o link show net1 2>/dev/null | wc -l)|$(cni_held c-dgone net1)" "0|$dgone_held"
kill -CONT "$STOPPED_PID"
wait "$STOPPED_BG"
check_eq "  DEL then succeeds" "$?" 0
check_eq "  nothing left (pod|IPAM|registration|record|node links)" \
	"$(clean c-dgone net1 dgone)" "$CLEAN"

# --- DEL answers while the kernel still finishes the link's deletion ---------------------
# (the delete is sent by a child that keeps nothing of DEL's; once the
# kernel announces the link gone, DEL goes on without waiting for the
# delete's return: link_delete.h). The child stopped after the delete
# returned, before it answers: DEL has answered all the same.
cni_pod_up dchild >/dev/null
cni_run ADD "$CNI_TMP/net.json" c-dchild net1 /run/netns/"$CNI_PFX-dchild"
cni_check_ok "ADD c-dchild"
STOP_CMD=DEL check "the deleting child stops once the delete has returned" \
	add_stopped link-deleted c-dchild dchild
child=$STOPPED_PID
wait "$STOPPED_BG"
check_eq "  DEL has answered meanwhile" "$?" 0
check_eq "  leaving nothing (pod|IPAM|registration|record|node links)" \
	"$(clean c-dchild net1 dchild)" "$CLEAN"
check_eq "  the child holds /dev/null as stdio, its socket and its pipe, nothing else" \
	"$(for fd in /proc/"$child"/fd/*; do readlink "$fd"; done | sed -E 's/:\[[0-9]+\]$//' | sort | xargs)" \
	"/dev/null /dev/null /dev/null pipe socket"
[ -n "$child" ] && kill -CONT "$child"

# the same kills, but the runtime never calls DEL: GC alone cleans up
for step in $STEPS; do
	cni_pod_up "g$step" >/dev/null
	check "kill -9 at $step, and no DEL" add_killed "$step" "c-g$step" "g$step"
	check "  its record is left for GC to find" test -e "$CNI_STATE/faults/c-g$step:net1"
	# the link (in the pod's netns) comes before the allocation
	case $step in
	recorded | created) ;;
	*) check "  and its addresses are still held" test -n "$(cni_held "c-g$step" net1)" ;;
	esac
done
cni_pod_up keep >/dev/null
cni_run ADD "$CNI_TMP/net.json" c-keep net1 /run/netns/"$CNI_PFX-keep"
jq '. + {"cni.dev/valid-attachments": [{"containerID": "c-keep", "ifname": "net1"}]}' \
	"$CNI_TMP/net.json" >"$CNI_TMP/gc.json"
cni_run GC "$CNI_TMP/gc.json" "" "" ""
cni_check_ok "GC after kills at every step succeeds"
for step in $STEPS; do
	check_eq "  GC cleaned the ADD killed at $step" \
		"$(clean "c-g$step" net1 "g$step" | cut -d'|' -f1-3)" "||0"
done
check_eq "  and kept the valid attachment (link, addresses, registration)" \
	"$(ip -n "$CNI_PFX-keep" -o link show net1 | wc -l) $(cni_held c-keep net1 | tr , '\n' | wc -l) $(cni_registered c-keep net1)" \
	"1 2 1"
cni_run DEL "$CNI_TMP/net.json" c-keep net1 /run/netns/"$CNI_PFX-keep"

# --- GC while an ADD is still running: never collected --------------------------------
# (stopped before it allocates, as when it waits for the store's writer lock
# on a busy node, and after; the runtime's list does not have it yet)
for step in recorded allocated; do
	cni_pod_up "f$step" >/dev/null
	check "ADD stopped at $step" add_stopped "$step" "c-f$step" "f$step"
	held_before=$(cni_held "c-f$step" net1)
	cni_run GC "$CNI_TMP/gc.json" "" "" ""
	cni_check_ok "  GC meanwhile succeeds"
	check "  and leaves the running ADD's record" test -e "$CNI_STATE/faults/c-f$step:net1"
	check_eq "  and its addresses" "$(cni_held "c-f$step" net1)" "$held_before"
	kill -CONT "$STOPPED_PID"
	wait "$STOPPED_BG"
	check_eq "  the ADD then succeeds" "$?" 0
	got=$(jq -r '[.ips[].address | sub("/.*"; "")] | sort | join(",")' "$CNI_TMP/bg.out" 2>/dev/null)
	check "  with addresses" test -n "$got"
	check_eq "  which the store holds for it (nobody else can get them)" \
		"$(cni_held "c-f$step" net1)" "$got"
	check "  its record complete" \
		jq -e .complete "$CNI_STATE/faults/c-f$step:net1"
	cni_run DEL "$CNI_TMP/net.json" "c-f$step" net1 /run/netns/"$CNI_PFX-f$step"
	check_eq "  DEL: nothing left, lock file gone too" \
		"$(clean "c-f$step" net1 "f$step")|$(find "$CNI_STATE/faults" -name "*c-f$step*" | wc -l)" \
		"$CLEAN|0"
done

# --- the netns vanishes while ADD runs ----------------------------------------------
for step in created registered; do
	cni_pod_up "v$step" >/dev/null
	check "ADD stopped at $step" add_stopped "$step" "c-v$step" "v$step"
	ip netns del "$CNI_PFX-v$step"
	kill -CONT "$STOPPED_PID"
	wait "$STOPPED_BG"
	CNI_RC=$? CNI_OUT=$CNI_TMP/bg.out CNI_ERR=$CNI_TMP/bg.err
	cni_check_error 3 "netns deleted during ADD (at $step): ADD fails with 3"
	CNI_OUT=$CNI_TMP/out.json CNI_ERR=$CNI_TMP/err.log
	check_eq "  rolled back: no allocation, registration or record" \
		"$(cni_held "c-v$step" net1)|$(cni_registered "c-v$step" net1)|$(ls "$CNI_STATE/faults" 2>/dev/null)" "|0|"
done

# --- DEL while the node config is unreadable (an edit of the ConfigMap gone wrong) -------
# the pod side and the registration go at once; the addresses (whose store
# the config names) and the record stay for the DEL the runtime retries
cp "$CNI_CONFIG" "$CNI_TMP/node.good"
good() { CNI_CONFIG=$CNI_TMP/node.good "$@"; }
for how in key json; do
	cni_pod_up "n$how" >/dev/null
	cni_run ADD "$CNI_TMP/net.json" "c-n$how" net1 /run/netns/"$CNI_PFX-n$how"
	cni_check_ok "ADD c-n$how, then the node config breaks ($how)"
	held[${#held[@]}]=$(good cni_held "c-n$how" net1)
done
# a misspelt key: the file is still JSON, and still names its pin dir
jq '. + {"mastres": []}' "$CNI_TMP/node.good" >"$CNI_CONFIG"
cni_run DEL "$CNI_TMP/net.json" c-nkey net1 /run/netns/"$CNI_PFX-nkey"
cni_check_error 7 "DEL with an unknown key in the node config: 7, so the runtime retries it"
check "  saying the addresses stay" \
	grep -q 'addresses stay allocated until a DEL can read the config' \
	<<<"$(jq -r '"\(.msg) | \(.details)"' "$CNI_OUT")"
# the answer reaches pod events: the file's content goes to the node's log only
check "  naming the key in the node's log (stderr), not in the answer" \
	bash -c "grep -q mastres '$CNI_ERR' && ! grep -q mastres '$CNI_OUT'"
check_eq "  the pod side is gone all the same (link, addresses, routes, rules)" \
	"$(cni_pod_leftovers nkey)" ""
check_eq "  and the registration (the pin dir the file still names)" \
	"$(good cni_registered c-nkey net1)" 0
check_eq "  the addresses are still held, the record kept" \
	"$(good cni_held c-nkey net1)|$(ls "$CNI_STATE/faults" | grep -c c-nkey)" "${held[0]}|1"
# not JSON at all: the pin dir is unknown, the default one is tried
printf '{ "node": "%s", ' "$CNI_PFX" >"$CNI_CONFIG"
cni_run DEL "$CNI_TMP/net.json" c-njson net1 /run/netns/"$CNI_PFX-njson"
cni_check_error 7 "DEL with a node config cut short: 7"
check_eq "  the pod side is gone all the same" "$(cni_pod_leftovers njson)" ""
check_eq "  addresses held, record and registration (not at the default pin dir) kept" \
	"$(good cni_held c-njson net1)|$(ls "$CNI_STATE/faults" | grep -c c-njson)|$(good cni_registered c-njson net1)" \
	"${held[1]}|1|1"
cp "$CNI_TMP/node.good" "$CNI_CONFIG"
for how in key json; do
	cni_run DEL "$CNI_TMP/net.json" "c-n$how" net1 /run/netns/"$CNI_PFX-n$how"
	cni_check_ok "config fixed: the retried DEL of c-n$how succeeds"
	check_eq "  released, unregistered, record gone" \
		"$(cni_held "c-n$how" net1)|$(cni_registered "c-n$how" net1)|$(ls "$CNI_STATE/faults" | grep -c "c-n$how")" "|0|0"
done

# --- the IPAM store is unavailable ----------------------------------------------------
# etcd-server is a dependency of the tests: not starting is a failure
if ! cni_etcd_start "$CNI_TMP/etcd"; then
	tap_fail "a one-member etcd starts"
	tap_done
fi
cni_agent_stop
cni_node_config "$CNI_TMP/etcd.json" monitor "" \
	"{ \"store\": \"etcd\", \"endpoints\": [\"$CNI_ETCD_URL\"], \"prefix\": \"/$CNI_PFX\", \"timeout_s\": 1 }"
# the same network on a node whose config (RDMANET_CONFIG) names the etcd store
cp "$CNI_TMP/net.json" "$CNI_TMP/netetcd.json"
CNI_RUN_CONFIG=$CNI_TMP/etcd.json
ns1=$(cni_pod_up e1)
ns2=$(cni_pod_up e2)
cni_run ADD "$CNI_TMP/netetcd.json" c-e1 net1 "$ns1"
cni_check_ok "ADD with the etcd store"
cp "$CNI_OUT" "$CNI_TMP/e1.result"
cni_etcd_stop
t0=$(date +%s%N)
cni_run ADD "$CNI_TMP/netetcd.json" c-e2 net1 "$ns2"
t1=$(date +%s%N)
cni_check_error 11 "etcd down: ADD fails with 11 (try again later)"
check_range "  within the store's 1 s timeout (ms)" $(( (t1 - t0) / 1000000 )) 0 3000
check_eq "  nothing left in the pod, no record" \
	"$(cni_pod_leftovers e2)|$(ls "$CNI_STATE/faults/c-e2:net1" 2>/dev/null)" "|"
cni_run DEL "$CNI_TMP/netetcd.json" c-e1 net1 "$ns1"
cni_check_error 11 "etcd down: DEL fails with 11, so the runtime retries it"
check "  and keeps the record until it can release" test -e "$CNI_STATE/faults/c-e1:net1"
cni_run STATUS "$CNI_TMP/netetcd.json" "" "" ""
cni_check_error 50 "etcd down: STATUS says 50"
check "etcd starts again" cni_etcd_start "$CNI_TMP/etcd"
held_e2=$(CNI_CONFIG=$CNI_TMP/etcd.json cni_ctl -j ip show --container-id c-e2 --ifname net1)
check_eq "etcd back: the failed ADD had written nothing for c-e2" \
	"$(jq -c .allocations <<<"$held_e2")" "[]"
cni_run DEL "$CNI_TMP/netetcd.json" c-e1 net1 "$ns1"
cni_check_ok "etcd back: DEL succeeds"
check_eq "  released in etcd, pod and records clean" \
	"$(CNI_CONFIG=$CNI_TMP/etcd.json cni_held c-e1 net1)|$(cni_pod_leftovers e1)|$(ls "$CNI_STATE/faults")" "||"
cni_run ADD "$CNI_TMP/netetcd.json" c-e2 net1 "$ns2"
cni_check_ok "etcd back: ADD succeeds"
cni_run DEL "$CNI_TMP/netetcd.json" c-e2 net1 "$ns2"

# --- the static plugin hands etcd requests to rdmanet-etcd beside it ---------------------
# (every etcd call above went that way; without it: a clear error, nothing done)
check "rdmanet is static (no interpreter), rdmanet-etcd dynamic" \
	sh -c "! readelf -lW '$CNI_BIN' | grep -q INTERP && readelf -lW '$CNI_BIN-etcd' | grep -q INTERP"
RDMANET_CNI_LOG=debug cni_run ADD "$CNI_TMP/netetcd.json" c-e2 net1 "$ns2"
cni_check_ok "ADD with the etcd store"
check "  went through rdmanet-etcd" grep -q "etcd store: handing over to $CNI_BIN-etcd" "$CNI_ERR"
cni_run DEL "$CNI_TMP/netetcd.json" c-e2 net1 "$ns2"
mkdir -p "$CNI_TMP/lonely"
cp "$CNI_BIN" "$CNI_TMP/lonely/rdmanet"
CNI_BIN=$CNI_TMP/lonely/rdmanet cni_run ADD "$CNI_TMP/netetcd.json" c-e4 net1 "$ns2"
cni_check_error 5 "rdmanet without rdmanet-etcd beside it, etcd store: ADD fails with 5"
check "  naming what is missing" grep -q "through rdmanet-etcd installed beside it" "$CNI_OUT"
check_eq "  and does nothing (pod|record|etcd)" \
	"$(cni_pod_leftovers e2)|$(ls "$CNI_STATE/faults")|$(CNI_CONFIG=$CNI_TMP/etcd.json cni_held c-e4 net1)" "||"
CNI_BIN=$CNI_TMP/lonely/rdmanet CNI_RUN_CONFIG= cni_run ADD "$CNI_TMP/fast.json" c-e4 net1 "$ns2"
cni_check_ok "  the same plugin with the SQLite store needs nothing beside it"
CNI_BIN=$CNI_TMP/lonely/rdmanet CNI_RUN_CONFIG= cni_run DEL "$CNI_TMP/fast.json" c-e4 net1 "$ns2"

# --- a store that cannot be opened for another reason: DEL still says "try again" -----
# (any answer but 11 makes the runtime give up on a DEL whose addresses may be held)
: >"$CNI_TMP/not-a-dir"
cni_node_config "$CNI_TMP/broken-store.json" monitor "" \
	"{ \"store\": \"sqlite\", \"path\": \"$CNI_TMP/not-a-dir/ipam.db\" }"
CNI_RUN_CONFIG=$CNI_TMP/broken-store.json
cni_run DEL "$CNI_TMP/net.json" c-e3 net1 ""
cni_check_error 11 "store cannot be opened (its directory is a file): DEL answers 11"
tap_done
