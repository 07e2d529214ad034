#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# PID 1 of a testbed VM after switch_root (the root is the host's, read-only
# under a tmpfs overlay). Prepares what the tests need (mounts, modules,
# eth0 with the node's address, Soft-RoCE rxe0), runs the node's script with
# its stdout/stderr/exit status going to the run directory share, then
# powers off. Kernel command line: rnvm_node=node-a|node-b, rnvm_kdir=<the
# extracted kernel>. Everything else comes from the run directory.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
RUN=/rnvm
OUT=$RUN/$rnvm_node

say() { echo "rnvm[$rnvm_node]: $*" >/dev/console; }
uptime_s() { read -r up _ </proc/uptime; echo "$up"; }
halt_vm() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 30
}
# A setup failure is written where the host looks for the script's status,
# so the report names it instead of a bare timeout.
setup_fail() {
	say "setup failed: $*"
	if [ -d "$OUT" ]; then
		echo "setup failed: $*" >>"$OUT/setup.log"
		echo "setup" >"$OUT/status"
	fi
	halt_vm
}

T_INIT=$(uptime_s 2>/dev/null)
mount -t proc proc /proc
T_INIT=$(uptime_s)
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p "$RUN"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 rnvm "$RUN" ||
	setup_fail "cannot mount the run directory (9p tag rnvm)"
mkdir -p /lib/modules
mount --bind "$rnvm_kdir/lib/modules" /lib/modules || setup_fail "cannot bind $rnvm_kdir/lib/modules"
[ -f "$OUT/env" ] || setup_fail "no $OUT/env"
# shellcheck disable=SC1091
. "$RUN/env"
# shellcheck disable=SC1090
. "$OUT/env"
exec >>"$OUT/setup.log" 2>&1

# Modules the harness promises; a kernel that has one built in is fine.
modprobe -a configfs virtio_net $VM_MODULES || setup_fail "modprobe -a $VM_MODULES failed"
mount -t bpf bpf /sys/fs/bpf
mount -t configfs configfs /sys/kernel/config
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null

hostname "$VM_NODE"
echo "$VM_NODE" >/etc/hostname
{
	echo "127.0.0.1 localhost"
	echo "$VM_IP $VM_NODE"
	echo "$VM_PEER_IP $VM_PEER"
} >/etc/hosts

ip link set lo up
ip link set "$VM_IFACE" up || setup_fail "no $VM_IFACE"
ip addr add "$VM_IP/$VM_PREFIXLEN" dev "$VM_IFACE" || setup_fail "cannot address $VM_IFACE"
if [ "$VM_RXE_SETUP" = 1 ]; then
	rdma link add "$VM_RXE" type rxe netdev "$VM_IFACE" ||
		setup_fail "rdma link add $VM_RXE type rxe netdev $VM_IFACE failed"
	[ -e /dev/infiniband/uverbs0 ] || setup_fail "no /dev/infiniband/uverbs0 after rdma link add"
fi
ulimit -l unlimited

T_SCRIPT=$(uptime_s)
say "ready in ${T_SCRIPT}s (guest init from ${T_INIT}s); running $VM_SCRIPT"
cd /tmp || setup_fail "no /tmp"
bash "$VM_SCRIPT" $VM_SCRIPT_ARGS >"$OUT/stdout" 2>"$OUT/stderr" </dev/null
rc=$?
T_END=$(uptime_s)
printf 'kernel_to_init %s\nkernel_to_script %s\nscript %s\n' "$T_INIT" "$T_SCRIPT" \
	"$(awk -v a="$T_SCRIPT" -v b="$T_END" 'BEGIN { printf "%.2f", b - a }')" >"$OUT/timing"
echo "$rc" >"$OUT/status"
say "script exited with status $rc after $(awk '$1 == "script" { print $2 }' "$OUT/timing")s"
halt_vm
