#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# PID 1 of a testbed VM after switch_root (the root is the host's, read-only
# under a tmpfs overlay; the initramfs already mounted /proc, /sys, /dev,
# bpffs, configfs, the run directory on /rnvm and the kernel's modules).
# Loads the modules the tests need, sets up eth0 with the node's address
# and Soft-RoCE rxe0, runs the node's script with its stdout, stderr and
# exit status going to the run directory, then powers off. Kernel command
# line: rnvm_node=node-a|node-b. Everything else is in /rnvm.
# Every exec costs tens of milliseconds under TCG: builtins where possible.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
RUN=/rnvm
# shellcheck disable=SC2154 # from the kernel command line
OUT=$RUN/$rnvm_node

say() { echo "rnvm[$rnvm_node]: $*" >/dev/console; }
uptime_s() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}
halt_vm() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 30
}
# A setup failure is written where the host looks for the script's status,
# so the report names it instead of a bare timeout.
setup_fail() {
	say "setup failed: $*"
	echo "setup failed: $*" >>"$OUT/setup.log"
	echo "setup" >"$OUT/status"
	halt_vm
}

T_INIT=$(uptime_s)
[ -f "$OUT/env" ] || setup_fail "no $OUT/env"
# shellcheck disable=SC1091
. "$RUN/env"
# shellcheck disable=SC1091
. "$OUT/env"
exec >>"$OUT/setup.log" 2>&1
if [ -n "${VM_DEBUG:-}" ]; then
	PS4='+ ${EPOCHREALTIME} '
	set -x
fi

# shellcheck disable=SC2086 # a list of module names
modprobe -a virtio_net $VM_MODULES || setup_fail "modprobe -a virtio_net $VM_MODULES failed"

echo "$VM_NODE" >/proc/sys/kernel/hostname
echo "$VM_NODE" >/etc/hostname
printf '127.0.0.1 localhost\n%s %s\n%s %s\n' "$VM_IP" "$VM_NODE" "$VM_PEER_IP" "$VM_PEER" \
	>/etc/hosts
ip -batch - <<EOF || setup_fail "cannot bring up lo and $VM_IFACE with $VM_IP/$VM_PREFIXLEN"
link set lo up
link set $VM_IFACE up
addr add $VM_IP/$VM_PREFIXLEN dev $VM_IFACE
EOF
# the management NIC (VM_MGMT=1 on the host): qemu's user network, host at 10.0.2.2
if [ -n "${VM_MGMT_IFACE:-}" ]; then
	ip -batch - <<EOF || setup_fail "cannot bring up $VM_MGMT_IFACE"
link set $VM_MGMT_IFACE up
addr add 10.0.2.15/24 dev $VM_MGMT_IFACE
EOF
fi
if [ "$VM_RXE_SETUP" = 1 ]; then
	rdma link add "$VM_RXE" type rxe netdev "$VM_IFACE" ||
		setup_fail "rdma link add $VM_RXE type rxe netdev $VM_IFACE failed"
	[ -c /dev/infiniband/uverbs0 ] || setup_fail "no /dev/infiniband/uverbs0 after rdma link add"
fi
ulimit -l unlimited

T_SCRIPT=$(uptime_s)
# shellcheck disable=SC2153 # VM_SCRIPT comes from $OUT/env
say "ready in ${T_SCRIPT}s (guest init from ${T_INIT}s); running $VM_SCRIPT"
cd /tmp || setup_fail "no /tmp"
# shellcheck disable=SC2086 # arguments as the test gave them
bash "$VM_SCRIPT" $VM_SCRIPT_ARGS >"$OUT/stdout" 2>"$OUT/stderr" </dev/null
rc=$?
T_END=$(uptime_s)
T_RUN=$(awk -v a="$T_SCRIPT" -v b="$T_END" 'BEGIN { printf "%.2f", b - a }')
printf 'kernel_to_init %s\nkernel_to_script %s\nscript %s\n' "$T_INIT" "$T_SCRIPT" "$T_RUN" \
	>"$OUT/timing"
echo "$rc" >"$OUT/status"
say "script exited with status $rc after ${T_RUN}s"
halt_vm
