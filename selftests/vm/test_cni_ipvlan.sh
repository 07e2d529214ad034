#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The rdmanet CNI plugin in ipvlan mode (the host kernel has no ipvlan; the
# Debian kernel in the VM does): one ADD/CHECK/DEL round on node-a's eth0,
# driven as a runtime drives it, with rdmanetd's maps pinned. node-b is the
# pool's gateway and the far end of the wire, so the gateway check gets a
# real answer; the pod's traffic to it is counted for the pod by IP (ipvlan
# children share the master's MAC, so the data path keys them by address).
# The per-pod program on ipvlan: monitor counts by reason; a sibling l2 pod
# (another dev_id) whose link-local address the pod may not claim; enforce
# with a capture in the sibling; then an l3 pod, guarded the same.

RN_PIN_VM=/sys/fs/bpf/rncni
POD=cnipod
POD2=cnipod2
POD3=cnipod3

node_a() {
	local cni=$RN_BUILD/bin/rdmanet ctl="$RN_BUILD/bin/rdmanetctl -c /tmp/node.json"
	local net=/tmp/net.json prev=/tmp/prev.json out=/tmp/out.json env mac ip
	cat >/tmp/node.json <<JSON
{ "node": "node-a", "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$RN_PIN_VM" },
  "ipam": { "store": "sqlite", "path": "/tmp/ipam.db" },
  "cni": { "state_dir": "/tmp/cni-state" },
  "pools": [ { "name": "vm-v4", "subnet": "$VM_SUBNET", "ips": ["192.168.77.50-192.168.77.59"],
               "gateway": "$VM_PEER_IP", "masters": ["eth0"] } ] }
JSON
	cat >$net <<JSON
{ "cniVersion": "1.1.0", "name": "rail-vm", "type": "rdmanet", "mode": "ipvlan",
  "master": "eth0", "ippools": { "ipv4": ["vm-v4"] } }
JSON
	check "rdmanetd --once attaches to eth0 and pins its maps" \
		"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json
	ip netns add "$POD"
	ip -n "$POD" link set lo up
	# host paths are the node's: RDMANET_CONFIG in the runtime's environment
	env=(RDMANET_CONFIG=/tmp/node.json CNI_CONTAINERID=c-vm CNI_IFNAME=net1
	     CNI_NETNS=/run/netns/$POD CNI_PATH=/opt/cni/bin
	     "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=pod1")
	env -i CNI_COMMAND=ADD "${env[@]}" "$cni" <$net >$out 2>/tmp/add.err
	check_eq "ADD (ipvlan l2, conflict and gateway checks against node-b) exits 0" $? 0
	sed 's/^/# /' /tmp/add.err
	mac=$(ip -j link show eth0 | jq -r '.[0].address')
	ip=$(jq -r '.ips[0].address' $out)
	check_eq "result: net1 in the pod with eth0's MAC (ipvlan shares it)" \
		"$(jq -c '[.interfaces[] | [.name, .mac, .sandbox]]' $out)" \
		"[[\"net1\",\"$mac\",\"/run/netns/$POD\"]]"
	check_eq "result: an address of the pool, its gateway node-b" \
		"$(jq -r '.ips[0] | "\(.address) \(.gateway) \(.interface)"' $out)" "$ip $VM_PEER_IP 0"
	check "  in 192.168.77.50-59" grep -qE '^192\.168\.77\.5[0-9]/24$' <<<"$ip"
	check_eq "kernel: an ipvlan in l2 mode on eth0, up, with that address" \
		"$(ip -n "$POD" -d -j addr show net1 | jq -c '.[0] | [.linkinfo.info_kind, .linkinfo.info_data.mode, (.flags | index("UP") != null), [.addr_info[] | select(.family == "inet") | "\(.local)/\(.prefixlen)"]]')" \
		"[\"ipvlan\",\"l2\",true,[\"$ip\"]]"
	check_eq "policy routing: rule from the address to table 100" \
		"$(ip -n "$POD" -j rule show | jq -c --arg a "${ip%/*}" '[.[] | select(.src == $a) | .table]')" '["100"]'
	check_eq "registered IP-keyed on eth0" \
		"$($ctl -j pod show | jq -c '[.[] | select(.ifname == "net1") | [.master, .keyed_by, .ips]]')" \
		"[[\"eth0\",\"ip\",[\"${ip%/*}\"]]]"
	check "the pod reaches node-b through the ipvlan" \
		ip netns exec "$POD" ping -q -c 2 -W 5 "$VM_PEER_IP"
	ip netns exec "$POD" "$RN_BUILD/tools/rn_udpgen" --dst "$VM_PEER_IP" --count 100 --size 256
	check_eq "the data path counted the pod's 100 RoCE packets by its IP" \
		"$($ctl -j stats --pod vm/pod1 | jq '.pods[0].tx.roce.packets')" 100

	# the per-pod program holds for an ipvlan (l2) pod too: on
	# net1's egress, it counts (monitor: and passes) what claims another's
	# address; ipvlan children share eth0's MAC, so the claims are by IP
	local craft="ip netns exec $POD python3 $RN_SRC/selftests/tools/rn_craft.py net1"
	refused() { $ctl -j stats --pod vm/pod1 | jq ".pods[0].refused.$1"; }
	echo "# pod's IPv6 on net1: $(ip -n "$POD" -6 -o addr show dev net1 | awk '{print $4}' | tr '\n' ' ')dev_id $(ip netns exec "$POD" cat /sys/class/net/net1/dev_id)"
	# its own traffic so far (ping, RoCE, and the kernel's link-local ND and
	# MLD from fe80::<MAC with its dev_id>) is no refusal
	check_eq "nothing of the pod's own traffic refused" \
		"$($ctl -j stats --pod vm/pod1 | jq '[.pods[0].refused | .[] | numbers] | add')" 0
	check "net1 carries rn_pod_egress (a clsact filter: tc_mode auto)" sh -c \
		"ip netns exec $POD bpftool -j net show dev net1 | jq -e '.[0].tc[] | select(.name == \"rn_pod_egress\")' >/dev/null"
	check_eq "stats: the pod is guarded" "$($ctl -j stats --pod vm/pod1 | jq '.pods[0].guarded')" true
	$craft udp4 src=192.168.77.99 dst="$VM_PEER_IP"
	check_eq "ipvlan l2: IPv4 from a foreign source counted (source_ip)" "$(refused source_ip)" 1
	$craft arp op=2 spa="$VM_PEER_IP" tpa="$VM_PEER_IP"
	check_eq "ipvlan l2: gratuitous ARP for the gateway counted (arp_claim)" "$(refused arp_claim)" 1
	$craft arp op=2 spa="${ip%/*}" tpa="${ip%/*}"
	check_eq "ipvlan l2: its own gratuitous ARP is no claim" "$(refused arp_claim)" 1
	$craft udp4 src="${ip%/*}" dst="$VM_PEER_IP" smac=02:00:00:00:00:99
	check_eq "ipvlan l2: a forged Ethernet source counted (source_mac)" "$(refused source_mac)" 1

	# a sibling ipvlan pod on eth0: same MAC, another dev_id, so its
	# link-local address differs from pod1's only there; pod1 may announce
	# its own but not the sibling's
	local env2 ll1 ll2
	ip netns add "$POD2"
	ip -n "$POD2" link set lo up
	env2=(RDMANET_CONFIG=/tmp/node.json CNI_CONTAINERID=c-vm2 CNI_IFNAME=net1
	      CNI_NETNS=/run/netns/$POD2 CNI_PATH=/opt/cni/bin
	      "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=pod2")
	env -i CNI_COMMAND=ADD "${env2[@]}" "$cni" <$net >/tmp/out2.json 2>/tmp/add2.err
	check_eq "ADD of a sibling ipvlan pod exits 0" $? 0
	ll_of() { ip -n "$1" -j -6 addr show dev net1 scope link | jq -r '.[0].addr_info[0].local'; }
	ll1=$(ll_of "$POD") ll2=$(ll_of "$POD2")
	echo "# link-local: pod1 $ll1 (dev_id $(ip netns exec "$POD" cat /sys/class/net/net1/dev_id)), pod2 $ll2 (dev_id $(ip netns exec "$POD2" cat /sys/class/net/net1/dev_id))"
	check "the siblings' link-local addresses differ" test -n "$ll2" -a "$ll1" != "$ll2"
	$craft na src="$ll1" target="$ll1"
	check_eq "ipvlan l2: an NA for its own link-local address is no claim" "$(refused nd_claim)" 0
	$craft na src="$ll1" target="$ll2"
	check_eq "ipvlan l2: an NA for the sibling's link-local address counted (nd_claim)" \
		"$(refused nd_claim)" 1
	$craft ns src="$ll2" target=fe80::1
	check_eq "ipvlan l2: an NS from the sibling's link-local address counted (source_ip)" \
		"$(refused source_ip)" 2

	# enforce: ipvlan l2 hands multicast to the siblings inside the driver;
	# the sibling gets pod1's announcement of its own address, never the
	# one for the sibling's
	jq '.masters[0].policy = "enforce"' /tmp/node.json >/tmp/node-enforce.json
	check "rdmanetd --once puts eth0 in enforce" \
		"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node-enforce.json
	drops() { $ctl -j stats --pod vm/pod1 | jq '.pods[0].drops.spoofed_source'; }
	local cap=/tmp/sibling.pcap d0 tcpd
	ip netns exec "$POD2" tcpdump -i net1 -Q in -nn -U -w $cap 'icmp6 and ip6[40] == 136' \
		2>/tmp/sibling.err &
	tcpd=$!
	tgt() { tcpdump -r $cap -nn 2>/dev/null | grep -c "tgt is $1,"; }
	own_na_captured() { [ "$(tgt "$ll1")" -ge 1 ]; }
	# tcpdump says "listening on" once its socket and filter are in place:
	# a TCG guest on a loaded host took longer than the fixed second this
	# waited before (the capture then held nothing, 0/0)
	vm_wait_until 30 grep -q "listening on" /tmp/sibling.err
	d0=$(drops)
	$craft na src="$ll1" target="$ll2"
	$craft na src="$ll1" target="$ll1"
	# the own NA, sent second, is to arrive (-U writes it at once); the
	# sibling's, sent first on the same way, would have arrived before it
	vm_wait_until 20 own_na_captured
	kill $tcpd
	wait $tcpd 2>/dev/null
	check_eq "enforce: the NA for the sibling's link-local address dropped (drops +1)" \
		"$(( $(drops) - d0 ))" 1
	check_eq "the sibling received pod1's NA for its own address, not the other (own/sibling's)" \
		"$(tgt "$ll1")/$(tgt "$ll2")" "1/0"
	env -i CNI_COMMAND=DEL "${env2[@]}" "$cni" <$net >/dev/null 2>&1
	check_eq "DEL of the sibling exits 0" $? 0

	jq --slurpfile r $out '. + {prevResult: $r[0]}' $net >$prev
	env -i CNI_COMMAND=CHECK "${env[@]}" "$cni" <$prev >/tmp/check.out 2>&1
	check_eq "CHECK exits 0 with nothing on stdout" "$?:$(cat /tmp/check.out)" "0:"
	env -i CNI_COMMAND=DEL "${env[@]}" "$cni" <$prev >/tmp/del.out 2>&1
	check_eq "DEL exits 0" "$?:$(cat /tmp/del.out)" "0:"
	check_eq "net1 gone from the pod" "$(ip -n "$POD" -o link | grep -c net1)" 0
	check_eq "registration gone" "$($ctl -j pod show | jq 'length')" 0
	check_eq "address released" "$($ctl -j ip show --container-id c-vm --ifname net1 | jq '.allocations | length')" 0
	env -i CNI_COMMAND=DEL "${env[@]}" "$cni" <$prev >/dev/null 2>&1
	check_eq "DEL again exits 0" $? 0

	# ipvlan l3 (the mode is the master's port's: after the l2 pods are
	# gone): no sibling broadcast, the master's MAC still shared; the pod
	# is guarded the same, eth0 still in enforce
	local env3 l3net=/tmp/net-l3.json d3
	jq '. + {ipvlanMode: "l3"}' $net >$l3net
	ip netns add "$POD3"
	ip -n "$POD3" link set lo up
	env3=(RDMANET_CONFIG=/tmp/node.json CNI_CONTAINERID=c-vm3 CNI_IFNAME=net1
	      CNI_NETNS=/run/netns/$POD3 CNI_PATH=/opt/cni/bin
	      "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=pod3")
	env -i CNI_COMMAND=ADD "${env3[@]}" "$cni" <$l3net >/tmp/out3.json 2>/tmp/add3.err
	check_eq "ADD of an ipvlan l3 pod exits 0" $? 0
	sed 's/^/# /' /tmp/add3.err
	check_eq "kernel: net1 an ipvlan in l3 mode" \
		"$(ip -n "$POD3" -d -j link show net1 | jq -r '.[0].linkinfo.info_data.mode')" l3
	pstat3() { $ctl -j stats --pod vm/pod3 | jq ".pods[0]$1"; }
	check_eq "ipvlan l3: the pod is guarded" "$(pstat3 .guarded)" true
	d3=$(pstat3 .drops.spoofed_source)
	ip netns exec "$POD3" python3 "$RN_SRC/selftests/tools/rn_craft.py" net1 udp4 \
		src=192.168.77.99 dst="$VM_PEER_IP"
	check_eq "ipvlan l3, enforce: IPv4 from a foreign source refused (source_ip) and dropped" \
		"$(pstat3 .refused.source_ip)/$(( $(pstat3 .drops.spoofed_source) - d3 ))" "1/1"
	env -i CNI_COMMAND=DEL "${env3[@]}" "$cni" <$l3net >/dev/null 2>&1
	check_eq "DEL of the l3 pod exits 0" $? 0
	vm_barrier cni-done 120
}

node_b() {
	vm_barrier cni-done 180
}

guest_main() {
	if [ "$VM_NODE" = node-a ]; then node_a; else node_b; fi
}

. "$(dirname "$0")/lib/main.sh"
vm_main pair guest_main 240
tap_done
