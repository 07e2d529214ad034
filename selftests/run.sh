#!/bin/bash
# Runs every test and prints "N passed, N failed, N skipped".
#
#   selftests/run.sh [BUILD_DIR] [PATTERN]
#
# A test is any executable that prints TAP ("ok N - what", "not ok N - what",
# "ok N - what # SKIP why"): build/selftests/{unit,bpf}/test_* (cmocka, or
# BPF_PROG_TEST_RUN fixtures) and selftests/*/test_*.sh. PATTERN (a shell
# glob on the test's path) picks a subset. Each test's full output goes to
# BUILD_DIR/test-logs/; failures print their log's tail here.
set -u
cd "$(dirname "$0")/.."
OUT=${1:-build}
PATTERN=${2:-*}
export RN_BUILD=$(realpath "$OUT")
export RN_SRC=$(pwd)
LOGDIR=$OUT/test-logs/run-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$LOGDIR"

# bpffs is where the data path lives; a fresh machine may not have it mounted
if ! mountpoint -q /sys/fs/bpf 2>/dev/null; then
	mount -t bpf bpf /sys/fs/bpf 2>/dev/null || true
fi
ulimit -l unlimited 2>/dev/null || true

passed=0 failed=0 skipped=0
failures=()

# Order: fast and self-contained first, VMs last. Every folder with tests
# is found (a new one cannot be silently left out); ORDER only says which
# come first, the others follow, vm/ is always last.
ORDER="fuzz unit netns metrics ipam cni devplugin deploy"
kinds=()
for k in $ORDER; do kinds+=("$k"); done
for d in selftests/*/; do
	k=$(basename "$d")
	[[ " $ORDER vm " == *" $k "* ]] || kinds+=("$k")
done
kinds+=(vm)
scripts=()
for k in "${kinds[@]}"; do scripts+=(selftests/"$k"/test_*.sh); done
tests=()
for t in "$OUT"/selftests/unit/test_* "$OUT"/selftests/bpf/test_* "${scripts[@]}"; do
	[ -x "$t" ] || continue
	[[ "$t" == *.d ]] && continue
	# shellcheck disable=SC2053
	[[ "$t" == $PATTERN ]] || continue
	tests+=("$t")
done

# run_one TEST: runs it, leaves its counts in $LOGDIR/NAME.result and what
# run.sh prints of it in $LOGDIR/NAME.summary (printed whole once it ended,
# so that tests running side by side do not interleave their lines).
run_one() {
	local t=$1 name log rc start p f s sum
	name=$(echo "$t" | sed "s|^$OUT/||; s|/|_|g")
	log=$LOGDIR/$name.log
	sum=$LOGDIR/$name.summary
	start=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout --kill-after=10 "${RN_TEST_TIMEOUT:-900}" "$t" >"$log" 2>&1
	rc=$?
	p=$(grep -cE '^ok [0-9]+' "$log" | tr -d ' ')
	s=$(grep -cE '^ok [0-9]+.*# (SKIP|skip)' "$log" | tr -d ' ')
	f=$(grep -cE '^not ok [0-9]+' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$p" = 0 ] && [ "$f" = 0 ] && [ "$s" = 0 ]; then
		# no TAP at all: the exit status is the result (77: skipped)
		if [ $rc = 0 ]; then p=1; elif [ $rc = 77 ]; then s=1; else f=1; fi
	elif [ $rc != 0 ] && [ $rc != 77 ] && [ "$f" = 0 ]; then
		f=1	# crashed or timed out after some passes
		echo "not ok - $t exited with status $rc" >>"$log"
	fi
	{
		printf '%-60s %3d passed %3d failed %3d skipped  %4ss\n' "$name" "$p" "$f" "$s" \
			"$(( $(date +%s) - start ))"
		grep -E '^ok [0-9]+.*# (SKIP|skip)' "$log" | sed 's/^/    /' | head -20
		if [ "$f" != 0 ]; then
			grep -E '^not ok' "$log" | sed 's/^/    /' | head -40
			echo "    --- last lines of $log ---"
			tail -n 30 "$log" | sed 's/^/    | /'
		fi
	} >"$sum"
	echo "$name $p $f $s" >"$LOGDIR/$name.result"
}

# collect TEST: adds a finished test's counts and prints its summary
collect() {
	local name p f s
	name=$(echo "$1" | sed "s|^$OUT/||; s|/|_|g")
	cat "$LOGDIR/$name.summary"
	read -r _ p f s <"$LOGDIR/$name.result" || { p=0 f=1 s=0; }
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	[ "$f" = 0 ] || failures+=("$name")
}

# The VM tests run RN_VM_JOBS at a time (default: one per core, at most 2).
# Each guest is one TCG vCPU, a single host thread, so a one-node VM test
# keeps one core busy and leaves the other idle; two side by side use both. The
# VM library is made for it: one preparer per kernel cache (flock), random
# loopback ports for the guests' wires, a run directory per test and PID.
# Longest first (the fresh root's times), so the two lanes end close
# together; a test not listed follows in name order. A pair test is two
# guests, two busy host threads, so the lanes share the cores unevenly
# anyway: the order only keeps a long test from starting last.
VM_LONG_FIRST="two_nodes sriov_vm datapath_kernels upgrade_vm devplugin_rxe rdma_dev datapath_vlan
rdma_traffic cni_ipvlan deploy_mounts vm_testbed"
vm_jobs=${RN_VM_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$vm_jobs" -ge 1 ] 2>/dev/null || vm_jobs=1
[ "$vm_jobs" -le 2 ] || vm_jobs=2

serial=() vm=() cluster=()
for t in "${tests[@]}"; do
	case $t in
	selftests/vm/*) vm+=("$t") ;;
	selftests/cluster/*) cluster+=("$t") ;;
	*) serial+=("$t") ;;
	esac
done
# The real-cluster tests (selftests/cluster) run in the VM lanes, first: a
# cluster test mostly waits on its API server and kubelets, beside a VM
# test's busy guest. The upstream programs they run (selftests/cluster/
# build.sh: Kubernetes, etcd, containerd from their Go modules, cached in
# $RN_CACHE) are built in the background from the start, like the VM
# prefetch; the lanes wait for that build (cold: about 30 minutes of CPU,
# mostly while the other tests wait on netlink and daemons; warm: seconds).
ordered=("${cluster[@]}")
vm+=("${cluster[@]}")
for n in $VM_LONG_FIRST; do
	for t in "${vm[@]}"; do [[ "$t" == */test_$n.sh ]] && ordered+=("$t"); done
done
for t in "${vm[@]}"; do
	[[ " ${ordered[*]} " == *" $t "* ]] || ordered+=("$t")
done

# What the VM tests boot is downloaded and unpacked first (vm/lib/prefetch.sh):
# the 6.12 kernel (every VM test), the 6.1 kernel (test_datapath_kernels),
# qemu 10 (test_sriov_vm).
VM_PREFETCH="6.12 6.1 qemu10"

# The VM tests are bound by CPU (a TCG guest keeps a core busy), the non-VM
# tests mostly wait (on netlink, daemons, timers: about half a core on
# average). With RN_VM_OVERLAP=1 one VM lane starts beside the non-VM tests,
# after the prefetch, and takes one-guest tests only (a pair test boots two
# guests, two busy host threads, and would leave the non-VM tests no core);
# the other lanes start when the non-VM tests are done, and from then on
# every lane takes any test. Lanes take the first test no lane took yet, in
# the longest-first order (mkdir of a claim is the lock). RN_VM_OVERLAP=0
# (the default) starts every lane after the non-VM tests.
overlap=${RN_VM_OVERLAP:-0}
declare -A pair=()
for t in "${ordered[@]}"; do
	grep -qE '^[^#]*(vm_main pair|vm_run_pair )' "$t" && pair[$t]=1
done
# vm_next: prints the next test for a lane, or fails when none is left for it
vm_next() {
	local i t
	for i in "${!ordered[@]}"; do
		t=${ordered[$i]}
		[ -e "$LOGDIR/vm-serial.done" ] || [ -z "${pair[$t]:-}" ] || continue
		# a cluster test waits for the build (done before vm-serial.done),
		# and runs while no other does (two clusters: twice the daemons)
		if [[ $t == selftests/cluster/* ]]; then
			[ -e "$LOGDIR/vm-serial.done" ] || continue
			mkdir "$LOGDIR/cluster-running" 2>/dev/null || continue
			mkdir "$LOGDIR/vm-claim.$i" 2>/dev/null && { echo "$t"; return 0; }
			rmdir "$LOGDIR/cluster-running"
			continue
		fi
		mkdir "$LOGDIR/vm-claim.$i" 2>/dev/null && { echo "$t"; return 0; }
	done
	return 1
}
vm_lane() {
	local t
	while t=$(vm_next); do
		run_one "$t"
		[[ $t != selftests/cluster/* ]] || rmdir "$LOGDIR/cluster-running"
	done
}
vm_prefetch() {
	# shellcheck disable=SC2086 # a list of words
	selftests/vm/lib/prefetch.sh $VM_PREFETCH >"$LOGDIR/vm-prefetch.log" 2>&1 ||
		echo "# vm-prefetch: not everything was prepared ($LOGDIR/vm-prefetch.log); the VM tests prepare again"
}

cluster_build_pid=
if [ ${#cluster[@]} -gt 0 ]; then
	nice -n 10 selftests/cluster/build.sh >"$LOGDIR/cluster-build.log" 2>&1 &
	cluster_build_pid=$!
fi

lanes=()
if [ ${#vm[@]} -gt 0 ] && [ ${#serial[@]} -gt 0 ]; then
	if [ "$overlap" = 1 ]; then
		{ vm_prefetch; vm_lane; } &
		lanes+=($!)
	else
		vm_prefetch &
		prefetch_pid=$!
	fi
fi

for t in "${serial[@]}"; do
	run_one "$t"
	collect "$t"
done

# (a finished prefetch whose PID a later child reused is no child of ours:
# bash says so; nothing is lost)
[ -z "${prefetch_pid:-}" ] || wait "$prefetch_pid" 2>/dev/null
if [ -n "$cluster_build_pid" ]; then
	wait "$cluster_build_pid" 2>/dev/null ||
		echo "# cluster-build: failed ($LOGDIR/cluster-build.log); the cluster tests will say so"
	tail -n 1 "$LOGDIR/cluster-build.log" | sed 's/^/# /'
fi
touch "$LOGDIR/vm-serial.done"
busy=0
for p in "${lanes[@]}"; do kill -0 "$p" 2>/dev/null && busy=$((busy + 1)); done
if [ ${#vm[@]} -gt 0 ]; then
	for _ in $(seq $((vm_jobs - busy))); do
		vm_lane &
		lanes+=($!)
	done
fi
[ ${#lanes[@]} = 0 ] || wait "${lanes[@]}"
for t in "${ordered[@]}"; do collect "$t"; done

echo
[ ${#failures[@]} = 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
