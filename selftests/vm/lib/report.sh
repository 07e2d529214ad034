# shellcheck shell=bash
# Turning a finished run into TAP on the host. Sourced by vm.sh.
#
#   vm_report NODE...    re-emits each node's TAP lines (prefixed "NODE: ")
#                        through tap.sh, adds a failure for a node that did
#                        not finish, failed setup or exited non-zero without
#                        saying why; returns 1 if anything failed.

vm__tap() {
	local kind=$1
	shift
	if declare -F tap_ok >/dev/null; then
		case $kind in
		ok) tap_ok "$*" ;;
		fail) tap_fail "$*" ;;
		skip) tap_skip "$1" "$2" ;;
		esac
	else
		case $kind in
		ok) echo "ok - $*" ;;
		fail) echo "not ok - $*" ;;
		skip) echo "ok - $1 # SKIP $2" ;;
		esac
	fi
}

vm__diag_tail() {
	local what=$1 file=$2 n=${3:-15}
	[ -s "$file" ] || return 0
	echo "# --- $what (last $n lines of $file) ---"
	tail -n "$n" "$file" | sed 's/^/#   /'
}

# Seconds between two files holding `date +%s.%N`.
vm__elapsed() {
	if [ ! -f "$1" ] || [ ! -f "$2" ]; then
		echo "?"
		return 0
	fi
	awk -v a="$(cat "$1")" -v b="$(cat "$2")" 'BEGIN { printf "%.1f", b - a }'
}

vm__report_timing() {
	local node=$1 d=$VM_RUN_DIR/$1 boot="" script=""
	if [ -f "$d/timing" ]; then
		boot=$(awk '$1 == "kernel_to_script" { print $2 }' "$d/timing")
		script=$(awk '$1 == "script" { print $2 }' "$d/timing")
	fi
	echo "# $node: kernel start to script ${boot:-?}s, script ${script:-?}s," \
		"qemu wall $(vm__elapsed "$d/started" "$d/ended")s"
}

# Returns 1 if the node failed in any way.
vm__report_node() {
	local node=$1 d=$VM_RUN_DIR/$1 status="" line desc tap_lines=0 failed=0
	[ -f "$d/status" ] && status=$(cat "$d/status")
	if [ -f "$d/stdout" ]; then
		while IFS= read -r line; do
			if [[ $line =~ ^ok\ [0-9]+\ -\ (.*)\ \#\ (SKIP|skip)\ ?(.*)$ ]]; then
				vm__tap skip "$node: ${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
			elif [[ $line =~ ^ok\ [0-9]+( - )?(.*)$ ]]; then
				vm__tap ok "$node: ${BASH_REMATCH[2]}"
			elif [[ $line =~ ^not\ ok\ [0-9]+( - )?(.*)$ ]]; then
				vm__tap fail "$node: ${BASH_REMATCH[2]}"
				failed=1
			elif [[ $line =~ ^#\ (.*)$ ]]; then
				echo "# $node: ${BASH_REMATCH[1]}"
				continue
			else
				continue
			fi
			tap_lines=$((tap_lines + 1))
		done <"$d/stdout"
	fi
	desc=$(basename "$(. "$d/env" 2>/dev/null; echo "${VM_SCRIPT:-script}")")
	if [ -z "$status" ]; then
		if [[ " ${VM_TIMED_OUT:-} " == *" $node "* ]]; then
			vm__tap fail "$node: $desc did not finish in time (VM killed; console $d/console.log)"
		else
			vm__tap fail "$node: VM stopped before $desc finished (console $d/console.log)"
		fi
		failed=1
	elif [ "$status" = setup ]; then
		vm__tap fail "$node: VM setup failed: $(grep 'setup failed' "$d/setup.log" | tail -n 1)"
		failed=1
	elif [ "$status" != 0 ] && [ $failed = 0 ]; then
		vm__tap fail "$node: $desc exited with status $status"
		failed=1
	elif [ "$status" = 0 ] && [ $tap_lines = 0 ]; then
		vm__tap ok "$node: $desc exited with status 0"
	fi
	vm__report_timing "$node"
	if [ $failed = 1 ]; then
		vm__diag_tail "$node stderr" "$d/stderr"
		vm__diag_tail "$node setup" "$d/setup.log" 10
		[ "$status" = 0 ] || vm__diag_tail "$node console" "$d/console.log" 20
		vm__diag_tail "$node qemu" "$d/qemu.log" 5
		return 1
	fi
	return 0
}

vm_report() {
	local node rc=0
	for node in "$@"; do
		vm__report_node "$node" || rc=1
	done
	echo "# VM logs: $VM_RUN_DIR"
	return $rc
}
