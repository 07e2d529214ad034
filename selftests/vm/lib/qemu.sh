# shellcheck shell=bash
# Starting and waiting for the testbed's qemu processes. Sourced by vm.sh.
#
#   vm_qemu_pair TIMEOUT   node-a listens on a random loopback port, node-b
#                          connects: eth0 of each is one end of a wire
#   vm_qemu_one TIMEOUT    node-a alone (its wire listens, no one connects)
#
# Each qemu runs under timeout(1), so no VM outlives its budget even when
# the test that started it is killed. Sets VM_TIMED_OUT (nodes cut off).
#
# VM_MGMT=1 gives each VM a second NIC, eth1 (10.0.2.15/24), on qemu's
# user-mode network: a management network apart from the testbed wire, on
# which 10.0.2.2 is the host itself (its loopback services included), so a
# control plane on the host (etcd members) is reached as workers reach
# theirs over the node network. Each VM has its own; they do not meet there.

VM_MEM=${VM_MEM:-1024}
VM_QEMU_BIOS=${VM_QEMU_BIOS:-/usr/share/qemu/qboot.rom}
VM_QEMU=${VM_QEMU:-qemu-system-x86_64}
# SR-IOV (VM_SRIOV=1, set by vm_qemu10_prepare in qemu10.sh): a q35 machine
# with an Intel 82576 (igb) on a PCIe root port, its wire a second socket
# pair between the nodes; VM_QEMU_SHARE is qemu 10's own firmware dir.
VM_SRIOV=${VM_SRIOV:-}
VM_QEMU_SHARE=${VM_QEMU_SHARE:-}

declare -gA VM_QEMU_PID

vm__qemu_start() {
	local node=$1 mac=$2 netdev=$3 timeout=$4 dir=$VM_RUN_DIR/$1 bios=() quiet=quiet
	local serial="file:$dir/console.log" in=/dev/null out=$dir/qemu.log fg=() sriov=()
	[ -f "$VM_QEMU_BIOS" ] && bios=(-bios "$VM_QEMU_BIOS")
	if [ -n "$VM_SRIOV" ]; then
		# without pci-hole64-size=0 the guest puts the VF BARs above 4 GiB,
		# qemu 10.0.2 maps them as 32-bit and every VF register reads 0
		local srnet="connect=127.0.0.1:$VM_SR_PORT" n=${node#node-}
		[ "$node" = node-a ] && srnet="listen=127.0.0.1:$VM_SR_PORT"
		sriov=(-L "$VM_QEMU_SHARE" -machine q35 -global q35-pcihost.pci-hole64-size=0
		       -device pcie-root-port,id=rp1,chassis=1,bus=pcie.0
		       -netdev "socket,id=sr,$srnet"
		       -device "igb,netdev=sr,bus=rp1,romfile=,mac=52:54:00:88:00:0$([ "$n" = a ] && echo 1 || echo 2)")
		bios=(-bios "$VM_QEMU_SHARE/qboot.rom")
	fi
	[ -n "${VM_DEBUG:-}" ] && quiet=
	# shell.sh: node-a's console is this terminal (Ctrl-A X quits qemu)
	if [ "$node" = node-a ] && [ -n "${VM_INTERACTIVE:-}" ]; then
		serial=mon:stdio in=/dev/tty out=/dev/tty
		# timeout's own process group would be stopped reading the tty
		fg=(--foreground)
	fi
	local mgmt=()
	[ -n "${VM_MGMT:-}" ] && mgmt=(-netdev "user,id=mgmt,net=10.0.2.0/24"
		-device "virtio-net-pci,netdev=mgmt,mac=${mac%:*}:$(printf '%02x' $((0x${mac##*:} + 0x10)))")
	date +%s.%N >"$dir/started"
	timeout "${fg[@]}" --kill-after=5 "$timeout" "$VM_QEMU" "${sriov[@]}" \
		-accel tcg -cpu max -m "$VM_MEM" -smp 1 "${bios[@]}" \
		-nodefaults -no-user-config -display none -monitor none -no-reboot \
		-serial "$serial" \
		-kernel "$VM_KIMAGE" -initrd "$VM_INITRD" \
		-append "console=ttyS0 panic=-1 $quiet mitigations=off rnvm_node=$node rnvm_kdir=$VM_KDIR rnvm_init=$VM_LIB/guest-init.sh" \
		-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$VM_RUN_DIR,mount_tag=rnvm,security_model=none,multidevs=remap" \
		-netdev "socket,id=wire,$netdev" -device "virtio-net-pci,netdev=wire,mac=$mac${VM_SRIOV:+,romfile=}" \
		"${mgmt[@]}" \
		<"$in" >"$out" 2>"$dir/qemu.log" &
	VM_QEMU_PID[$node]=$!
}

vm__port_listening() {
	ss -Hltn "sport = :$1" 2>/dev/null | grep -q .
}

vm__random_port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 40000))
		vm__port_listening "$p" || { echo "$p"; return; }
	done
}

# Start node-a listening; a port taken between the check and qemu's bind
# makes qemu exit at once, so try another.
vm__qemu_start_listener() {
	local timeout=$1 try port
	for try in 1 2 3 4 5; do
		port=$(vm__random_port)
		VM_SR_PORT=$(vm__random_port)
		[ "$VM_SR_PORT" = "$port" ] && VM_SR_PORT=$((port + 1))
		vm__qemu_start node-a 52:54:00:77:00:01 "listen=127.0.0.1:$port" "$timeout"
		for _ in $(seq 100); do
			vm__port_listening "$port" && { VM_WIRE_PORT=$port; return 0; }
			kill -0 "${VM_QEMU_PID[node-a]}" 2>/dev/null || break
			sleep 0.05
		done
		kill "${VM_QEMU_PID[node-a]}" 2>/dev/null
		wait "${VM_QEMU_PID[node-a]}" 2>/dev/null
		vm_log "node-a qemu did not listen on 127.0.0.1:$port (try $try):" \
			"$(tail -n 2 "$VM_RUN_DIR/node-a/qemu.log")"
	done
	return 1
}

vm__qemu_wait() {
	local node rc
	VM_TIMED_OUT=
	for node in "$@"; do
		[ -n "${VM_QEMU_PID[$node]:-}" ] || continue
		wait "${VM_QEMU_PID[$node]}"
		rc=$?
		date +%s.%N >"$VM_RUN_DIR/$node/ended"
		echo "$rc" >"$VM_RUN_DIR/$node/qemu.status"
		case $rc in 124 | 137) VM_TIMED_OUT="$VM_TIMED_OUT $node" ;; esac
		unset "VM_QEMU_PID[$node]"
	done
}

vm_qemu_pair() {
	local timeout=$1
	vm__qemu_start_listener "$timeout" || return 1
	vm__qemu_start node-b 52:54:00:77:00:02 "connect=127.0.0.1:$VM_WIRE_PORT" "$timeout"
	vm__qemu_wait node-a node-b
}

vm_qemu_one() {
	local timeout=$1
	vm__qemu_start_listener "$timeout" || return 1
	vm__qemu_wait node-a
}
