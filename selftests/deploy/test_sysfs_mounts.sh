#!/bin/bash
# The two mount facts the DaemonSet is built on, shown with real mounts in
# a throwaway mount + network namespace:
#  1. /sys/class/<x>/<dev> entries are symlinks into /sys/devices, so a
#     writable bind of a class directory over a read-only sysfs does not
#     make its attributes writable (EROFS); only a writable /sys/devices
#     does. Hence traffic_class (/sys/class/infiniband/<dev>/tc/<n>/...)
#     is opt-in in the manifest. (A veth's mtu stands in for it.)
#  2. A read-only bind of a tree (what a read-only hostPath of /sys is: a
#     recursive bind, remounted read-only at the top) leaves its submounts
#     writable. Hence no hostPath of /sys, and the readonly-host-tree rule.
. "$RN_SRC/selftests/lib/tap.sh"
command -v unshare >/dev/null || { tap_fail "unshare (util-linux)"; tap_done; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

unshare --mount --net bash -s "$T" >"$T/out" 2>&1 <<'INNER'
T=$1
mount --make-rprivate /
ip link add d0 type veth peer name d1
mkdir -p "$T/sys" "$T/rw" "$T/a" "$T/b"
# a writable sysfs of this netns, and a read-only mount of it as the
# runtime gives a container (read-only per mount: the superblock, shared
# by every sysfs mount of a netns, stays writable, as the host's is)
mount -t sysfs sysfs "$T/rw"
mount --bind "$T/rw" "$T/sys"
mount -o remount,bind,ro "$T/sys"
say() { echo "$1=$2"; }
# ok, or the error (EROFS is "Read-only file system")
w() { sh -c "echo 1400 > $1" 2>&1 | sed 's/.*: //' | grep . || echo ok; }
say ro_sysfs "$(w "$T/sys/class/net/d0/mtu")"
say class_link "$(readlink "$T/sys/class/net/d0")"
mount --bind "$T/rw/class/net" "$T/sys/class/net"
say rw_class_bind "$(w "$T/sys/class/net/d0/mtu")"
mount --bind "$T/rw/devices" "$T/sys/devices"
say rw_devices_bind "$(w "$T/sys/class/net/d0/mtu")"
say mtu "$(cat "$T/rw/class/net/d0/mtu")"
mount -t tmpfs tmpfs "$T/a"
mkdir "$T/a/sub"
mount -t tmpfs tmpfs "$T/a/sub"
mount --rbind "$T/a" "$T/b"
mount -o remount,bind,ro "$T/b"
t() { touch "$1" 2>&1 | sed 's/.*: //' | grep . || echo ok; }
say top_of_ro_bind "$(t "$T/b/x")"
say submount_of_ro_bind "$(t "$T/b/sub/x")"
INNER
sed 's/^/# /' "$T/out"
val() { sed -n "s/^$1=//p" "$T/out"; }
check_eq "the runtime's read-only sysfs refuses writes" "$(val ro_sysfs)" "Read-only file system"
check "class entries are symlinks into devices/" bash -c '[[ "$0" == ../../devices/* ]]' "$(val class_link)"
check_eq "a writable bind of /sys/class/net does not make the attribute writable" \
	"$(val rw_class_bind)" "Read-only file system"
check_eq "a writable /sys/devices does" "$(val rw_devices_bind)" ok
check_eq "and the write landed" "$(val mtu)" 1400
check_eq "a read-only bind's top is read-only" "$(val top_of_ro_bind)" "Read-only file system"
check_eq "its submount stays writable" "$(val submount_of_ro_bind)" ok
tap_done
