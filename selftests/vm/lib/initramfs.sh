# shellcheck shell=bash
# The VM testbed initramfs: busybox-static, initramfs-init.sh as /init and
# the kernel modules needed to reach the host root (virtio transport where
# it is modular, 9p, overlay) and configfs, decompressed so busybox insmod can load
# them. Sourced by vm.sh; needs VM_CACHE, VM_KDIR, VM_KVER.
#
#   vm_initramfs_build        sets VM_INITRD (cached per kernel and inputs)

# Modules the initramfs itself needs; everything else is loaded after
# switch_root by the host's modprobe against the extracted /lib/modules.
VM_INITRAMFS_MODULES="virtio_pci 9pnet_virtio 9p overlay configfs"

# Ordered, de-duplicated module files (paths under VM_KDIR) to insmod.
vm__initramfs_module_files() {
	local m deps=""
	for m in $VM_INITRAMFS_MODULES; do
		deps+=$(modprobe -d "$VM_KDIR" -S "$VM_KVER" --show-depends "$m") || return 1
		deps+=$'\n'
	done
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' <<<"$deps"
}

vm__busybox() {
	local b
	for b in /bin/busybox /usr/bin/busybox; do
		# static: no program interpreter (the initramfs has no ld.so)
		if [ -x "$b" ] && readelf -lW "$b" 2>/dev/null | grep -q 'LOAD' &&
			! readelf -lW "$b" 2>/dev/null | grep -q 'INTERP'; then
			echo "$b"
			return 0
		fi
	done
	return 1
}

vm_initramfs_build() {
	local busybox files key out stage f name
	busybox=$(vm__busybox) || {
		vm_log "no statically linked busybox (install busybox-static)"
		return 1
	}
	files=$(vm__initramfs_module_files) || {
		vm_log "modprobe --show-depends failed for $VM_INITRAMFS_MODULES in $VM_KDIR"
		return 1
	}
	key=$( { echo "$VM_KVER"; echo "$files"; sha256sum "$busybox" "$VM_LIB/initramfs-init.sh" \
		"$VM_LIB/initramfs.sh"; } | sha256sum | cut -c1-16)
	out=$VM_CACHE/initramfs-$VM_KVER-$key.cpio
	if [ -f "$out" ]; then
		VM_INITRD=$out
		return 0
	fi
	stage=$(mktemp -d "$VM_CACHE/initramfs.XXXXXX") || return 1
	mkdir -p "$stage"/{bin,dev,proc,lower,upper,newroot,modules}
	cp "$busybox" "$stage/bin/busybox"
	install -m 0755 "$VM_LIB/initramfs-init.sh" "$stage/init"
	for f in $files; do
		name=$(basename "$f")
		case $name in
		*.ko.xz) xz -dc "$f" >"$stage/modules/${name%.xz}" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage/modules/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$f" >"$stage/modules/${name%.gz}" ;;
		*) cp "$f" "$stage/modules/$name" ;;
		esac || { vm_log "cannot decompress $f"; rm -rf "$stage"; return 1; }
		echo "$name" | sed -E 's/\.(xz|zst|gz)$//' >>"$stage/modules/order"
	done
	# uncompressed: unpacking costs less under TCG than decompressing
	if ! (cd "$stage" && find . -mindepth 1 | sort | cpio -o -H newc --quiet >"$out.tmp"); then
		vm_log "cpio failed building the initramfs"
		rm -rf "$stage" "$out.tmp"
		return 1
	fi
	rm -rf "$stage"
	mv "$out.tmp" "$out"
	# older builds for this kernel (the harness changed since) are dead weight
	# once no test that prepared them can still be about to boot them
	find "$VM_CACHE" -maxdepth 1 -name "initramfs-$VM_KVER-*.cpio" ! -path "$out" -mmin +60 -delete
	VM_INITRD=$out
}
