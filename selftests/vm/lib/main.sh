# shellcheck shell=bash
# The two halves of a single-file VM test: sourced by selftests/vm/test_*.sh.
#
#   vm_main pair|one GUEST_FUNCTION [TIMEOUT]
#
# Inside a VM (VM_NODE set): sources guest.sh, runs GUEST_FUNCTION, ends with
# tap_done (never returns). On the host: sources tap.sh and vm.sh, prepares
# the kernel (VM_SERIES, default 6.12; skip or fail as vm_require does),
# boots node-a and node-b ("pair") or node-a alone ("one") running this same
# file, re-emits their TAP, and returns so host-side checks on $VM_RUN_DIR
# can follow before the test's own tap_done. Returns vm_run_*'s status.

VM_LIB=${VM_LIB:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
: "${RN_SRC:=$(cd "$VM_LIB/../../.." && pwd)}"

vm_main() {
	local mode=$1 fn=$2 timeout=${3:-${VM_TIMEOUT:-180}} self
	if [ -n "${VM_NODE:-}" ]; then
		# shellcheck source=selftests/vm/lib/guest.sh
		. "$VM_LIB/guest.sh"
		"$fn"
		tap_done
	fi
	# once: sourcing tap.sh again would restart the TAP numbering
	# shellcheck source=selftests/lib/tap.sh
	declare -F tap_done >/dev/null || . "$RN_SRC/selftests/lib/tap.sh"
	# shellcheck source=selftests/vm/lib/vm.sh
	declare -F vm_run_pair >/dev/null || . "$VM_LIB/vm.sh"
	vm_require "${VM_SERIES:-$VM_SERIES_DEFAULT}"
	self=$(realpath "$0")
	case $mode in
	pair) vm_run_pair "$self" "$self" "$timeout" ;;
	one) vm_run_one "$self" "$timeout" ;;
	*)
		tap_fail "vm_main: mode must be pair or one, not '$mode'"
		tap_done
		;;
	esac
}
