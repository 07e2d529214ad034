#!/bin/bash
# Real traffic through a veth "RoCE master" with macvlan pods: per-pod
# counts equal what was sent (exact for UDP, against the kernel's own TCP
# segment counters for TCP), RoCEv2 DSCP/ECN marks verified by capture on
# the receiving side, CNP, per-pod DSCP, IPv6, ECN-CE, bridge-mode
# pod-to-pod.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2 fd77::2)
MAC_B=$(rn_pod_up b 10.77.0.3 fd77::3)
# RN_XDP_MODE: native (XDP counts rx; the default here, to exercise XDP on
# real traffic) or auto (on veth: rx counted by tc ingress)
XDP_MODE=${RN_XDP_MODE:-native}
rn_agent_config "$RN_TMP/config.json" monitor "\"xdp_mode\": \"$XDP_MODE\""
check "agent attaches to roce0 (xdp_mode $XDP_MODE)" rn_agent_start "$RN_TMP/config.json"
if [ "$XDP_MODE" = native ]; then
	check_eq "xdp attached natively on the veth master" "$(rn_stat ".masters[0].xdp")" native
else
	check_eq "auto on veth: no XDP, rx counted by tc ingress" "$(rn_stat ".masters[0].xdp")" none
fi
check_eq "tc attached with tcx" "$(rn_stat '.masters[0].tc')" tcx
check "register pod a" rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 \
	--master roce0 --mac "$MAC_A" --ip 10.77.0.2 --ip fd77::2
check "register pod b with DSCP 10" rn_ctl pod add --namespace t --pod b --container-id cb \
	--ifname eth1 --master roce0 --mac "$MAC_B" --ip 10.77.0.3 --dscp 10
# neighbours first, so the counted runs below carry no ARP/ND surprises
rn_in a ping -c1 -W2 10.77.0.100 >/dev/null; rn_in b ping -c1 -W2 10.77.0.100 >/dev/null
rn_in a ping -6 -c1 -W2 fd77::100 >/dev/null; rn_in a ping -c1 -W2 10.77.0.3 >/dev/null

# --- tx: marks seen on the wire -----------------------------------------
rn_capture_start "$RN_TMP/tx.pcap" "udp port 4791"
rn_in a "$GEN" --dst 10.77.0.100 --count 200 --size 256
rn_in a "$GEN" --dst 10.77.0.100 --count 30 --size 64 --opcode 0x81
rn_in b "$GEN" --dst 10.77.0.100 --count 100 --size 256 --tos 0x03
rn_in a "$GEN" --dst fd77::100 --count 50 --size 256 --tos 0x01
rn_capture_stop
count() { tshark -r "$RN_TMP/tx.pcap" -Y "$1" 2>/dev/null | wc -l; }
check_eq "wire: pod a RoCE with DSCP 26 + ECT(0)" \
	"$(count 'ip.src==10.77.0.2 && !(udp.length==72) && ip.dsfield.dscp==26 && ip.dsfield.ecn==2')" 200
check_eq "wire: pod a CNP with DSCP 48 + ECT(0)" \
	"$(count 'ip.src==10.77.0.2 && udp.length==72 && ip.dsfield.dscp==48 && ip.dsfield.ecn==2')" 30
check_eq "wire: pod b RoCE with its DSCP 10, CE kept" \
	"$(count 'ip.src==10.77.0.3 && ip.dsfield.dscp==10 && ip.dsfield.ecn==3')" 100
check_eq "wire: pod a IPv6 RoCE with DSCP 26, ECT(1) kept" \
	"$(count 'ipv6.src==fd77::2 && ipv6.tclass.dscp==26 && ipv6.tclass.ecn==1')" 50
check_eq "wire: nothing unmarked" "$(count 'udp.dstport==4791')" 380

check_eq "pod a tx roce packets" "$(rn_pod_stat t/a .tx.roce.packets)" 250
check_eq "pod a tx roce bytes (L2)" "$(rn_pod_stat t/a .tx.roce.bytes)" $((200 * 298 + 50 * 318))
check_eq "pod a tx cnp packets" "$(rn_pod_stat t/a .tx.cnp.packets)" 30
check_eq "pod a tx cnp bytes" "$(rn_pod_stat t/a .tx.cnp.bytes)" $((30 * 106))
check_eq "pod a marked packets" "$(rn_pod_stat t/a .tx.marked_packets)" 280
check_eq "pod b tx roce packets" "$(rn_pod_stat t/b .tx.roce.packets)" 100
check_eq "pod b marked packets" "$(rn_pod_stat t/b .tx.marked_packets)" 100

# --- rx: per pod by destination MAC, ECN-CE counted ---------------------------
rn_in peer "$GEN" --dst 10.77.0.2 --count 40 --size 128 --tos 0x03
rn_in peer "$GEN" --dst 10.77.0.2 --count 10 --size 128 --tos 0x02
rn_in peer "$GEN" --dst 10.77.0.3 --count 25 --size 100 --plain --port 9000
rn_in peer "$GEN" --dst fd77::2 --count 12 --size 128
sleep 0.2
check_eq "pod a rx roce packets" "$(rn_pod_stat t/a .rx.roce.packets)" 62
check_eq "pod a rx roce bytes" "$(rn_pod_stat t/a .rx.roce.bytes)" $((50 * 170 + 12 * 190))
check_eq "pod a rx ECN-CE packets" "$(rn_pod_stat t/a .rx.ecn_ce_packets)" 40
check_eq "pod b rx udp packets" "$(rn_pod_stat t/b .rx.udp.packets)" 25

# --- macvlan bridge mode: pod-to-pod never reaches the master's egress --------
before_a=$(rn_pod_stat t/a .tx.roce.packets)
rn_in a "$GEN" --dst 10.77.0.3 --count 15 --size 256
sleep 0.2
check_eq "pod-to-pod: sender's tx counted once" \
	"$(( $(rn_pod_stat t/a .tx.roce.packets) - before_a ))" 15
check_eq "pod-to-pod: receiver's rx counted once" "$(rn_pod_stat t/b .rx.roce.packets)" 15

# --- TCP: segments, against the kernel's own counters ---------------------
snmp() { rn_in "$1" cat /proc/net/snmp | awk -v f="$2" '/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == f) c = i; h = 1 } else print $c }'; }
tx0=$(rn_pod_stat t/a .tx.tcp.packets); rx0=$(rn_pod_stat t/a .rx.tcp.packets)
out_a0=$(snmp a OutSegs); out_p0=$(snmp peer OutSegs); re_a0=$(snmp a RetransSegs)
rn_in peer iperf3 -s -1 -B 10.77.0.100 >/dev/null 2>&1 &
sleep 0.5
rn_in a iperf3 -c 10.77.0.100 -n 8M >/dev/null 2>&1
rn_in a iperf3 -c 10.77.0.100 -n 8M -R >/dev/null 2>&1 ||
	{ rn_in peer iperf3 -s -1 -B 10.77.0.100 >/dev/null 2>&1 & sleep 0.5;
	  rn_in a iperf3 -c 10.77.0.100 -n 8M -R >/dev/null 2>&1; }
sleep 0.3
sent=$(( $(snmp a OutSegs) - out_a0 )); got=$(( $(snmp peer OutSegs) - out_p0 ))
retr=$(( $(snmp a RetransSegs) - re_a0 ))
tx=$(( $(rn_pod_stat t/a .tx.tcp.packets) - tx0 )); rx=$(( $(rn_pod_stat t/a .rx.tcp.packets) - rx0 ))
tap_diag "tcp: pod sent $sent segments (retrans $retr), counted $tx; peer sent $got, counted $rx"
check_range "tcp tx segments = pod's OutSegs (GSO counted as segments)" "$tx" $((sent - retr)) $((sent + retr))
lo=$(( got * 99 / 100 )); hi=$(( got * 101 / 100 + 2 ))
check_range "tcp rx segments = peer's OutSegs within 1% (GRO aggregates estimated by MTU)" "$rx" "$lo" "$hi"

# a pod that goes takes nothing from its master's totals (Prometheus counters)
total() { rn_stat ".masters[0].total.$1.packets"; }
before_tx=$(total tx.roce); before_rx=$(total rx.roce)
rn_ctl pod del --container-id cb --ifname eth1
check_eq "master tx roce total unchanged after pod b is unregistered" "$(total tx.roce)" "$before_tx"
check_eq "master rx roce total unchanged after pod b is unregistered" "$(total rx.roce)" "$before_rx"
tap_done
