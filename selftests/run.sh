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

run_one() {
	local t=$1 name log rc start
	name=$(echo "$t" | sed "s|^$OUT/||; s|/|_|g")
	log=$LOGDIR/$name.log
	start=$(date +%s)
	CMOCKA_MESSAGE_OUTPUT=TAP timeout --kill-after=10 "${RN_TEST_TIMEOUT:-900}" "$t" >"$log" 2>&1
	rc=$?
	local p f s
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
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	printf '%-60s %3d passed %3d failed %3d skipped  %4ss\n' "$name" "$p" "$f" "$s" \
		"$(( $(date +%s) - start ))"
	grep -E '^ok [0-9]+.*# (SKIP|skip)' "$log" | sed 's/^/    /' | head -20
	if [ "$f" != 0 ]; then
		failures+=("$name")
		grep -E '^not ok' "$log" | sed 's/^/    /' | head -40
		echo "    --- last lines of $log ---"
		tail -n 30 "$log" | sed 's/^/    | /'
	fi
}

for t in "${tests[@]}"; do
	run_one "$t"
done

echo
[ ${#failures[@]} = 0 ] || echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
