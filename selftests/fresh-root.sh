#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Runs a command in a brand-new Debian 12 root, on a clone of this
# checkout's committed HEAD: what a new user's machine has (the minimal
# system plus make and git), so the README's commands must install all they
# need themselves. CI runs `make test` this way (.ci/run); `make test-fresh`
# and `make demo-fresh` are the same by hand.
#
#   selftests/fresh-root.sh [-k] [COMMAND...]      (default: make test)
#
# As root. The root is built with mmdebstrap (installed first if missing)
# from this machine's own Debian sources (a local mirror or proxy keeps
# working), under /var/tmp (on disk, as a real machine's /tmp would be).
# The host kernel is shared: /proc, /sys (with bpffs) and /dev are bound in,
# /run is a private tmpfs, so network namespaces, BPF and the qemu testbed
# work inside as on the host. Uncommitted changes are not in the clone.
# -k keeps the root afterwards. Exit status: COMMAND's; 2 when the root
# cannot be built (one line says why: nothing falls back to this machine).
set -u
keep=0
[ "${1:-}" = -k ] && { keep=1; shift; }
[ $# -gt 0 ] || set -- make test

fail() { echo "fresh-root: $*" >&2; exit 2; }

[ "$(id -u)" = 0 ] || fail "run as root (it builds a root file system and binds /proc, /sys, /dev)"
top=$(git -C "$(dirname "$0")" rev-parse --show-toplevel 2>/dev/null) || fail "not inside a git checkout"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	echo "fresh-root: note: uncommitted changes are not in the fresh root (it clones HEAD)" >&2

if ! command -v mmdebstrap >/dev/null; then
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap; } \
		>/tmp/fresh-root-mmdebstrap-install.log 2>&1 ||
		fail "cannot install mmdebstrap from this machine's package archive ($(tail -n 1 /tmp/fresh-root-mmdebstrap-install.log))"
fi

# This machine's Debian 12 sources, one file each, as mmdebstrap takes them;
# the backports suite rdmanet's `make deps` adds is left out (a new machine
# does not have it: adding it is make deps' job).
sources=()
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	case "$f" in */rdmanet-*) continue ;; esac
	grep -qsE '^[^#]*\bbookworm\b' "$f" && sources+=("$f")
done

root=$(mktemp -d /var/tmp/rdmanet-fresh.XXXXXX) || fail "cannot create a directory under /var/tmp"
mounts=()
cleanup() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[i]}" 2>/dev/null; done
	if [ "$keep" = 1 ]; then
		echo "fresh-root: root kept at $root" >&2
	else
		rm -rf --one-file-system "$root"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(date +%s)
echo "fresh-root: building a Debian 12 root in $root" >&2
mmdebstrap --quiet --variant=apt --include=ca-certificates,make,git bookworm "$root" "${sources[@]}" \
	>"$root.log" 2>&1 ||
	fail "cannot build a Debian 12 root: mmdebstrap failed, is the package archive reachable? ($(grep -m 1 -E 'E:|error' "$root.log" || tail -n 1 "$root.log"))"
rm -f "$root.log"
# The machine's own trust goes in as its apt sources do: CA certificates its
# admin added (a TLS-intercepting proxy's, say), as any new machine on this
# network would have them; without them the npm registry is untrusted.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	chroot "$root" update-ca-certificates >/dev/null 2>&1 ||
		fail "cannot add this machine's CA certificates to the root (update-ca-certificates)"
fi
echo "fresh-root: root built in $(($(date +%s) - t0)) s" >&2

name=$(basename "$top")
mkdir -p "$root/work"
git clone -q "$top" "$root/work/$name" || fail "cannot clone $top"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
# the root must be a mount point: `ip netns exec` makes / a slave mount
mount --bind "$root" "$root" && mounts+=("$root") || fail "cannot bind $root"
for m in proc sys dev dev/pts; do
	mount --rbind "/$m" "$root/$m" && mount --make-rslave "$root/$m" && mounts+=("$root/$m") ||
		fail "cannot bind /$m into the root"
done
mount -t tmpfs tmpfs "$root/run" && mounts+=("$root/run") || fail "cannot mount /run in the root"
# The test caches ($RN_CACHE, default /var/cache/rdmanet: the Go toolchain,
# module and build caches, the test cluster's upstream binaries) are this
# machine's, as a CI runner's cache volume would be, so a second run starts
# warm; FRESH_ROOT_CACHE=cold gives the root an empty one (a new machine).
cache=${RN_CACHE:-/var/cache/rdmanet}
if [ "${FRESH_ROOT_CACHE:-}" = cold ]; then
	mkdir -p "$root/var/cache/rdmanet"
else
	mkdir -p "$cache" "$root/var/cache/rdmanet" &&
		mount --bind "$cache" "$root/var/cache/rdmanet" && mounts+=("$root/var/cache/rdmanet") ||
		fail "cannot bind the test cache $cache into the root"
fi
# the machine's Go module proxy settings, as its apt sources and CA
# certificates come in (the test cluster's build fetches through them)
goenv=()
for v in GOPROXY GONOSUMDB GONOSUMCHECK GOSUMDB GOPRIVATE GOINSECURE; do
	[ -n "${!v:-}" ] && goenv+=("$v=${!v}")
done

echo "fresh-root: running '$*' in a fresh clone of $(git -C "$top" rev-parse --short HEAD)" >&2
chroot "$root" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" CI="${CI:-}" "${goenv[@]}" \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	bash -c 'cd "/work/$1" && shift && exec "$@"' _ "$name" "$@"
rc=$?
echo "fresh-root: '$*' exited $rc after $(($(date +%s) - t0)) s" >&2
exit $rc
