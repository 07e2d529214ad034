# shellcheck shell=bash
# qemu 10 for the SR-IOV tests: Debian's bookworm-backports build, fetched
# with `apt-get download` and extracted with `dpkg -x` into the VM cache (as
# vm_prepare does with kernels), never installed. It must not load the host
# qemu 7.2's modules or firmware: the tests boot it with -nodefaults
# -display none, -L its own share/qemu and its own qboot.rom (qemu.sh).
#
#   vm_qemu10_prepare     sets VM_QEMU, VM_QEMU_SHARE, VM_SRIOV=1; 77 (skip)
#                         if no qemu 10 is known to apt or the download fails

vm_qemu10_prepare() {
	local cache=$RN_BUILD/vm-cache/qemu10 ver dir tmp pkg
	ver=$(apt-cache policy qemu-system-x86 2>/dev/null |
	      awk '$1 ~ /^1:10\./ || $1 ~ /^\*\*\*$/ && $2 ~ /^1:10\./ { print ($1 == "***" ? $2 : $1); exit }')
	if [ -z "$ver" ]; then
		vm_log "apt knows no qemu-system-x86 10.x (bookworm-backports); run apt-get update"
		return 77
	fi
	dir=$cache/${ver//[:~+]/_}
	mkdir -p "$cache"
	(
		flock 9
		[ -x "$dir/usr/bin/qemu-system-x86_64" ] && exit 0
		tmp=$(mktemp -d "$cache/dl.XXXXXX")
		for pkg in qemu-system-x86 qemu-system-data; do
			if ! (cd "$tmp" && apt-get download -q "$pkg=$ver" >>"$tmp/apt.log" 2>&1); then
				cat "$tmp/apt.log" >&2
				rm -rf "$tmp"
				exit 77
			fi
		done
		mkdir -p "$tmp/root"
		for pkg in "$tmp"/*.deb; do
			dpkg -x "$pkg" "$tmp/root" || { rm -rf "$tmp"; exit 1; }
		done
		rm -rf "$dir"
		mv "$tmp/root" "$dir"
		rm -rf "$tmp"
	) 9>"$cache/.lock" || return $?
	VM_QEMU=$dir/usr/bin/qemu-system-x86_64
	VM_QEMU_SHARE=$dir/usr/share/qemu
	VM_SRIOV=1
	"$VM_QEMU" --version | head -n 1
}
