#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# An upgrade through libxdp's dispatcher under traffic (the host's kernel
# refuses freplace, so there XDP is attached alone): node-a's agent is
# replaced by the variant build's (other program code) while node-b and
# node-a stream RoCEv2-shaped datagrams at each other. Zero loss, node-a's
# rx (XDP in the dispatcher) and tx (tcx) counted exactly across the swap,
# every datagram node-a sent marked, ours replaced inside the dispatcher.

PIN=/sys/fs/bpf/rnupg
CHUNK=1000	# datagrams per rn_udpgen run: 5 s at one per 5 ms
MAX_CHUNKS=20	# a swap that never ends still ends the stream

stat_of() { "$RN_BUILD/bin/rdmanetctl" --pin-dir $PIN stats -j | jq -r ".masters[0]$1"; }
attached() { [ "$(grep -c "master(s) attached" "$1" 2>/dev/null)" -ge 1 ]; }
sent_more_than() { [ "$(stat_of .unknown_by_class.tx.roce.packets)" -gt "$1" ]; }

# stream: RoCEv2-shaped datagrams to the peer, CHUNK at a time, until node-a
# has published "swapped", then one whole chunk more, so the stream runs
# through the swap and past it however long the swap takes under TCG (a
# fixed count either ends before a slow swap or streams on long after a
# quick one), at most MAX_CHUNKS. Prints how many it sent; both nodes' captures and counters
# are checked against that.
stream() {
	local n=0 last=
	while [ -z "$last" ]; do
		[ -f "$VM_SHARED/swapped" ] || [ $n -ge $(((MAX_CHUNKS - 1) * CHUNK)) ] && last=1
		"$RN_BUILD/tools/rn_udpgen" --dst "$VM_PEER_IP" --count $CHUNK --size 200 \
			--interval-us 5000 || return 1
		n=$((n + CHUNK))
	done
	echo "$n"
}

node_a() {
	local cfg=/tmp/node.json old new rx0 tx0 mid before after sent peer_sent
	cat >$cfg <<JSON
{ "node": "node-a", "masters": [ { "ifname": "eth0", "policy": "monitor", "xdp_mode": "native" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$PIN" } }
JSON
	"$RN_BUILD/bin/rdmanetd" --config $cfg >"$VM_OUT/old.log" 2>&1 &
	old=$!
	check "old build attaches" vm_wait_until 120 attached "$VM_OUT/old.log"
	check_eq "XDP native" "$(stat_of .xdp)" native
	xdp-loader status eth0 >"$VM_OUT/xdp-before.txt" 2>&1
	check "in libxdp's dispatcher" grep -q xdp_dispatcher "$VM_OUT/xdp-before.txt"
	before=$(xdp-loader status eth0 2>&1 | awk '$3 == "rn_xdp_rx" { print $5 }')
	rx0=$(stat_of .unknown_by_class.rx.roce.packets)
	tx0=$(stat_of .unknown_by_class.tx.roce.packets)
	vm_capture_start /tmp/in.pcap udp port 4791 and src host "$VM_PEER_IP"
	vm_barrier ready 120
	stream >/tmp/sent &
	local gen=$!
	# the old agent stops with the stream under way (about 1 s of it)
	vm_wait_until 60 sent_more_than $((tx0 + 200))
	kill -TERM $old
	wait $old
	check "old agent stops" test $? = 0
	"$RN_BUILD/variant/bin/rdmanetd" --config $cfg >"$VM_OUT/new.log" 2>&1 &
	new=$!
	check "new build starts" vm_wait_until 200 attached "$VM_OUT/new.log"
	mid=$(stat_of .unknown_by_class.tx.roce.packets)
	vm_put swapped 1
	grep "upgraded in place" "$VM_OUT/new.log" | sed 's/^/# /'
	check_eq "tc egress, tc ingress, XDP replaced" "$(grep -c "upgraded in place" "$VM_OUT/new.log")" 3
	check "XDP replaced inside the dispatcher" \
		grep -q "rn_xdp_rx upgraded in place (libxdp dispatcher)" "$VM_OUT/new.log"
	after=$(xdp-loader status eth0 2>&1 | awk '$3 == "rn_xdp_rx" { print $5 }')
	check "one rn_xdp_rx left, the new one ($before -> $after)" \
		test -n "$after" -a "$after" != "$before" -a "$(wc -l <<<"$after")" = 1
	wait $gen
	sent=$(cat /tmp/sent)
	vm_put a-sent "$sent"
	check "replaced mid-stream ($((mid - tx0)) of ${sent:-?} sent)" test "$mid" -lt $((tx0 + sent))
	peer_sent=$(vm_get b-sent 300)
	check "zero loss node-b -> node-a (capture)" vm_capture_stop /tmp/in.pcap "$peer_sent"
	check_eq "node-a rx counted exactly across the swap (XDP)" \
		"$(stat_of .unknown_by_class.rx.roce.packets)" $((rx0 + peer_sent))
	check_eq "node-a tx counted exactly across the swap (tcx)" \
		"$(stat_of .unknown_by_class.tx.roce.packets)" $((tx0 + sent))
	vm_barrier done 400
	kill -TERM $new
	wait $new
	check "uninstall" "$RN_BUILD/bin/rdmanetd" --pin-dir $PIN --uninstall -q
}

node_b() {
	local sent peer_sent
	vm_capture_start /tmp/marks.pcap udp port 4791 and src host "$VM_PEER_IP"
	vm_barrier ready 120
	sent=$(stream)
	vm_put b-sent "$sent"
	peer_sent=$(vm_get a-sent 300)
	check "zero loss node-a -> node-b (capture)" vm_capture_stop /tmp/marks.pcap "$peer_sent"
	check_eq "every datagram from node-a marked across the swap" \
		"$(tshark -r /tmp/marks.pcap -Y 'ip.dsfield.dscp==26 && ip.dsfield.ecn==2' 2>/dev/null | wc -l)" "$peer_sent"
	vm_barrier done 400
}

guest_main() {
	if [ "$VM_NODE" = node-a ]; then node_a; else node_b; fi
}

# rdma_rxe holds UDP port 4791 in the guests (loaded, even without rxe0):
# the captures count what arrived
VM_RXE_SETUP=0
. "$(dirname "$0")/lib/main.sh"
vm_main pair guest_main 450
tap_done
