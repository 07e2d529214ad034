#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Enforcement a pod cannot walk around: rdmanetd in enforce on a
# veth master, pods A and B attached by the CNI plugin as macvlan (bridge),
# frames crafted with AF_PACKET in pod A. After each frame: what the
# gateway and pod B received (captures), the neighbour tables of both, and
# pod A's counters by reason. Legitimate traffic (own addresses, ARP probes,
# DAD) still passes; pod-to-pod traffic is counted once per direction per
# pod; DEL takes the per-pod program off.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
GW4=10.81.0.254
GW6=fd81::254

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" enforce
check "rdmanetd attaches in enforce" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/rail.json" 1.1.0 rail \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"], "ipv6": ["railA-v6"]},
	  "ipConflictCheck": {"enabled": false}, "gatewayCheck": {"enabled": false}}'
for p in a b; do
	ns=$(cni_pod_up $p)
	cni_run ADD "$CNI_TMP/rail.json" c-$p net1 "$ns"
	cni_check_ok "ADD pod $p (macvlan bridge)"
	cp "$CNI_OUT" "$CNI_TMP/result-$p.json"
done
ip4_of() { jq -r '[.ips[] | select(.address | contains(".")) | .address][0] | sub("/.*"; "")' "$CNI_TMP/result-$1.json"; }
ip6_of() { jq -r '[.ips[] | select(.address | contains(":")) | .address][0] | sub("/.*"; "")' "$CNI_TMP/result-$1.json"; }
mac_of() { cni_in "$1" ip -j link show net1 | jq -r ".[0].address"; }
A4=$(ip4_of a) A6=$(ip6_of a) B4=$(ip4_of b) B6=$(ip6_of b) MAC_A=$(mac_of a) MAC_B=$(mac_of b)
SLOT_A=$(bpftool -j map dump pinned "$CNI_PIN/rn_pod_meta_v1" |
	jq -r '.[] | select(.formatted.value.container_id == "c-a") | .formatted.key')
echo "# A $A4 $A6 $MAC_A (slot $SLOT_A), B $B4 $B6 $MAC_B"

# tc_mode auto: a clsact filter (a tcx attach and the device's deletion
# with a tcx link each wait for an RCU grace period holding the RTNL)
check "pod A's interface carries the per-pod program (clsact egress, tc_mode auto)" \
	sh -c "nsenter --net=/run/netns/$CNI_PFX-a bpftool -j net show dev net1 | jq -e '.[0].tc[] | select(.name == \"rn_pod_egress\" and .kind == \"clsact/egress\")' >/dev/null"
check_eq "and no tcx link: none pinned for the pod, none on net1" \
	"$(ls "$CNI_PIN/links" | grep -c "^pod_"):$(cni_in a bpftool -j net show dev net1 | jq '[.[0].tc[] | select(.kind == "tcx/egress")] | length')" "0:0"
# every neighbour entry both sides could learn from A's frames starts known
cni_in a ping -c1 -W2 "$GW4" >/dev/null
cni_in b ping -c1 -W2 "$GW4" >/dev/null
cni_in a ping -6 -c1 -W2 "$GW6" >/dev/null
cni_in b ping -6 -c1 -W2 "$GW6" >/dev/null
cni_in b ping -c1 -W2 "$A4" >/dev/null
check "own traffic passes (A pings the gateway and B)" cni_in a ping -q -c1 -W2 "$B4"

# reason N of A (pod_guard.h): the per-CPU values summed
reason() {
	bpftool -j map lookup pinned "$CNI_PIN/rn_pod_rsn_v1" key $(printf '%d 0 0 0' "$SLOT_A") |
		jq "[.formatted.values[].value.denied[$1]] | add"
}
R_MAC=0 R_IP=1 R_ARP=2 R_ND=3 R_VLAN=4 R_EXT=5

# cap_start NS IF FILTER / cap_count NS: frames matching FILTER that IF in NS
# received in between (tcpdump -Q in)
cap_start() {
	local netns=$CNI_PFX-$1 f=$CNI_TMP/cap.$1
	[ "$1" = fabric ] && netns=$CNI_FABRIC
	nsenter --net=/run/netns/"$netns" tcpdump -Z root --immediate-mode -Q in -i "$2" -n -U \
		-w "$f" "$3" >"$f.log" 2>&1 &
	echo $! >"$f.pid"
	for _ in $(seq 50); do grep -q "listening on" "$f.log" && return 0; sleep 0.1; done
}
cap_count() {
	local f=$CNI_TMP/cap.$1
	kill -INT "$(cat "$f.pid")"
	while kill -0 "$(cat "$f.pid")" 2>/dev/null; do sleep 0.05; done
	tcpdump -r "$f" -n 2>/dev/null | wc -l
}
seen() {	# seen NS IF FILTER CMD...
	cap_start "$1" "$2" "$3"
	"${@:4}"
	sleep 0.3
	cap_count "$1"
}

# attack NAME REASON FILTER CRAFT_ARGS...: the frame reaches neither the
# gateway nor B (frames of B, of the gateway and of the master's own stack
# left out of the captures), and is counted under REASON
attack() {
	local name=$1 r=$2 filter=$3 before
	shift 3
	before=$(reason "$r")
	cap_start b net1 "($filter) and not ether src $GW_MAC"
	cap_start fabric wa0 "($filter) and not ether src $MAC_B and not ether src $MASTER_MAC"
	$CRAFT net1 "$@"
	sleep 0.3
	check_eq "$name: not on the wire, not at B" "$(cap_count fabric)/$(cap_count b)" "0/0"
	check_eq "$name: counted by reason" "$(( $(reason "$r") - before ))" 1
}
CRAFT="nsenter --net=/run/netns/$CNI_PFX-a python3 $RN_SRC/selftests/tools/rn_craft.py"
GW_MAC=$(cni_in fabric ip -j link show wa0 | jq -r '.[0].address')
MASTER_MAC=$(cni_in node ip -j link show ra0 | jq -r '.[0].address')

# tcpdump filters for one NA / DAD NS: the ICMPv6 type right after the IPv6
# header and the target's last 32 bits (the pods' own ND stays out)
low32() { python3 -c 'import ipaddress, sys; print(int(ipaddress.IPv6Address(sys.argv[1])) & 0xffffffff)' "$1"; }
na_for() { echo "ip6[40] == 136 and ip6[60:4] == $(low32 "$1")"; }
dad_for() { echo "ip6[40] == 135 and ip6[8:4] == 0 and ip6[20:4] == 0 and ip6[60:4] == $(low32 "$1")"; }

# one ARP by sender and target protocol address (IPv4 as a number)
v4num() { local IFS=.; set -- $1; echo $(( $1 << 24 | $2 << 16 | $3 << 8 | $4 )); }
arp_of() { echo "arp and arp[14:4] == $(v4num "$1") and arp[24:4] == $(v4num "$2")"; }
vlan_arp_of() { echo "vlan and $(arp_of "$1" "$2")"; }

neigh_b4() { cni_in b ip -4 neigh show "$GW4" dev net1 | awk '{print $3}'; }
neigh_b6() { cni_in b ip -6 neigh show "$GW6" dev net1 | awk '{print $3}'; }
neigh_gw() { cni_in fabric ip neigh show "$1" dev wa0 | awk '{print $3}'; }

attack "gratuitous ARP for the gateway" $R_ARP "$(arp_of $GW4 $GW4)" arp op=2 spa=$GW4 tpa=$GW4
check_eq "B's entry for the gateway is not A's MAC" "$(neigh_b4 | grep -c "$MAC_A")" 0
attack "ARP reply claiming B's address" $R_ARP "$(arp_of "$B4" $GW4)" arp op=2 spa="$B4" tpa="$GW4" dmac=ff:ff:ff:ff:ff:ff
check_eq "the gateway's entry for B is B's MAC" "$(neigh_gw "$B4")" "$MAC_B"
attack "802.1Q gratuitous ARP for the gateway" $R_ARP "$(vlan_arp_of $GW4 $GW4) or $(arp_of $GW4 $GW4)" arp spa=$GW4 tpa=$GW4 vlans=100
attack "unsolicited NA for the gateway's IPv6" $R_ND "$(na_for $GW6)" na src="$A6" target=$GW6
check_eq "B's entry for the gateway's IPv6 is not A's MAC" "$(neigh_b6 | grep -c "$MAC_A")" 0
# the gateway's link-local address (routers are reached by it): neither an
# NA claiming it nor an NS from it (which teaches the target its MAC)
GW_LL=fe80::254
cni_in fabric ip addr add "$GW_LL/64" dev wa0 nodad
cni_in b ping -6 -c1 -W2 "$GW_LL%net1" >/dev/null
neigh_b_ll() { cni_in b ip -6 neigh show "$GW_LL" dev net1 | awk '{print $3}'; }
attack "unsolicited NA for the gateway's link-local address" $R_ND "$(na_for "$GW_LL")" na src="$A6" target="$GW_LL"
check_eq "B's entry for the gateway's link-local is not A's MAC" "$(neigh_b_ll | grep -c "$MAC_A")" 0
attack "NS from the gateway's link-local address to B" $R_IP "ip6[40] == 135 and ip6[20:4] == $(low32 "$GW_LL")" ns src="$GW_LL" target="$B6"
check_eq "B's entry for the gateway's link-local is still not A's MAC" "$(neigh_b_ll | grep -c "$MAC_A")" 0
attack "IPv4 broadcast from the gateway's address" $R_IP "udp port 9" udp4 src=$GW4 dst=10.81.0.255
attack "IPv4 with a foreign source toward the gateway" $R_IP "udp port 9" udp4 src=10.81.0.77 dst=$GW4 dmac="$(neigh_b4)"
attack "IPv6 with a foreign source" $R_IP "udp port 9" udp6 src=fd81::77 dst=$GW6 dmac=33:33:00:00:00:01
attack "forged Ethernet source (own IP)" $R_MAC "udp port 9" udp4 src="$A4" dst=$GW4 smac=02:00:00:00:00:99
attack "forged Ethernet source: ARP claiming B" $R_MAC "$(arp_of "$B4" $GW4)" arp spa="$B4" tpa=$GW4 smac=02:00:00:00:00:99 sha=02:00:00:00:00:99
attack "the master's MAC as source: NA for B" $R_MAC "$(na_for "$B6")" na src="$A6" target="$B6" \
	smac="$MASTER_MAC" tlla="$MASTER_MAC"
check_eq "the gateway's entry for B's IPv6 is not A's" "$(neigh_gw "$B6" | grep -c "$MAC_A")" 0
attack "NA behind four destination-options headers, target B" $R_EXT "ip6 and ip6[6] == 60" na src="$A6" target="$B6" ext=4
check_eq "the gateway's entry for B's IPv6 is still not A's" "$(neigh_gw "$B6" | grep -c "$MAC_A")" 0
attack "three VLAN tags" $R_VLAN "vlan" arp spa=$GW4 tpa=$GW4 vlans=1,2,3
attack "NA with another MAC as target link-layer address (tagged)" $R_ND "vlan" na src="$A6" target="$A6" tlla=02:00:00:00:00:99 vlans=100

# legitimate: ARP probe (RFC 5227), DAD NS from ::, own gratuitous ARP
check_eq "ARP probe (sender 0.0.0.0) reaches B" \
	"$(seen b net1 "$(arp_of 0.0.0.0 "$A4")" $CRAFT net1 arp op=1 spa=0.0.0.0 tpa="$A4")" 1
check_eq "DAD NS from :: reaches B" \
	"$(seen b net1 "$(dad_for "$A6")" $CRAFT net1 ns src=:: target="$A6" slla=none)" 1
check_eq "own gratuitous ARP reaches B" \
	"$(seen b net1 "$(arp_of "$A4" "$A4")" $CRAFT net1 arp op=2 spa="$A4" tpa="$A4")" 1
check_eq "rdmanetctl stats shows the refusals by reason (arp|nd|mac|ip|vlan|ext) and guarded" \
	"$(cni_ctl stats -j --pod t/c-a | jq -r '.pods[0] | "\(.refused.arp_claim)|\(.refused.nd_claim)|\(.refused.source_mac)|\(.refused.source_ip)|\(.refused.vlan_depth)|\(.refused.ipv6_ext_depth)|\(.guarded)"')" \
	"$(reason $R_ARP)|$(reason $R_ND)|$(reason $R_MAC)|$(reason $R_IP)|$(reason $R_VLAN)|$(reason $R_EXT)|true"
check_eq "denied frames are dropped frames" \
	"$(cni_ctl stats -j --pod t/c-a | jq -r '.pods[0].drops.spoofed_source')" \
	"$(cni_ctl stats -j --pod t/c-a | jq -r '.pods[0].policy_violations.spoofed_source')"

# pod-to-pod on one master: once per direction per pod, with the per-pod
# program on both
pstat() { cni_ctl stats -j --pod "t/c-$1" | jq -r ".pods[0]$2"; }
for fam in "$B4" "$B6"; do
	tx0=$(pstat a .tx.roce.packets) rx0=$(pstat b .rx.roce.packets)
	cni_in a "$RN_BUILD/tools/rn_udpgen" --dst "$fam" --count 15 --size 256
	sleep 0.2
	check_eq "pod-to-pod to $fam: A's tx counted once, B's rx once" \
		"$(( $(pstat a .tx.roce.packets) - tx0 ))/$(( $(pstat b .rx.roce.packets) - rx0 ))" "15/15"
done

dev_entries_a() {
	bpftool -j map dump pinned "$CNI_PIN/rn_pod_dev_v1" |
		jq "[.[] | select(.formatted.value.netns_cookie != 0 and .formatted.value.slot == $SLOT_A)] | length"
}
check_eq "A's (netns, ifindex) entry is there before DEL" "$(dev_entries_a)" 1
# where it is, for DEL to zero that entry instead of reading the table
devat_a() {
	bpftool -j map lookup pinned "$CNI_PIN/rn_pod_devat_v1" key $(printf '%d 0 0 0' "$SLOT_A") \
		2>/dev/null | jq -r '.formatted.value // empty'
}
at_a=$(bpftool -j map dump pinned "$CNI_PIN/rn_pod_dev_v1" |
	jq -r "[.[] | select(.formatted.value.netns_cookie != 0 and .formatted.value.slot == $SLOT_A) | .formatted.key][0]")
check_eq "ADD recorded where A's entry is (rn_pod_devat_v1)" "$(devat_a)" "$at_a"
cni_run DEL "$CNI_TMP/rail.json" c-a net1 "/run/netns/$CNI_PFX-a"
cni_check_ok "DEL pod A"
check_eq "DEL removed that record" "$(devat_a)" ""
check "DEL left no link pinned for it" test ! -e "$CNI_PIN/links/pod_$SLOT_A"
check_eq "DEL removed its (netns, ifindex) entry" "$(dev_entries_a)" 0
# a pod netns whose defaults would give random link-local addresses (what
# a host with devconf_inherit_init_net and stable-privacy hands its pods):
# the plugin sets EUI-64 on the pod's interface, so the pod's own neighbour
# discovery from its link-local address is not refused
ns=$(cni_pod_up c)
ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.addr_gen_mode=3
cni_run ADD "$CNI_TMP/rail.json" c-c net1 "$ns"
cni_check_ok "ADD pod C (its netns defaults to random link-local addresses)"
check_eq "C's interface: addr_gen_mode 0 (EUI-64)" \
	"$(cni_in c cat /proc/sys/net/ipv6/conf/net1/addr_gen_mode)" 0
eui64() {	# the modified EUI-64 link-local address of MAC $1
	local m
	IFS=: read -ra m <<<"$1"
	printf 'fe80::%x:%x:%x:%x\n' $(( (0x${m[0]} ^ 2) << 8 | 0x${m[1]} )) \
		$(( 0x${m[2]} << 8 | 0xff )) $(( 0xfe << 8 | 0x${m[3]} )) $(( 0x${m[4]} << 8 | 0x${m[5]} ))
}
ll_c=$(cni_in c ip -j -6 addr show dev net1 scope link | jq -r '.[0].addr_info[] | select(.scope == "link") | .local')
check_eq "C's link-local address is its MAC's EUI-64" "$ll_c" "$(eui64 "$(mac_of c)")"
SLOT_C=$(bpftool -j map dump pinned "$CNI_PIN/rn_pod_meta_v1" |
	jq -r '.[] | select(.formatted.value.container_id == "c-c") | .formatted.key')
cni_in c ping -6 -c1 -W2 "$GW6" >/dev/null
refused_c() {
	bpftool -j map lookup pinned "$CNI_PIN/rn_pod_rsn_v1" key $(printf '%d 0 0 0' "$SLOT_C") |
		jq '[.formatted.values[].value.denied[]] | add'
}
check_eq "C's own traffic (RS, MLD, NS from its link-local) refused nothing" "$(refused_c)" 0
check "C reaches the gateway over IPv6" cni_in c ping -6 -q -c1 -W2 "$GW6"

# ipvlan (l2: siblings get broadcast inside the driver too; l3: no sibling
# broadcast, the master's MAC shared): not run here when the kernel has no
# ipvlan (the development kernel): say so rather than pass silently
if ip -n "$CNI_NODE" link add link ra0 name ipvprobe type ipvlan mode l2 2>/dev/null; then
	ip -n "$CNI_NODE" link del ipvprobe
	tap_skip "ipvlan l2/l3 attacks" "not written yet for ipvlan (neighbour checks differ: one MAC)"
else
	tap_skip "ipvlan l2/l3 attacks" "this kernel has no ipvlan (VM testbed only)"
fi
tap_done
