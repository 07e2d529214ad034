#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Smoke test of the VM testbed itself: two Debian-kernel VMs joined by a
# wire, Soft-RoCE (rdma_rxe) on each, and real RDMA traffic between them
# (ib_write_bw, ib_read_lat). Host part at the bottom; the same file is the
# script each node runs inside its VM (VM_NODE is set there).
#
# VM_SERIES=6.1 selftests/run.sh build '*vm_testbed*' runs it on bookworm's 6.1.

# The average column of perftest's result row (the line after the header
# that starts with "#bytes"), or nothing.
perftest_result() {
	awk -v col="$1" 'h && NF >= col && $1 ~ /^[0-9]+$/ { print $col; exit }
		/^ *#bytes/ { h = 1 }' "$2"
}

# perftest over rxe: node-a serves, node-b connects once the server listens.
#   perftest_pair TOOL PORT RESULT_COLUMN WHAT [TOOL ARGS...]
perftest_pair() {
	local name=$1 port=$2 col=$3 what=$4 out gidx rc
	shift 4
	out=$VM_OUT/$name.out
	gidx=$(vm_gid_index) || { tap_fail "$name: no RoCE v2 GID for $VM_IP"; return; }
	if [ "$VM_NODE" = node-a ]; then
		timeout 90 "$name" -d "$VM_RXE" -x "$gidx" -p "$port" "$@" >"$out" 2>&1 &
		local pid=$!
		vm_wait_listen "$port" 30
		vm_barrier "$name-listening" 60
		wait $pid
		rc=$?
	else
		vm_barrier "$name-listening" 60
		timeout 90 "$name" -d "$VM_RXE" -x "$gidx" -p "$port" "$@" "$VM_PEER_IP" >"$out" 2>&1
		rc=$?
	fi
	check_eq "$name between the nodes exits 0" "$rc" 0
	# latency tests print their result on the client only
	[ "$VM_NODE" = node-a ] && [ "$name" != "${name%_lat}" ] && return
	local v
	v=$(perftest_result "$col" "$out")
	if awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'; then
		tap_ok "$name reports $what $v"
	else
		tap_fail "$name reports a $what (output in $out)"
		tail -n 5 "$out" >&2
	fi
}

guest_main() {
	check_eq "hostname" "$(hostname)" "$VM_NODE"
	check_eq "running the Debian kernel" "$(uname -r)" "$VM_KVER"
	check "eth0 has $VM_IP" ip -4 addr show dev "$VM_IFACE" to "$VM_IP"
	check "rxe0 is ACTIVE on eth0" sh -c \
		"rdma link show $VM_RXE/1 | grep -q 'state ACTIVE .*netdev $VM_IFACE'"
	check "ibv_devices lists rxe0" sh -c "ibv_devices | grep -qw $VM_RXE"
	check "/dev/infiniband/uverbs0 is a character device" test -c /dev/infiniband/uverbs0
	check "/dev/infiniband/rdma_cm is a character device" test -c /dev/infiniband/rdma_cm
	check "bpffs on /sys/fs/bpf" sh -c "stat -f -c %T /sys/fs/bpf | grep -q bpf"
	check "configfs on /sys/kernel/config" sh -c "grep -q ' /sys/kernel/config configfs' /proc/mounts"
	check "the peer answers ping over the wire" vm_wait_peer 30
	# node-b captures the RoCEv2 packets of the write test (both directions);
	# the host decodes them. The capture is complete once it holds what both
	# nodes' rxe say they sent.
	local sent0
	if [ "$VM_NODE" = node-b ]; then
		check "tcpdump is capturing on $VM_IFACE" vm_capture_start /tmp/roce.pcap udp port 4791
	fi
	sent0=$(vm_rxe_stat sent_pkts)
	perftest_pair ib_write_bw 18515 4 "average Gb/s" -s 65536 -n 200 --report_gbits
	vm_put "sent-$VM_NODE" "$(($(vm_rxe_stat sent_pkts) - sent0))"
	if [ "$VM_NODE" = node-b ]; then
		local want
		want=$(($(vm_get sent-node-a 120) + $(vm_get sent-node-b 120)))
		check "the capture holds every packet both rxe sent ($want), none dropped" \
			vm_capture_stop /tmp/roce.pcap "$want"
	fi
	perftest_pair ib_read_lat 18516 6 "typical latency (usec)" -s 64 -n 200
	vm_barrier finished 60
}

# shellcheck source=selftests/vm/lib/main.sh
. "$(dirname "$0")/lib/main.sh"
start=$(date +%s.%N)
vm_main pair guest_main 180

# The capture is real RoCEv2 between the two nodes' addresses: the requester
# (node-b) sends RDMA WRITE packets, the responder (node-a) acknowledges.
pcap=$VM_RUN_DIR/node-b/roce.pcap
count_bth() {
	tshark -r "$pcap" -Y "ip.src == $1 && infiniband.bth.opcode >= $2 &&
		infiniband.bth.opcode <= $3" 2>/dev/null | wc -l
}
if [ -s "$pcap" ]; then
	# RC opcodes: RDMA WRITE first/middle/last/only(+imm) 6-11, ACKNOWLEDGE 17.
	# 200 writes of 64 KiB in packets of at most 4 KiB (the rxe path MTU
	# follows eth0's 1500: 1 KiB) are at least 3,200 packets.
	check_range "RDMA WRITE packets node-b -> node-a on the wire" \
		"$(count_bth "$VM_NET_PREFIX.2" 6 11)" 3200 1000000
	check_range "ACK packets node-a -> node-b on the wire" \
		"$(count_bth "$VM_NET_PREFIX.1" 17 17)" 1 1000000
else
	tap_fail "node-b captured RoCEv2 packets in $pcap"
fi
tap_diag "two-node run end to end: $(awk -v a="$start" -v b="$(date +%s.%N)" \
	'BEGIN { printf "%.1f", b - a }')s"
tap_done
