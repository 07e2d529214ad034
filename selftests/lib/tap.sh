# shellcheck shell=bash
# TAP output for shell tests: source it, call the checks, end with tap_done.
#   check "what" command args...     passes if the command succeeds
#   check_eq "what" ACTUAL EXPECTED  passes if the strings are equal
#   check_range "what" ACTUAL LO HI  passes if LO <= ACTUAL <= HI (integers)
#   tap_skip "what" "why"            reports a skip
#   tap_skip_all "why"               skips the whole test (a skipped "ok", exit 0)
TAP_N=0
TAP_FAILED=0

tap_ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $*"; }
tap_fail() { TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $*"; TAP_FAILED=1; }
tap_skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }
tap_skip_all() { echo "1..0 # SKIP $*"; echo "ok 1 - all # SKIP $*"; exit 0; }
tap_diag() { echo "# $*"; }

check() {
	local what=$1
	shift
	if "$@"; then tap_ok "$what"; else tap_fail "$what (command: $*)"; fi
}

check_eq() {
	if [ "$2" = "$3" ]; then tap_ok "$1"; else tap_fail "$1: got '$2', want '$3'"; fi
}

check_range() {
	if [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ] 2>/dev/null; then
		tap_ok "$1 ($2)"
	else
		tap_fail "$1: got '$2', want $3..$4"
	fi
}

tap_done() {
	echo "1..$TAP_N"
	exit $TAP_FAILED
}
