#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the VM testbed initramfs (busybox, copied in by initramfs.sh).
# Loads the 9p, overlay and configfs modules, mounts the host root (9p,
# read-only) under an overlay whose upper layer is tmpfs, mounts every
# filesystem the tests expect inside it, and switch_roots into the
# harness's guest init, which runs from the host's files with the host's
# bash. The mounts are done here because static busybox execs several
# times faster under TCG than the host's dynamically linked tools.
# Kernel command line: rnvm_init (guest init path), rnvm_kdir (extracted
# kernel whose lib/modules the guest uses), rnvm_msize (9p message size).
# shellcheck disable=SC2154 # rnvm_* come from the kernel command line
export PATH=/bin
R=/newroot

fail() {
	echo "rnvm-initramfs: $*"
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 1
}

/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs devtmpfs /dev || fail "cannot mount devtmpfs"

while read -r ko; do
	insmod "/modules/$ko" || fail "insmod $ko failed"
done </modules/order

ninep="trans=virtio,version=9p2000.L,msize=${rnvm_msize:-512000}"
# The host root only changes under us in the run directory, which is a
# separate uncached share; caching the root (cache=loose) makes exec and
# open of host binaries several times cheaper.
mount -t 9p -o "$ninep,ro,cache=loose" hostroot /lower ||
	fail "cannot mount the host root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 tmpfs /upper || fail "cannot mount tmpfs"
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay $R ||
	fail "cannot mount the overlay on the host root"

mount -t proc proc $R/proc
mount -t sysfs sysfs $R/sys
mount --move /dev $R/dev
mkdir -p $R/dev/pts $R/dev/shm
mount -t devpts -o gid=5,mode=0620,ptmxmode=0666 devpts $R/dev/pts
mount -t tmpfs -o mode=1777 tmpfs $R/dev/shm
mount -t tmpfs -o mode=0755 tmpfs $R/run
mount -t bpf -o mode=0700 bpf $R/sys/fs/bpf || fail "cannot mount bpffs"
mount -t configfs configfs $R/sys/kernel/config || fail "cannot mount configfs"
mount -t tracefs tracefs $R/sys/kernel/tracing
mount -t debugfs debugfs $R/sys/kernel/debug
mount -t cgroup2 cgroup2 $R/sys/fs/cgroup

mkdir -p $R/rnvm
mount -t 9p -o "$ninep" rnvm $R/rnvm || fail "cannot mount the run directory (9p tag rnvm)"
[ -d "$R$rnvm_kdir/lib/modules" ] || fail "no $rnvm_kdir/lib/modules in the host root"
mkdir -p $R/lib/modules
mount --bind "$R$rnvm_kdir/lib/modules" $R/lib/modules || fail "cannot bind the kernel's modules"

if [ -z "$rnvm_init" ] || [ ! -x "$R$rnvm_init" ]; then
	fail "no guest init '$rnvm_init' in the host root"
fi
umount /proc
exec switch_root $R "$rnvm_init"
