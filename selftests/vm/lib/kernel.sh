# shellcheck shell=bash
# Debian kernel for the VM testbed: pick the package, download it from the
# Debian archive with apt-get, extract it (dpkg -x, never installed) into
# the cache and run depmod there. Sourced by vm.sh; needs VM_CACHE.
#
#   vm_kernel_pick SERIES     prints the package to use for "6.12" or "6.1"
#   vm_kernel_fetch SERIES    sets VM_KDIR (extracted root), VM_KVER (uname -r
#                             of the guest), VM_KIMAGE (what qemu -kernel boots:
#                             the decompressed vmlinux where it has a PVH entry,
#                             else the vmlinuz)
#   vm_kernel_unpack_modules MODULE...
#                             decompresses those modules and their dependencies
#                             in VM_KDIR (6.12 ships .ko.xz; xz under TCG costs
#                             about a second per boot for the testbed's set)

# Only the generic amd64 flavour: cloud lacks drivers we load, rt changes timing.
vm__kernel_regex() {
	local series=${1//./\\.}
	echo "^linux-image-${series}[.-][0-9][0-9a-z.+-]*-amd64(-unsigned)?\$"
}

# Names apt knows for the series, each with its candidate version; a name
# without a candidate (stale in the lists) is dropped.
vm__kernel_candidates() {
	local series=$1 names
	names=$(apt-cache pkgnames "linux-image-$series" 2>/dev/null |
		grep -E "$(vm__kernel_regex "$series")" | grep -vE -- '-(rt|cloud)-amd64')
	[ -n "$names" ] || return 1
	# shellcheck disable=SC2086
	apt-cache policy $names 2>/dev/null | awk '
		/^[^ ]/ { sub(":$", "", $1); name = $1 }
		/^  Candidate:/ && $2 != "(none)" { print name, $2 }'
}

vm_kernel_pick() {
	local series=$1 best
	if [ -n "${VM_KERNEL_PKG:-}" ]; then
		echo "$VM_KERNEL_PKG"
		return 0
	fi
	# newest version first; for one version the unsigned package sorts
	# after the signed one, and either carries the same image and modules
	best=$(vm__kernel_candidates "$series" | sort -k2,2V -k1,1 | tail -n 1 | cut -d' ' -f1)
	[ -n "$best" ] || return 1
	echo "$best"
}

# The cache entry of a package is keyed by its exact name and version, so a
# rebuilt package with the same ABI name is fetched again.
vm__kernel_entry_dir() {
	echo "$VM_CACHE/kernel/$1_$2"
}

# Newest already extracted entry of a series: used when apt cannot answer
# (no lists, offline) so a warm cache still works.
vm__kernel_cached() {
	local series=$1 d
	for d in "$VM_CACHE"/kernel/linux-image-"$series"[.-]*; do
		[ -f "$d/.complete" ] && echo "$d"
	done | sort -V | tail -n 1
}

vm__kernel_extract() {
	local pkg=$1 ver=$2 dir=$3 tmp deb
	tmp=$(mktemp -d "$VM_CACHE/dl.XXXXXX") || return 1
	vm_log "downloading $pkg $ver from the Debian archive"
	if ! (cd "$tmp" && apt-get download -q "$pkg=$ver" >"$tmp/apt.log" 2>&1); then
		vm_log "apt-get download $pkg=$ver failed:"
		sed 's/^/vm:   /' "$tmp/apt.log" >&2
		rm -rf "$tmp"
		return 1
	fi
	deb=$(ls "$tmp"/*.deb 2>/dev/null | head -n 1)
	rm -rf "$dir.new"
	mkdir -p "$(dirname "$dir")"
	if ! dpkg -x "$deb" "$dir.new"; then
		vm_log "dpkg -x $deb failed"
		rm -rf "$tmp" "$dir.new"
		return 1
	fi
	rm -rf "$tmp"
	local kver
	kver=$(ls "$dir.new/lib/modules" 2>/dev/null | head -n 1)
	if [ -z "$kver" ] || [ ! -f "$dir.new/boot/vmlinuz-$kver" ]; then
		vm_log "$pkg has no lib/modules/<version> or boot/vmlinuz-<version>"
		rm -rf "$dir.new"
		return 1
	fi
	if ! depmod -b "$dir.new" "$kver"; then
		vm_log "depmod -b $dir.new $kver failed"
		rm -rf "$dir.new"
		return 1
	fi
	echo "$pkg $ver $kver" >"$dir.new/.complete"
	rm -rf "$dir"
	mv "$dir.new" "$dir"
}

# qemu boots an ELF vmlinux with a PVH entry note directly. Decompressing
# the bzImage payload under TCG costs 0.6 s (zstd, 6.12) to 2.4 s (xz, 6.1)
# per boot; done once here it costs nothing. Like the kernel's
# scripts/extract-vmlinux: try each compressor magic at each offset until
# the output is an ELF. Without one, boot_image falls back to the vmlinuz.
vm__kernel_elf() {
	local in=$1 out=$2 magic cmd off
	for magic in xz zstd gzip; do
		case $magic in
		xz) cmd="xz -dc"; magic=$'\xfd7zXZ\x00' ;;
		zstd) cmd="zstd -qdc"; magic=$'\x28\xb5\x2f\xfd' ;;
		gzip) cmd="gzip -dc"; magic=$'\x1f\x8b\x08' ;;
		esac
		command -v "${cmd%% *}" >/dev/null || continue
		for off in $(LC_ALL=C grep -abo -F "$magic" "$in" 2>/dev/null | cut -d: -f1); do
			# trailing data after the payload makes the decompressor fail: check the output
			tail -c +$((off + 1)) "$in" | $cmd >"$out.tmp" 2>/dev/null
			if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ] &&
				readelf -n "$out.tmp" 2>/dev/null | grep -qE '0x00000012|PHYS32_ENTRY'; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

vm__kernel_boot_image() {
	local dir=$1 kver=$2
	if [ ! -f "$dir/boot/vmlinux-$kver" ] && [ ! -f "$dir/boot/.no-pvh" ]; then
		vm__kernel_elf "$dir/boot/vmlinuz-$kver" "$dir/boot/vmlinux-$kver" ||
			touch "$dir/boot/.no-pvh"
	fi
	if [ -f "$dir/boot/vmlinux-$kver" ]; then
		echo "$dir/boot/vmlinux-$kver"
	else
		echo "$dir/boot/vmlinuz-$kver"
	fi
}

# What apt's answers depend on: its package lists and sources. Without a
# pkgcache.bin (none here) every apt-cache call parses all the lists, 1-2 s
# of CPU, and each VM test asked three times for the same answer.
vm__apt_state() {
	stat -c '%n %Y %s' /var/lib/apt/lists/*Packages* /etc/apt/sources.list \
		/etc/apt/sources.list.d/* /etc/apt/preferences /etc/apt/preferences.d/* 2>/dev/null |
		sha256sum | cut -c1-16
}

# vm__kernel_pick_version SERIES: "PACKAGE VERSION" apt would fetch, kept in
# the cache (.pick-SERIES) with the apt state it came from; asked again
# when the lists or sources change or VM_KERNEL_PKG is set.
vm__kernel_pick_version() {
	local series=$1 pick=$VM_CACHE/kernel/.pick-$1 state s pkg ver
	state=$(vm__apt_state)
	if [ -z "${VM_KERNEL_PKG:-}" ] && [ -f "$pick" ] && read -r s pkg ver <"$pick" &&
		[ "$s" = "$state" ] && [ -n "$ver" ]; then
		echo "$pkg $ver"
		return 0
	fi
	pkg=$(vm_kernel_pick "$series") || return 1
	[ -n "$pkg" ] || return 1
	ver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/^  Candidate:/ { print $2 }')
	echo "$pkg $ver"
	if [ -z "${VM_KERNEL_PKG:-}" ] && [ -n "$ver" ] && [ "$ver" != "(none)" ]; then
		mkdir -p "$VM_CACHE/kernel" && echo "$state $pkg $ver" >"$pick.tmp" && mv "$pick.tmp" "$pick"
	fi
	return 0
}

vm_kernel_fetch() {
	local series=$1 pkg="" ver="" dir
	read -r pkg ver <<<"$(vm__kernel_pick_version "$series")"
	if [ -n "$pkg" ]; then
		if [ -z "$ver" ] || [ "$ver" = "(none)" ]; then
			vm_log "apt-cache has no candidate version of $pkg"
			return 1
		fi
		dir=$(vm__kernel_entry_dir "$pkg" "$ver")
		if [ ! -f "$dir/.complete" ]; then
			vm__kernel_extract "$pkg" "$ver" "$dir" || return 1
		fi
	else
		dir=$(vm__kernel_cached "$series")
		if [ -z "$dir" ]; then
			vm_log "no Debian kernel package for $series known to apt-cache" \
				"(linux-image-$series*-amd64[-unsigned]); run 'make deps'" \
				"(it adds bookworm-backports and runs apt-get update)"
			return 1
		fi
		vm_log "apt-cache knows no $series kernel; using the cached $(basename "$dir")"
	fi
	VM_KDIR=$dir
	VM_KVER=$(cut -d' ' -f3 "$dir/.complete")
	VM_KIMAGE=$(vm__kernel_boot_image "$dir" "$VM_KVER")
}

vm_kernel_unpack_modules() {
	local m files
	files=$(for m in "$@"; do
		modprobe -d "$VM_KDIR" -S "$VM_KVER" --show-depends "$m" 2>/dev/null
	done | awk '$1 == "insmod" && $2 ~ /\.ko\.(xz|zst|gz)$/ && !seen[$2]++ { print $2 }')
	[ -n "$files" ] || return 0
	for m in $files; do
		case $m in
		*.xz) xz -d -f "$m" ;;
		*.zst) zstd -q -d -f --rm "$m" ;;
		*.gz) gzip -d -f "$m" ;;
		esac || { vm_log "cannot decompress $m"; return 1; }
	done
	depmod -b "$VM_KDIR" "$VM_KVER" || { vm_log "depmod -b $VM_KDIR $VM_KVER failed"; return 1; }
}
