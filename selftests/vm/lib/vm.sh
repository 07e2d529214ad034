# shellcheck shell=bash
# VM testbed, host side: boot one or two Debian-kernel VMs under qemu (TCG)
# with the host root over 9p, run a script in each, bring back its TAP,
# output and exit status. See selftests/vm/README.md for the whole story.
#
#   vm_prepare [6.12|6.1]        kernel + initramfs in the cache; 77 if qemu cannot run
#   vm_require [6.12|6.1]        vm_prepare for TAP tests: skip_all / fail + exit
#   vm_run_pair A_SCRIPT B_SCRIPT [TIMEOUT]   boot node-a and node-b, joined by a wire
#   vm_run_one SCRIPT [TIMEOUT]               boot node-a alone
#
# After a run: VM_RUN_DIR holds env, node-a/{stdout,stderr,status,setup.log,
# console.log,qemu.log,timing} (and node-b/), plus whatever the scripts
# wrote to $VM_OUT. The run re-emits the nodes' TAP lines through tap.sh.

VM_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=selftests/vm/lib/kernel.sh
. "$VM_LIB/kernel.sh"
# shellcheck source=selftests/vm/lib/initramfs.sh
. "$VM_LIB/initramfs.sh"
# shellcheck source=selftests/vm/lib/qemu.sh
. "$VM_LIB/qemu.sh"
# shellcheck source=selftests/vm/lib/qemu10.sh
. "$VM_LIB/qemu10.sh"
# shellcheck source=selftests/vm/lib/report.sh
. "$VM_LIB/report.sh"

: "${RN_SRC:=$(cd "$VM_LIB/../../.." && pwd)}"
: "${RN_BUILD:=$RN_SRC/build}"
VM_CACHE=${VM_CACHE:-$RN_BUILD/vm-cache}
VM_LOGS=${VM_LOGS:-$RN_BUILD/vm-logs}
VM_SERIES_DEFAULT=6.12

# What every guest gets; tests may append to VM_MODULES before a run.
VM_MODULES_BASE="rdma_rxe ib_core ib_uverbs rdma_ucm rdma_cm macvlan ipvlan veth 8021q \
sch_ingress cls_bpf act_bpf"

# The last line is kept for the TAP failure vm_require reports.
vm_log() {
	VM_LAST_LOG="$*"
	echo "vm: $*" >&2
}

# modprobe and depmod live in sbin, which a non-login PATH may lack
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac

vm__check_timeout() {
	[[ $1 =~ ^[1-9][0-9]*$ ]] && return 0
	vm_log "timeout must be a number of seconds, not '$1'"
	return 1
}

# qemu that did not even start is reported like any other node failure
vm__qemu_failed() {
	vm__tap fail "start qemu for $1: $(tail -n 1 "$VM_RUN_DIR/$1/qemu.log" 2>/dev/null)"
	echo "# VM logs: $VM_RUN_DIR"
	return 1
}

# qemu must start a TCG machine at all; anything else that goes wrong later
# is a failure, not a skip.
vm__qemu_usable() {
	local out
	if ! command -v qemu-system-x86_64 >/dev/null; then
		VM_SKIP_REASON="qemu-system-x86_64 not installed (make deps installs qemu-system-x86)"
		return 1
	fi
	if ! out=$(echo quit | timeout 20 qemu-system-x86_64 -accel tcg -machine none -nodefaults \
		-display none -monitor stdio 2>&1); then
		VM_SKIP_REASON="qemu-system-x86_64 cannot start a TCG machine: $(echo "$out" | tail -n 1)"
		return 1
	fi
	return 0
}

vm_prepare() {
	local series=${1:-${VM_SERIES:-$VM_SERIES_DEFAULT}} rc
	if [ "${VM_PREPARED:-}" = "$series" ]; then
		return 0
	fi
	VM_SKIP_REASON=
	vm__qemu_usable || { vm_log "$VM_SKIP_REASON"; return 77; }
	mkdir -p "$VM_CACHE" "$VM_LOGS" || return 1
	# one preparer per cache; parallel test runs wait here instead of
	# downloading and extracting the same package twice
	exec {VM_LOCK_FD}>"$VM_CACHE/.lock"
	flock "$VM_LOCK_FD"
	# shellcheck disable=SC2086 # lists of module names
	vm_kernel_fetch "$series" && vm_initramfs_build &&
		vm_kernel_unpack_modules virtio_net $VM_MODULES_BASE ${VM_MODULES:-}
	rc=$?
	flock -u "$VM_LOCK_FD"
	exec {VM_LOCK_FD}>&-
	[ $rc = 0 ] || return 1
	VM_SERIES=$series
	VM_PREPARED=$series
	vm_log "kernel $VM_KVER ($(basename "$VM_KDIR"), booting $(basename "$VM_KIMAGE")), initramfs $(basename "$VM_INITRD")"
}

# For TAP tests: a qemu that cannot start skips the whole test; a kernel
# that cannot be fetched or prepared fails it.
vm_require() {
	vm_prepare "$@"
	case $? in
	0) return 0 ;;
	77) tap_skip_all "$VM_SKIP_REASON" ;;
	*)
		tap_fail "prepare the VM kernel and initramfs (series ${1:-${VM_SERIES:-$VM_SERIES_DEFAULT}}):" \
			"${VM_LAST_LOG:-see the vm: lines on stderr}"
		tap_done
		;;
	esac
}

# A fresh run directory per run: kept after the run (console logs for
# debugging), older runs of the same test whose owner is gone are pruned.
# Named TEST.SEQ.PID: several runs in one test keep their own logs.
VM_RUN_SEQ=${VM_RUN_SEQ:-0}
vm__new_run_dir() {
	local name=$1 d pid
	if [ $VM_RUN_SEQ = 0 ]; then
		for d in "$VM_LOGS/$name".*.*; do
			[ -d "$d" ] || continue
			pid=${d##*.}
			[ "$pid" != $$ ] && kill -0 "$pid" 2>/dev/null && continue
			rm -rf "$d"
		done
	fi
	VM_RUN_SEQ=$((VM_RUN_SEQ + 1))
	VM_RUN_DIR=$VM_LOGS/$name.$VM_RUN_SEQ.$$
	rm -rf "$VM_RUN_DIR"
	mkdir -p "$VM_RUN_DIR/sync" "$VM_RUN_DIR/shared"
}

vm__q() { printf 'export %s=%q\n' "$1" "$2"; }

vm__write_env() {
	local nodes=$1
	{
		vm__q RN_SRC "$RN_SRC"
		vm__q RN_BUILD "$RN_BUILD"
		vm__q VM_NODES "$nodes"
		vm__q VM_KVER "$VM_KVER"
		vm__q VM_SERIES "$VM_SERIES"
		vm__q VM_IFACE eth0
		vm__q VM_RXE rxe0
		vm__q VM_PREFIXLEN 24
		vm__q VM_SUBNET "${VM_NET_PREFIX}.0/24"
		vm__q VM_RXE_SETUP "${VM_RXE_SETUP:-1}"
		vm__q VM_MODULES "$VM_MODULES_BASE ${VM_MODULES:-}"
		vm__q VM_RUN /rnvm
		vm__q VM_SHARED /rnvm/shared
		vm__q VM_LIB "$VM_LIB"
		vm__q VM_DEBUG "${VM_DEBUG:-}"
		vm__q VM_MGMT_IFACE "${VM_MGMT:+eth1}"
	} >"$VM_RUN_DIR/env"
}

vm__write_node_env() {
	local node=$1 script=$2 ip=$3 peer=$4 peer_ip=$5
	mkdir -p "$VM_RUN_DIR/$node"
	{
		vm__q VM_NODE "$node"
		vm__q VM_IP "$ip"
		vm__q VM_PEER "$peer"
		vm__q VM_PEER_IP "$peer_ip"
		vm__q VM_SCRIPT "$script"
		vm__q VM_SCRIPT_ARGS "${VM_SCRIPT_ARGS:-}"
		vm__q VM_OUT "/rnvm/$node"
	} >"$VM_RUN_DIR/$node/env"
}

VM_NET_PREFIX=192.168.77

vm__script_path() {
	local s
	s=$(realpath -e "$1" 2>/dev/null) || { vm_log "no such script: $1"; return 1; }
	echo "$s"
}

# The node whose guest kernel panicked inside Soft-RoCE (an oops whose RIP
# is in rdma_rxe), or nothing. Debian's 6.12 rxe has use-after-free races
# in its task and timer code (seen: rxe_sched_task from a timer, on a QP
# perftest had torn down) that TCG's slow, uneven timing exposes now and
# then; on RDMA hardware rxe is not there at all.
vm__rxe_panicked() {
	local node f
	for node in "$@"; do
		f=$VM_RUN_DIR/$node/console.log
		[ -f "$f" ] || continue
		grep -q 'Kernel panic' "$f" && grep -q 'RIP: .*\[rdma_rxe\]' "$f" &&
			{ echo "$node"; return 0; }
	done
	return 1
}

# Called after a run with $tries left (the caller's local): 0 if the run
# must be repeated because a guest died in rxe. Says so in the TAP output
# and keeps the dead run's logs; a second panic is reported as a failure.
vm__repeat_after_rxe_panic() {
	local who
	who=$(vm__rxe_panicked "$@") || return 1
	if [ "$tries" -le 0 ]; then
		echo "# $who: the guest kernel panicked in rdma_rxe again; not repeated"
		return 1
	fi
	tries=$((tries - 1))
	echo "# $who: the guest kernel panicked in rdma_rxe ($(grep -m1 -o 'RIP: .*' \
		"$VM_RUN_DIR/$who/console.log")): a Soft-RoCE bug, not this test's;" \
		"the run is repeated (logs of this one: $VM_RUN_DIR)"
	return 0
}

# vm_run_pair NODE_A_SCRIPT NODE_B_SCRIPT [TIMEOUT]
vm_run_pair() {
	local a b timeout=${3:-${VM_TIMEOUT:-180}}
	[ -n "${VM_PREPARED:-}" ] || vm_prepare || return 1
	a=$(vm__script_path "$1") && b=$(vm__script_path "$2") || return 1
	vm__check_timeout "$timeout" || return 1
	local tries=${VM_RXE_PANIC_RETRIES:-1}
	while :; do
		vm__new_run_dir "$(basename "${0%.sh}")"
		vm__write_env "node-a node-b"
		vm__write_node_env node-a "$a" "$VM_NET_PREFIX.1" node-b "$VM_NET_PREFIX.2"
		vm__write_node_env node-b "$b" "$VM_NET_PREFIX.2" node-a "$VM_NET_PREFIX.1"
		vm_qemu_pair "$timeout" || vm__qemu_failed node-a || return 1
		vm__repeat_after_rxe_panic node-a node-b || break
	done
	vm_report node-a node-b
}

# vm_run_one SCRIPT [TIMEOUT]: node-a alone; eth0 is still there (with no
# one on the other end), so rxe0 exists as well.
vm_run_one() {
	local s timeout=${2:-${VM_TIMEOUT:-180}}
	[ -n "${VM_PREPARED:-}" ] || vm_prepare || return 1
	s=$(vm__script_path "$1") || return 1
	vm__check_timeout "$timeout" || return 1
	local tries=${VM_RXE_PANIC_RETRIES:-1}
	while :; do
		vm__new_run_dir "$(basename "${0%.sh}")"
		vm__write_env "node-a"
		vm__write_node_env node-a "$s" "$VM_NET_PREFIX.1" node-b "$VM_NET_PREFIX.2"
		vm_qemu_one "$timeout" || vm__qemu_failed node-a || return 1
		vm__repeat_after_rxe_panic node-a || break
	done
	vm_report node-a
}
