#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# /init of the VM testbed initramfs (busybox, copied in by initramfs.sh).
# Loads the 9p and overlay modules, mounts the host root (9p, read-only)
# under an overlay whose upper layer is tmpfs, and switch_roots into the
# harness's guest init (rnvm_init on the kernel command line), which then
# runs from the host's files with the host's bash.
export PATH=/bin

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

# The host root only ever changes under us in the run directory, which is
# a separate share; caching it (cache=loose) makes exec/open of host
# binaries several times cheaper under TCG.
mount -t 9p -o "trans=virtio,version=9p2000.L,ro,msize=${rnvm_msize:-512000},cache=loose" \
	hostroot /lower || fail "cannot mount the host root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 tmpfs /upper || fail "cannot mount tmpfs"
mkdir -p /upper/data /upper/work
mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot ||
	fail "cannot mount the overlay on the host root"

[ -n "$rnvm_init" ] && [ -x "/newroot$rnvm_init" ] || fail "no guest init '$rnvm_init' in the host root"
mount --move /dev /newroot/dev
umount /proc
exec switch_root /newroot "$rnvm_init"
