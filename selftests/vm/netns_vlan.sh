#!/bin/bash
# (Run inside a VM by test_datapath_vlan.sh: the host kernel has no 802.1Q.)
# One 802.1Q tag on real traffic: a pod on a macvlan over roce0.100 (the
# master stays roce0, where the programs are), the peer on wire0.100. The
# tag travels in the frame or in skb metadata (veth offloads it); either
# way the pod is counted by MAC and its RoCEv2 is marked, with and without
# XDP.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
ip -n "$RN_NODE" link add link roce0 name roce0.100 type vlan id 100 ||
	{ tap_fail "create an 802.1Q device (8021q module)"; tap_done; }
ip -n "$RN_NODE" link set roce0.100 up
ip -n "$RN_PEER" link add link wire0 name wire0.100 type vlan id 100
ip -n "$RN_PEER" addr add 10.78.0.100/24 dev wire0.100
ip -n "$RN_PEER" link set wire0.100 up
ns=$RN_PFX-v
ip netns add "$ns"
RN_PODS+=("$ns")
ip -n "$RN_NODE" link add link roce0.100 name mvv type macvlan mode bridge
ip -n "$RN_NODE" link set mvv netns "$ns"
ip -n "$ns" link set mvv name eth1
ip -n "$ns" addr add 10.78.0.2/24 dev eth1
ip -n "$ns" link set eth1 up
MAC=$(ip -n "$ns" -br link show eth1 | awk '{print $3}')

for mode in native auto; do
	rn_agent_config "$RN_TMP/$mode.json" monitor "\"xdp_mode\": \"$mode\""
	check "agent attaches (xdp_mode $mode)" rn_agent_start "$RN_TMP/$mode.json"
	rn_ctl pod add --namespace t --pod v --container-id cv --ifname eth1 --master roce0 \
		--mac "$MAC" --ip 10.78.0.2
	nsenter --net=/run/netns/"$ns" ping -c1 -W2 10.78.0.100 >/dev/null
	rn_capture_start "$RN_TMP/$mode.pcap" "vlan 100 and udp port 4791"
	nsenter --net=/run/netns/"$ns" "$GEN" --dst 10.78.0.100 --count 60 --size 200
	nsenter --net=/run/netns/"$RN_PEER" "$GEN" --dst 10.78.0.2 --count 25 --size 200 --tos 3
	rn_capture_stop
	check_eq "$mode: tagged RoCEv2 on the wire marked DSCP 26 + ECT(0)" \
		"$(tshark -r "$RN_TMP/$mode.pcap" -Y 'vlan.id==100 && ip.dsfield.dscp==26 && ip.dsfield.ecn==2' 2>/dev/null | wc -l)" 60
	check_eq "$mode: pod tx roce packets" "$(rn_pod_stat t/v .tx.roce.packets)" 60
	check_eq "$mode: pod tx roce bytes (tagged frames: +4 each where the tag is in the frame)" \
		"$(( $(rn_pod_stat t/v .tx.roce.bytes) == 60 * 242 || $(rn_pod_stat t/v .tx.roce.bytes) == 60 * 246 ))" 1
	check_eq "$mode: pod rx roce packets" "$(rn_pod_stat t/v .rx.roce.packets)" 25
	check_eq "$mode: pod rx ECN-CE" "$(rn_pod_stat t/v .rx.ecn_ce_packets)" 25
	check_eq "$mode: nothing malformed" "$(rn_stat '.masters[0].malformed_packets')" 0
	rn_agent_stop
	rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
done
tap_done
