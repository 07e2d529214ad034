#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# RoCE QoS and counters on real Soft-RoCE traffic between two VMs:
#   1. rdmanetd's tc programs on node-a's master (eth0): node-b captures
#      the RoCEv2 packets of a real ib_write_bw from node-a and finds every
#      one carrying DSCP 26 and ECT(0); node-a's per-master RoCE counters
#      (rdmanetctl stats -j) and rxe's sent_pkts both equal the packets
#      captured; the hardware counters rdmanet exports match `rdma
#      statistic`.
#   2. default_roce_tos set by rdmanetd on node-b (DSCP 34, ECT(1): TOS
#      137), its tc programs removed again: an RDMA-CM connection
#      (ib_write_bw -R) from node-b carries TOS 137 on the wire.
# The host part is at the bottom; inside a VM this file is the node script.

capture_start() {	# capture_start FILE FILTER
	vm_capture_start "$1" "$2"
}

# capture_stop FILE SENT: the capture is complete once it holds the SENT
# packets the sender's rxe counted (bounded wait; both numbers on failure)
capture_stop() {
	check "the capture holds the $2 packets the sender's rxe sent, none dropped ($(basename "$1"))" \
		vm_capture_stop "$1" "$2"
}

# "count dscp ecn" per distinct marking of the RDMA WRITE packets from $2
markings() {	# markings PCAP SRC
	tshark -r "$1" -Y "ip.src == $2 && infiniband.bth.opcode >= 6 && infiniband.bth.opcode <= 11" \
		-T fields -e ip.dsfield.dscp -e ip.dsfield.ecn 2>/dev/null | sort | uniq -c |
		awk '{ print $1, $2, $3 }'
}

# node-a's master counters: "total unknown" RoCE packets sent on eth0
tx_roce() {
	"$R" --pin-dir "$PIN_A" stats -j | jq -r '.masters[] | select(.ifname == "eth0") |
		"\(.total.tx.roce.packets) \(.unknown_by_class.tx.roce.packets)"'
}

rxe_stat() { vm_rxe_stat "$1"; }

# An RDMA-CM run of ib_write_bw between the nodes; under a loaded TCG host
# perftest's RDMA-CM setup can stall for good (an RNR-retried send that
# never finds a receive), so a stalled run is tried again on a fresh port,
# both nodes agreeing through the run directory.
perftest_cm() {	# perftest_cm server|client ARGS...
	local role=$1 attempt rc peer
	shift
	for attempt in 1 2 3; do
		vm_barrier "cm-start-$attempt" 120
		PERFTEST_TIMEOUT=40 perftest "$role" $((18515 + attempt)) -R "$@"
		rc=$?
		vm_put "cm-$attempt-$VM_NODE" "$rc"
		peer=$(vm_get "cm-$attempt-$VM_PEER" 120)
		[ "$rc" = 0 ] && [ "$peer" = 0 ] && return 0
		tap_diag "ib_write_bw -R attempt $attempt: $VM_NODE exit $rc, $VM_PEER exit $peer"
	done
	return "$rc"
}

cm_listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$1 "; }

perftest() {	# perftest server|client PORT ARGS... (PERFTEST_TIMEOUT, default 90 s)
	local role=$1 port=$2 limit=${PERFTEST_TIMEOUT:-90}
	shift 2
	if [ "$role" = server ]; then
		timeout "$limit" stdbuf -oL -eL ib_write_bw -d rxe0 -p "$port" "$@" >"$VM_OUT/bw.$port.out" 2>&1 &
		local pid=$!
		# with -R the server listens on an RDMA-CM id, not a TCP socket
		if [ "$1" = -R ]; then
			vm_wait_until 30 cm_listening "$port"
		else
			vm_wait_listen "$port" 30
		fi
		vm_barrier "listening-$port" 60
		wait $pid
	else
		vm_barrier "listening-$port" 60
		local try rc
		for try in 1 2 3; do
			timeout "$limit" stdbuf -oL -eL ib_write_bw -d rxe0 -p "$port" "$@" "$VM_PEER_IP" \
				>"$VM_OUT/bw.$port.out" 2>&1
			rc=$?
			# the RDMA-CM listener can show before it takes requests (6.1):
			# a REJ "invalid service id" means come again
			grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$VM_OUT/bw.$port.out" || break
			sleep 1
		done
		return $rc
	fi
}

node_a() {
	local before after cap j
	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$PIN_A" } }
JSON
	check "rdmanetd --once attaches to eth0" $D --once --config /tmp/agent.json
	# tcx from 6.6 on, clsact before
	local tc=tcx
	[ "$VM_SERIES" = 6.1 ] && tc=clsact
	check_eq "tc attached ($tc)" "$("$R" --pin-dir "$PIN_A" stats -j | jq -r '.masters[0].tc')" "$tc"
	before=$(tx_roce)
	local sent0 sent1
	sent0=$(rxe_stat sent_pkts)
	vm_barrier capturing 60
	perftest client 18515 -x "$(gid_v2_index /sys rxe0 1 "$VM_IP")" -s 4096 -n 300
	check_eq "ib_write_bw client (marked by tc) exits 0" $? 0
	after=$(tx_roce)
	sent1=$(rxe_stat sent_pkts)
	vm_put sent-a "$((sent1 - sent0))"
	cap=$(vm_get captured 180)
	read -r t0 u0 <<<"$before"
	read -r t1 u1 <<<"$after"
	check_range "node-b captured RDMA WRITEs ($cap)" "${cap:-0}" 1200 1000000
	check_eq "per-master RoCE tx packets equal the packets captured" "$((t1 - t0))" "$cap"
	check_eq "... all of it host traffic (unknown_by_class)" "$((u1 - u0))" "$cap"
	check_eq "rxe's sent_pkts agrees" "$((sent1 - sent0))" "$cap"
	check_eq "the tc marker counted what it rewrote" \
		"$("$R" --pin-dir "$PIN_A" stats -j | jq '.masters[0].unknown_marked_packets')" "$((t1 - t0))"

	# hardware counters: what rdmanet exports is what rdma statistic shows
	"$R" -c /tmp/agent.json export --textfile /tmp/prom
	grep '^rdmanet_rdma_hw_stats_total{device="rxe0",port="1"' /tmp/prom/rdmanet.prom |
		sed 's/.*counter="\([^"]*\)"} \(.*\)/\1 \2/' | sort >/tmp/ours
	rdma -j statistic show link rxe0/1 | jq -r '.[0] | del(.ifname, .port) | to_entries[] |
		"\(.key) \(.value)"' | sort >/tmp/theirs
	cp /tmp/ours /tmp/theirs "$VM_OUT/"
	check_range "textfile has rxe0's hardware counters" "$(wc -l </tmp/ours)" 10 100
	check "they equal rdma statistic's, counter by counter" cmp -s /tmp/ours /tmp/theirs
	check_range "textfile sent_pkts covers the run" \
		"$(awk '$1 == "sent_pkts" { print $2 }' /tmp/ours)" "$cap" 100000000
	check "textfile passes promtool" sh -c "promtool check metrics < /tmp/prom/rdmanet.prom"

	# part 2: node-b sends over RDMA-CM; capture here, with node-a's own
	# programs gone so nothing but node-b's stack sets the TOS
	$D --uninstall --config /tmp/agent.json 2>/dev/null
	capture_start /tmp/b2a.pcap "udp dst port 4791 and src host $VM_PEER_IP"
	check "capturing RoCE from node-b" test $? = 0
	vm_barrier capturing-cm 60
	perftest_cm server -s 4096 -n 200
	check_eq "ib_write_bw -R server exits 0" $? 0
	capture_stop /tmp/b2a.pcap "$(vm_get sent-b 180)"
	j=$(markings /tmp/b2a.pcap "$VM_PEER_IP")
	echo "$j" >"$VM_OUT/b2a.markings"
	check_eq "every RDMA-CM WRITE from node-b carries TOS 137 (DSCP 34, ECT(1))" \
		"$(awk '{ print $2, $3 }' <<<"$j")" "34 1"
	check_range "... and there are such packets" "$(awk '{ s += $1 } END { print s + 0 }' <<<"$j")" \
		800 1000000
}

node_b() {
	local j n
	capture_start /tmp/a2b.pcap "udp dst port 4791 and src host $VM_PEER_IP"
	check "capturing RoCE from node-a" test $? = 0
	vm_barrier capturing 60
	perftest server 18515 -x "$(gid_v2_index /sys rxe0 1 "$VM_IP")" -s 4096 -n 300
	check_eq "ib_write_bw server exits 0" $? 0
	capture_stop /tmp/a2b.pcap "$(vm_get sent-a 180)"
	n=$(tcpdump -r /tmp/a2b.pcap -nn 2>/dev/null | wc -l)
	vm_put captured "$n"
	j=$(markings /tmp/a2b.pcap "$VM_PEER_IP")
	echo "$j" >"$VM_OUT/a2b.markings"
	check_eq "every RDMA WRITE from node-a carries DSCP 26 and ECT(0)" \
		"$(awk '{ print $2, $3 }' <<<"$j")" "26 2"
	check_eq "... every RoCE packet of node-a, WRITEs are all there is" \
		"$(awk '{ s += $1 } END { print s + 0 }' <<<"$j")" "$n"

	# part 2: default_roce_tos from rdmanetd; its tc programs removed again
	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "eth0" } ], "qos": { "roce_dscp": 34, "ecn": "ect1" },
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$PIN_B" } }
JSON
	$D --once --config /tmp/agent.json 2>"$VM_OUT/agent.log"
	check_eq "rdmanetd set default_roce_tos" \
		"$(cat /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos)" 137
	check "... and logged it" grep -q 'rxe0/1: default_roce_tos 0 -> 137' "$VM_OUT/agent.log"
	$D --uninstall --config /tmp/agent.json 2>>"$VM_OUT/agent.log"
	check_eq "no tc program left on eth0 (the TOS is RDMA-CM's alone)" \
		"$(bpftool -j net show dev eth0 | jq '[.[0].tc[]?] | length')" 0
	check_eq "default_roce_tos stays after uninstall" \
		"$(cat /sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos)" 137
	local sent0
	sent0=$(rxe_stat sent_pkts)
	vm_barrier capturing-cm 60
	perftest_cm client -s 4096 -n 200
	check_eq "ib_write_bw -R client exits 0" $? 0
	vm_put sent-b "$(($(rxe_stat sent_pkts) - sent0))"
}

if [ -n "${VM_NODE:-}" ]; then
	. "$VM_LIB/guest.sh"
	. "$RN_SRC/selftests/fixtures/sysfs/show_gids.sh"
	R=$RN_BUILD/bin/rdmanetctl
	D=$RN_BUILD/bin/rdmanetd
	PIN_A=/sys/fs/bpf/rnvmtra
	PIN_B=/sys/fs/bpf/rnvmtrb
	export RDMANET_CONFIG=/tmp/empty.json
	echo '{}' >"$RDMANET_CONFIG"
	vm_wait_peer 30
	if [ "$VM_NODE" = node-a ]; then node_a; else node_b; fi
	vm_barrier done 120
	tap_done
fi

. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/vm/lib/vm.sh"
vm_require "${VM_SERIES:-6.12}"
vm_run_pair "$0" "$0" 180
tap_done
