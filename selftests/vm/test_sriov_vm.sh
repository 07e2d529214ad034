#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Exclusive mode on real SR-IOV VFs: two VMs under qemu 10 (bookworm-
# backports, dpkg -x'd into the cache), each with an Intel 82576 (igb) on a
# q35 PCIe root port, the two igb ports joined by their own wire. On each
# node rdmanetd provisions 2 VFs from the node config's "sriov" section
# (and changes nothing when run again), the VFs get admin MACs and igbvf
# (driver_override: autoprobe is off), then the rdmanet CNI in mode
# "sriov" hands VF 0 to a pod with settings through the PF; the two pods
# reach each other over the igb wire with pool addresses and policy
# routes; CHECK passes; DEL gives the VF back exactly (`ip link show PF`
# before == after). Then, on node-a: bad deviceID / a PF as deviceID / an
# RDMA VF in shared netns mode are one clear error each with nothing
# changed; two parallel ADDs on one VF never share it; a pod netns deleted
# before DEL leaves a VF the agent's leak sweep restores; a pod netns whose
# teardown is slow (a process holds it) keeps its VF's hold through DEL
# until the kernel returns the VF, then the sweep restores it; SIGKILL mid-ADD
# then DEL leaves nothing; in exclusive netns mode an rxe on a VF is asked
# to move into the pod and the kernel's EOPNOTSUPP is one clear error with
# a clean rollback, and the RDMA netlink request rdmanet sent is compared
# attribute by attribute with iproute2's `rdma dev set DEV netns NS`, both
# captured with strace (an nlmon device does not see NETLINK_RDMA: the
# kernel taps only some netlink families for it).

POD=srpod
PIN=/sys/fs/bpf/rnsr
CNI_STATE=/tmp/cni-state

pf_name() {
	local n
	for n in /sys/class/net/*; do
		[ "$(basename "$(readlink "$n/device/driver" 2>/dev/null)")" = igb ] &&
			{ basename "$n"; return; }
	done
}

vf_pci() { basename "$(readlink "/sys/class/net/$PF/device/virtfn$1")"; }
vf_netdev() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n 1; }
# conditions for vm_wait_until, looked at again at each check (an argument
# "$(vf_netdev ...)" would be expanded once, before the wait)
vf_has_netdev() { [ -n "$(vf_netdev "$1")" ]; }
no_netns() { [ -z "$(ip netns list)" ]; }

node_config() {	# node_config FILE IS_RDMA
	cat >"$1" <<JSON
{ "node": "$VM_NODE", "textfile": { "dir": "/tmp/prom", "interval_s": 0 },
  "bpf": { "pin_dir": "$PIN" }, "ipam": { "store": "sqlite", "path": "/tmp/ipam.db" },
  "cni": { "state_dir": "$CNI_STATE" },
  "pools": [ { "name": "sr-v4", "subnet": "192.168.88.0/24",
               "ips": ["192.168.88.$POOL_LO-192.168.88.$((POOL_LO + 9))"], "masters": ["$PF"] } ],
  "sriov": [ { "pf": "$PF", "numVfs": 2, "isRdma": $2, "resourceName": "igbvf" } ] }
JSON
}

netconf() {	# netconf FILE DEVICEID [EXTRA_JSON]
	cat >"$1" <<JSON
{ "cniVersion": "1.1.0", "name": "sriov-rail", "type": "rdmanet", "mode": "sriov",
  "ippools": { "ipv4": ["sr-v4"] }, "policyRouting": true,
  "configFile": "/tmp/node.json", "stateDir": "$CNI_STATE",
  "runtimeConfig": { "deviceID": "$2" } ${3:+, $3} }
JSON
}

cni() {	# cni CMD CONF CID NETNS [IFNAME]   ($CNI_WRAP: a command to run it under)
	# the node config is the runtime's to name (RDMANET_CONFIG); a network
	# config may only repeat it: the tests that swap node configs swap both
	$CNI_WRAP env -i RDMANET_CONFIG="$(jq -r '.configFile // "/tmp/node.json"' "$2")" CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_IFNAME="${5:-net1}" CNI_NETNS="$4" \
		CNI_PATH=/opt/cni/bin "CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=$3" \
		"$RN_BUILD/bin/rdmanet" <"$2"
}

pf_state() { ip link show "$PF" | sed 1d; }

setup_vfs() {
	local i pci total
	PF=$(pf_name)
	check "an igb PF is there" test -n "$PF"
	ip link set "$PF" up
	vm_wait_until 20 grep -qx 1 "/sys/class/net/$PF/carrier"
	check "the PF has carrier over the igb wire" grep -qx 1 "/sys/class/net/$PF/carrier"
	PCI_PF=$(basename "$(readlink "/sys/class/net/$PF/device")")
	echo 0 >"/sys/bus/pci/devices/$PCI_PF/sriov_drivers_autoprobe"
	node_config /tmp/node.json false
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/agent1.log
	check_eq "rdmanetd --once exits 0" $? 0
	sed 's/^/# agent: /' /tmp/agent1.log
	check_eq "rdmanetd set sriov_numvfs from the config" \
		"$(cat "/sys/bus/pci/devices/$PCI_PF/sriov_numvfs")" 2
	check "  and said so" grep -q "sriov: $PF: sriov_numvfs 0 -> 2" /tmp/agent1.log
	ls -d "/sys/bus/pci/devices/$PCI_PF"/virtfn* >/tmp/vfs.before
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/agent2.log
	check "a second run changes nothing" grep -q "nothing to do" /tmp/agent2.log
	check "  (no sriov_numvfs write)" not_grep "sriov_numvfs" /tmp/agent2.log
	total=$(cat "/sys/bus/pci/devices/$PCI_PF/sriov_totalvfs")
	node_config /tmp/over.json false
	sed -i "s/\"numVfs\": 2/\"numVfs\": $((total + 1))/" /tmp/over.json
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/over.json 2>/tmp/agent3.log
	check "numVfs above sriov_totalvfs ($total) is refused" \
		grep -q "numVfs $((total + 1)) is more than sriov_totalvfs $total: not changed" /tmp/agent3.log
	check_eq "  and sriov_numvfs stays 2" "$(cat "/sys/bus/pci/devices/$PCI_PF/sriov_numvfs")" 2
	for i in 0 1; do
		pci=$(vf_pci $i)
		ip link set "$PF" vf $i mac "52:54:00:99:0$NODE_N:0$i"
		echo igbvf >"/sys/bus/pci/devices/$pci/driver_override"
		echo "$pci" >/sys/bus/pci/drivers/igbvf/bind
	done
	vm_wait_until 20 vf_has_netdev "$(vf_pci 1)"
	VF0=$(vf_pci 0)
	VF1=$(vf_pci 1)
	check "both VFs have netdevs under igbvf" test -n "$(vf_netdev "$VF0")" -a -n "$(vf_netdev "$VF1")"
}

not_grep() { ! grep -q "$@"; }

main_round() {
	local out=/tmp/add.json prev=/tmp/prev.json before after vfdev peer
	vfdev=$(vf_netdev "$VF0")
	before=$(pf_state)
	"$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json vf -j --state-dir "$CNI_STATE" >/tmp/vf.json
	check_eq "rdmanetctl vf: the PF with 2 VFs, VF 0's admin MAC from IFLA_VFINFO_LIST" \
		"$(jq -r --arg p "$PF" '.pfs[] | select(.ifname == $p) | "\(.numvfs) \(.vfs | length) \(.vfs[0].admin.mac) \(.vfs[0].netdev)"' /tmp/vf.json)" \
		"2 2 52:54:00:99:0$NODE_N:00 $vfdev"
	check_eq "  iproute2 agrees on VF 0's MAC and spoofchk" \
		"$(ip -j link show "$PF" | jq -r '.[0].vfinfo_list[0] | "\(.address) \(.spoofchk)"')" \
		"$(jq -r --arg p "$PF" '.pfs[] | select(.ifname == $p) | .vfs[0].admin | "\(.mac) \(.spoofchk)"' /tmp/vf.json)"
	ip netns add $POD
	ip -n $POD link set lo up
	netconf /tmp/net.json "$VF0" '"mac": "02:00:00:00:0'$NODE_N':01", "spoofchk": "on", "trust": "on"'
	cni ADD /tmp/net.json c-main /run/netns/$POD >$out 2>/tmp/add.err
	check_eq "ADD mode sriov exits 0" $? 0
	sed 's/^/# /' /tmp/add.err $out
	check_eq "the VF is net1 in the pod with the network's MAC" \
		"$(ip -n $POD -j link show net1 | jq -r '.[0] | "\(.address) \(.operstate != "DOWN")"')" \
		"02:00:00:00:0$NODE_N:01 true"
	check_eq "  and no longer in the host" "$(vf_netdev "$VF0")" ""
	check_eq "PF: VF 0 admin MAC, spoofchk and trust as asked" \
		"$(ip -j link show "$PF" | jq -r '.[0].vfinfo_list[0] | "\(.address) \(.spoofchk) \(.trust)"')" \
		"02:00:00:00:0$NODE_N:01 true true"
	check_eq "an address of this node's range on net1" \
		"$(jq -r '.ips[0].address' $out)" "192.168.88.$POOL_LO/24"
	check_eq "policy routing: a rule from it" \
		"$(ip -n $POD -j rule show | jq -r --arg a "192.168.88.$POOL_LO" '[.[] | select(.src == $a) | .table] | join(",")')" 100
	check "rdmanetctl vf shows the pod holding VF 0" \
		test "$("$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json vf -j --state-dir "$CNI_STATE" | jq -r --arg v "$VF0" '.pfs[].vfs[] | select(.pci == $v) | .held_by.pod')" = c-main
	# the agent restarted while the VF is held: the held VF stays taken
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/agent4.log
	check_eq "rdmanetd restarted while VF 0 is held: both healthy (in use is not a health state)" \
		"$(grep -E "^rdmanet_sriov_vf_healthy\{resource=\"igbvf\",pf=\"$PF\"" /tmp/prom/rdmanet.prom | sed -E 's/.*pci="([^"]+)"} /\1 /' | sort | tr '\n' ' ')" \
		"$VF0 1 $VF1 1 "
	check_eq "  VF 0 in use, VF 1 not" \
		"$(grep -E "^rdmanet_sriov_vf_in_use\{resource=\"igbvf\",pf=\"$PF\"" /tmp/prom/rdmanet.prom | sed -E 's/.*pci="([^"]+)"} /\1 /' | sort | tr '\n' ' ')" \
		"$VF0 1 $VF1 0 "
	check "  and it left the held VF alone" not_grep -e "sweep" -e "$VF0" /tmp/agent4.log
	vm_barrier added 120
	peer=$([ "$VM_NODE" = node-a ] && echo 192.168.88.20 || echo 192.168.88.10)
	check "pod to pod across the VMs over the VFs ($peer)" \
		ip netns exec $POD ping -c 3 -W 5 -q "$peer"
	jq --slurpfile r $out '. + {prevResult: $r[0]}' /tmp/net.json >$prev
	cni CHECK $prev c-main /run/netns/$POD >/tmp/check.out 2>/tmp/check.err
	check_eq "CHECK exits 0, nothing on stdout" "$?:$(cat /tmp/check.out)" "0:"
	sed 's/^/# /' /tmp/check.err
	ip link set "$PF" vf 0 trust off
	cni CHECK $prev c-main /run/netns/$POD >/tmp/check.out 2>&1
	check "CHECK sees a VF setting changed behind its back" grep -q "trust differs" /tmp/check.out
	ip link set "$PF" vf 0 trust on
	# CHECK looks inside the pod: the interface must be the held VF's own
	# netdev (its driver's bus address there), not a look-alike
	h=$CNI_STATE/sriov/$VF0.json
	cp "$h" /tmp/hold.keep
	jq --arg v "$VF1" '.pci = $v' /tmp/hold.keep >"$CNI_STATE/sriov/$VF1.json" && rm "$h"
	cni CHECK $prev c-main /run/netns/$POD >/tmp/check.out 2>&1
	check "CHECK sees that net1 is not the VF the hold names" \
		grep -q "net1 is the netdev of $VF0, not of VF $VF1" /tmp/check.out
	rm "$CNI_STATE/sriov/$VF1.json" && cp /tmp/hold.keep "$h"
	ip -n $POD link set net1 mtu 1400
	jq '.mtu = 1500' $prev >/tmp/prev-mtu.json
	cni CHECK /tmp/prev-mtu.json c-main /run/netns/$POD >/tmp/check.out 2>&1
	check "CHECK sees the pod interface's MTU changed" grep -q "net1's MTU is 1400, the network asks 1500" /tmp/check.out
	ip -n $POD link set net1 mtu 1500
	vm_barrier pinged 120
	cni DEL $prev c-main /run/netns/$POD >/tmp/del.out 2>&1
	check_eq "DEL exits 0" "$?:$(cat /tmp/del.out)" "0:"
	after=$(pf_state)
	check_eq "ip link show PF: before ADD == after DEL" "$after" "$before"
	[ "$after" = "$before" ] || diff <(echo "$before") <(echo "$after") | sed 's/^/# /'
	check_eq "the VF netdev is back in the host under its name" "$(vf_netdev "$VF0")" "$vfdev"
	check_eq "  and the pod has no net1" "$(ip -n $POD -o link show net1 2>/dev/null | wc -l)" 0
	check_eq "no hold left" "$(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l)" 0
	check_eq "address released" \
		"$("$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json -j ip show --container-id c-main --ifname net1 | jq '.allocations | length')" 0
	ip netns del $POD
}

# A DRA claim's VF (selftests/dra/test_dra_cni.sh drives the real driver;
# here its state file and the claim's hold are written as it writes them):
# the CNI with "dra" hands the pod the claim's VF; DEL gives it back to the
# claim (held, in no pod), not to the node. The real driver cannot prepare
# it here: it publishes VFs only under a PF that is an RDMA device
# (user/lib/dra/devices.c, from the RDMA model), and igb has none, so it
# has no device for the VF a claim could name (test_dra_rxe.sh runs the
# real driver on rxe0's port instead).
dra_round() {
	local u=c1c1c1c1-1111-4111-8111-111111111111 pod=a1a1a1a1-0000-4000-8000-000000000001
	local h=$CNI_STATE/sriov/$VF0.json vfdev out=/tmp/dra-add.json
	vfdev=$(vf_netdev "$VF0")
	mkdir -p /tmp/dra
	jq '. + {dra: {enabled: false, state_dir: "/tmp/dra"}}' /tmp/node.json >/tmp/node-dra.json
	jq -n --arg u "$u" --arg p "$pod" --arg v "$VF0" --arg n "$vfdev" \
		'{claims: {($u): {namespace: "vm", name: "claim1", vfs: [$v], pods: [$p],
		  devices: [{request: "nic", pool: "node-a", device: "vf", cdi_id: "x", kind: "vf",
			     pci: $v, netdev: $n}]}}}' >/tmp/dra/prepared.json
	jq -n --arg u "$u" --arg v "$VF0" --arg pf "$PF" --arg n "$vfdev" \
		'{pci: $v, pf: $pf, vf: 0, network: "dra:rdma.rdmanet.io", container_id: "", ifname: "",
		  netns: "", pod_namespace: "vm", pod_name: "claim1", since: 1, complete: false,
		  rdma_moved: false, claim_uid: $u,
		  claim: {namespace: "vm", name: "claim1", network: "dra:rdma.rdmanet.io"},
		  original: {netdev: $n, mtu: 0, mac: "00:00:00:00:00:00", rdma_dev: "", admin: null}}' >"$h"
	cp "$h" /tmp/dra-hold.prepared
	cat >/tmp/dra-net.json <<JSON
{ "cniVersion": "1.1.0", "name": "dra-rail", "type": "rdmanet", "dra": { "request": "nic" },
  "ippools": { "ipv4": ["sr-v4"] }, "configFile": "/tmp/node-dra.json", "stateDir": "$CNI_STATE" }
JSON
	ip netns add srdra
	env -i RDMANET_CONFIG=/tmp/node-dra.json CNI_COMMAND=ADD CNI_CONTAINERID=c-dra CNI_IFNAME=net1 \
		CNI_NETNS=/run/netns/srdra CNI_PATH=/opt/cni/bin \
		"CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=p1;K8S_POD_UID=$pod" \
		"$RN_BUILD/bin/rdmanet" </tmp/dra-net.json >$out 2>/tmp/dra-add.err
	check_eq "DRA: ADD with the claim's VF exits 0" $? 0
	sed 's/^/# /' /tmp/dra-add.err $out
	check_eq "DRA: the claim's VF is net1 in the pod, gone from the host" \
		"$(ip -n srdra -o link show net1 2>/dev/null | wc -l) $(vf_netdev "$VF0")" "1 "
	check_eq "  its hold still the claim's, now the pod's too" \
		"$(jq -c '[.claim_uid, .container_id, .netns, .claim.name, .claim.network]' "$h")" \
		"[\"$u\",\"c-dra\",\"/run/netns/srdra\",\"claim1\",\"dra:rdma.rdmanet.io\"]"
	# the network data the agent writes into the claim's status: the VF's
	# name, MAC and addresses in the pod, as the kernel holds them
	check_eq "  its network data recorded for the claim's status: the pod's net1, its MAC and IPv4" \
		"$(jq -c '[.claim.uid, .pool, .device, .ifname, .mac, .ips]' /tmp/dra/networks/dra-rail:c-dra:net1.json 2>&1)" \
		"$(ip -n srdra -j addr show net1 | jq -c --arg u "$u" '.[0] | [$u, "node-a", "vf", .ifname, .address,
			[.addr_info[] | select(.family == "inet") | "\(.local)/\(.prefixlen)"]]')"
	env -i RDMANET_CONFIG=/tmp/node-dra.json CNI_COMMAND=DEL CNI_CONTAINERID=c-dra CNI_IFNAME=net1 \
		CNI_NETNS=/run/netns/srdra CNI_PATH=/opt/cni/bin \
		"CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=p1;K8S_POD_UID=$pod" \
		"$RN_BUILD/bin/rdmanet" </tmp/dra-net.json >/tmp/dra-del.out 2>&1
	check_eq "DRA: DEL exits 0" "$?:$(cat /tmp/dra-del.out)" "0:"
	check_eq "  the VF back in the host under its name" "$(vf_netdev "$VF0")" "$vfdev"
	check_eq "  held for the claim again, in no pod (unprepare frees it)" \
		"$(jq -c '[.claim_uid, .container_id, .netns]' "$h")" "[\"$u\",\"\",\"\"]"
	check_eq "  exactly the hold the driver wrote (the claim's names and network, not the pod's)" \
		"$(jq -cS 'del(.since)' "$h")" "$(jq -cS 'del(.since)' /tmp/dra-hold.prepared)"
	check "  its network data record gone" test ! -e /tmp/dra/networks/dra-rail:c-dra:net1.json
	rm -f "$h"
	ip netns del srdra
}

# Nothing changed by a failed ADD: the PF's VF list, VF 1's netdev, no hold,
# no allocation, no record.
unchanged() {	# unchanged WHAT BEFORE CID
	check_eq "  $1: ip link show PF unchanged" "$(pf_state)" "$2"
	check_eq "  $1: VF 1 still in the host, no hold, no record, no address" \
		"$(vf_netdev "$VF1") $(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l) $(ls $CNI_STATE/sriov-rail/ 2>/dev/null | grep -c "$3") $("$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json -j ip show --container-id "$3" --ifname net1 | jq '.allocations | length')" \
		"$VF1DEV 0 0 0"
}

error_cases() {
	local before
	before=$(pf_state)
	VF1DEV=$(vf_netdev "$VF1")
	ip netns add srbad
	netconf /tmp/bad.json 0000:00:1f.7
	cni ADD /tmp/bad.json c-bad /run/netns/srbad >/tmp/bad.out 2>/dev/null
	check_eq "deviceID that is no VF: code 7" "$(jq .code /tmp/bad.out)" 7
	check "  one clear message" grep -q "deviceID 0000:00:1f.7: not a VF of an SR-IOV PF on this node" /tmp/bad.out
	unchanged "bad deviceID" "$before" c-bad
	netconf /tmp/bad.json "$PCI_PF"
	cni ADD /tmp/bad.json c-bad /run/netns/srbad >/tmp/bad.out 2>/dev/null
	check_eq "the PF itself as deviceID: code 7" "$(jq .code /tmp/bad.out)" 7
	netconf /tmp/bad.json "not-a-pci"
	cni ADD /tmp/bad.json c-bad /run/netns/srbad >/tmp/bad.out 2>/dev/null
	check "malformed deviceID: one clear message" grep -q '"deviceID: \\"not-a-pci\\" is not a PCI address' /tmp/bad.out
	# a VF of a PF the node config does not manage
	jq '.sriov = []' /tmp/node.json >/tmp/unmanaged.json
	netconf /tmp/bad.json "$VF1"
	sed -i 's|/tmp/node.json|/tmp/unmanaged.json|' /tmp/bad.json
	cni ADD /tmp/bad.json c-bad /run/netns/srbad >/tmp/bad.out 2>/dev/null
	check "a VF of an unmanaged PF: one clear error" \
		grep -q "VF 1 of PF $PF, which no \\\\\"sriov\\\\\" entry of the node config manages" /tmp/bad.out
	unchanged "unmanaged PF" "$before" c-bad
	# an RDMA VF (rxe on VF 1) while the RDMA subsystem is in shared mode
	rdma link add rxevf type rxe netdev "$VF1DEV"
	node_config /tmp/rdma.json true
	netconf /tmp/bad.json "$VF1"
	sed -i 's|/tmp/node.json|/tmp/rdma.json|' /tmp/bad.json
	cni ADD /tmp/bad.json c-bad /run/netns/srbad >/tmp/bad.out 2>/dev/null
	check "RDMA VF in shared netns mode: one clear error" \
		grep -q "the RDMA subsystem is in shared netns mode" /tmp/bad.out
	unchanged "shared netns mode" "$before" c-bad
	rdma link del rxevf
	ip netns del srbad
}

# VLAN, QoS, spoofchk and trust through the PF, then DEL: every setting back.
settings_round_trip() {
	local before out=/tmp/vlan.json
	before=$(pf_state)
	ip netns add srvlan
	netconf /tmp/vlan-net.json "$VF1" '"vlan": 100, "vlanQoS": 3, "spoofchk": "off", "trust": "on", "mac": "02:00:00:00:0c:0c"'
	cni ADD /tmp/vlan-net.json c-vlan /run/netns/srvlan >$out 2>/tmp/vlan.err
	check_eq "ADD with vlan 100 qos 3, spoofchk off, trust on" $? 0
	check_eq "  the PF reports them for VF 1" \
		"$(ip -j link show "$PF" | jq -r '.[0].vfinfo_list[1] | "\(.address) \(.vlan_list[0].vlan // .vlan) \(.vlan_list[0].qos // .qos) \(.spoofchk) \(.trust)"')" \
		"02:00:00:00:0c:0c 100 3 false true"
	jq --slurpfile r $out '. + {prevResult: $r[0]}' /tmp/vlan-net.json >/tmp/vlan-prev.json
	cni CHECK /tmp/vlan-prev.json c-vlan /run/netns/srvlan >/tmp/vlan-check.out 2>/dev/null
	check_eq "  CHECK exits 0" "$?:$(cat /tmp/vlan-check.out)" "0:"
	cni DEL /tmp/vlan-prev.json c-vlan /run/netns/srvlan >/dev/null 2>&1
	check_eq "  DEL: ip link show PF exactly as before" "$(pf_state)" "$before"
	ip netns del srvlan
}

parallel_adds() {
	local before rc1 rc2
	before=$(pf_state)
	ip netns add srp1
	ip netns add srp2
	netconf /tmp/par.json "$VF1"
	cni ADD /tmp/par.json c-p1 /run/netns/srp1 >/tmp/p1.out 2>/dev/null &
	cni ADD /tmp/par.json c-p2 /run/netns/srp2 >/tmp/p2.out 2>/dev/null &
	wait %1; rc1=$?
	wait %2; rc2=$?
	check_eq "two parallel ADDs on one VF: exactly one wins" "$((rc1 == 0 ? 1 : 0))$((rc2 == 0 ? 1 : 0))" \
		"$([ $rc1 = 0 ] && echo 10 || echo 01)"
	check "  the other is told the VF is held" grep -qh "VF held by pod" /tmp/p1.out /tmp/p2.out
	check_eq "  one pod has the VF" \
		"$(( $(ip -n srp1 -o link show net1 2>/dev/null | wc -l) + $(ip -n srp2 -o link show net1 2>/dev/null | wc -l) ))" 1
	cni DEL /tmp/par.json c-p1 /run/netns/srp1 >/dev/null 2>&1
	cni DEL /tmp/par.json c-p2 /run/netns/srp2 >/dev/null 2>&1
	check_eq "  DEL of both gives it back" "$(pf_state)" "$before"
	ip netns del srp1
	ip netns del srp2
}

netns_gone() {
	local before name rc
	before=$(pf_state)
	ip netns add srgone
	netconf /tmp/gone.json "$VF1" '"mac": "02:00:00:00:0a:0a", "spoofchk": "off"'
	cni ADD /tmp/gone.json c-gone /run/netns/srgone >/tmp/gone-add.out 2>&1
	rc=$?
	check_eq "ADD for a pod whose netns will die" $rc 0
	[ $rc = 0 ] || sed 's/^/# /' /tmp/gone-add.out
	ip netns del srgone
	vm_wait_until 20 vf_has_netdev "$VF1"
	name=$(vf_netdev "$VF1")
	check "the kernel returned the VF netdev to the host (as $name)" test -n "$name"
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/sweep.log
	sed 's/^/# agent: /' /tmp/sweep.log | grep sweep
	check "rdmanetd's leak sweep restored it and said so" \
		grep -q "sriov sweep: VF $VF1 ($PF vf 1) of vm/c-gone restored as $VF1DEV: its netns /run/netns/srgone is gone" /tmp/sweep.log
	check_eq "  ip link show PF as before" "$(pf_state)" "$before"
	check_eq "  the VF netdev under its own name again, no hold" \
		"$(vf_netdev "$VF1") $(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l)" "$VF1DEV 0"
	check "  counted in the textfile" grep -qx "rdmanet_sriov_vfs_swept_total 1" /tmp/prom/rdmanet.prom
	# the freed VF goes to another pod before the runtime's late DEL
	ip netns add srnew
	netconf /tmp/new.json "$VF1" '"mac": "02:00:00:00:0d:0d"'
	cni ADD /tmp/new.json c-new /run/netns/srnew >/dev/null 2>&1
	check_eq "the swept VF is free: another pod takes it" $? 0
	cni DEL /tmp/gone.json c-gone /run/netns/srgone >/tmp/gone.out 2>&1
	check_eq "DEL without the netns exits 0" "$?:$(cat /tmp/gone.out)" "0:"
	check_eq "  and leaves the new pod's VF alone" \
		"$(ip -n srnew -j link show net1 | jq -r '.[0].address') $(ip -j link show "$PF" | jq -r '.[0].vfinfo_list[1].address')" \
		"02:00:00:00:0d:0d 02:00:00:00:0d:0d"
	cni DEL /tmp/new.json c-new /run/netns/srnew >/dev/null 2>&1
	check_eq "  whose DEL gives it back as before" "$(pf_state)" "$before"
	ip netns del srnew
	check_eq "  and releases the address" \
		"$("$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json -j ip show --container-id c-gone --ifname net1 | jq '.allocations | length')" 0
}

# the pod netns leaves its path while a process still
# holds it (its teardown is slow); DEL runs then. The VF is still in that
# netns: DEL must not drop the hold (sriov-cni's leak, #126/#349); the
# agent restores the VF once the kernel has returned it, and only then.
slow_teardown() {
	local before holder
	before=$(pf_state)
	ip netns add srslow
	netconf /tmp/slow.json "$VF1" '"mac": "02:00:00:00:0b:0b", "spoofchk": "off"'
	cni ADD /tmp/slow.json c-slow /run/netns/srslow >/tmp/slow-add.out 2>&1
	check_eq "ADD for a pod whose netns will be slow to die" $? 0
	ip netns exec srslow sleep 100000 &
	holder=$!
	# (the holder is in the netns before its path goes)
	vm_wait_until 20 sh -c "[ \"\$(readlink /proc/$holder/ns/net)\" = \"\$(stat -L -c 'net:[%i]' /run/netns/srslow)\" ]"
	ip netns del srslow
	cni DEL /tmp/slow.json c-slow /run/netns/srslow >/tmp/slow-del.out 2>/tmp/slow-del.err
	check_eq "DEL while the netns is gone from its path but alive: exits 0" "$?:$(cat /tmp/slow-del.out)" "0:"
	sed 's/^/# /' /tmp/slow-del.err
	check_eq "  the VF is still away, its hold kept and marked released" \
		"$(vf_netdev "$VF1")|$(jq -r .released "$CNI_STATE/sriov/$VF1.json" 2>/dev/null)" "|true"
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/slow-sweep.log
	sed 's/^/# agent: /' /tmp/slow-sweep.log | grep sweep
	check "  the sweep keeps it and says why" \
		grep -q "sriov sweep: hold kept: VF $VF1 of vm/c-slow: .*(DEL has run: the pod's netns is still being torn down)" /tmp/slow-sweep.log
	check "  ... and the hold is still there" test -e "$CNI_STATE/sriov/$VF1.json"
	kill "$holder"
	wait "$holder" 2>/dev/null
	vm_wait_until 20 vf_has_netdev "$VF1"
	check "the netns dies: the kernel returns the VF netdev (as $(vf_netdev "$VF1"))" test -n "$(vf_netdev "$VF1")"
	"$RN_BUILD/bin/rdmanetd" --once --config /tmp/node.json 2>/tmp/slow-sweep.log
	sed 's/^/# agent: /' /tmp/slow-sweep.log | grep sweep
	check "  the sweep restores it now" grep -q "sriov sweep: VF $VF1 ($PF vf 1) of vm/c-slow restored as $VF1DEV" /tmp/slow-sweep.log
	check_eq "  ip link show PF as before, the VF netdev under its name, no hold" \
		"$(pf_state)|$(vf_netdev "$VF1")|$(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l)" "$before|$VF1DEV|0"
}

killed_mid_add() {	# killed_mid_add POINT DEL|GC
	local before pid
	before=$(pf_state)
	ip netns add srkill
	netconf /tmp/kill.json "$VF1" '"mac": "02:00:00:00:0b:0b"'
	env -i RDMANET_CNI_FAULT="stop@$1" CNI_COMMAND=ADD CNI_CONTAINERID=c-kill CNI_IFNAME=net1 \
		CNI_NETNS=/run/netns/srkill CNI_PATH=/opt/cni/bin "$RN_BUILD/bin/rdmanet" \
		</tmp/kill.json >/dev/null 2>&1 &
	pid=$!
	vm_wait_until 30 grep -q '^State:.*stopped' /proc/$pid/status
	kill -9 $pid
	wait $pid 2>/dev/null
	if [ "$2" = DEL ]; then
		cni DEL /tmp/kill.json c-kill /run/netns/srkill >/tmp/kill.out 2>&1
	else
		jq '. + {"cni.dev/valid-attachments": []}' /tmp/kill.json >/tmp/gc.json
		cni GC /tmp/gc.json "" "" >/tmp/kill.out 2>&1
	fi
	check_eq "SIGKILL at $1, then $2: exits 0" "$?:$(cat /tmp/kill.out)" "0:"
	check_eq "  ip link show PF as before" "$(pf_state)" "$before"
	check_eq "  VF netdev back under its name; no hold, no record; nothing in the pod" \
		"$(vf_netdev "$VF1") $(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l) $(ls $CNI_STATE/sriov-rail/ 2>/dev/null | wc -l) $(ip -n srkill -o link | grep -vc ' lo:')" \
		"$VF1DEV 0 0 0"
	ip netns del srkill
}

# The RDMA device move, as far as rxe lets it go (EOPNOTSUPP), compared
# with iproute2's request.
rdma_move() {
	local before
	before=$(pf_state)
	vm_wait_until 20 no_netns
	rdma system set netns exclusive 2>&1 | sed 's/^/# rdma: /'
	check_eq "RDMA netns mode exclusive" "$(rdma system show | grep -o 'netns [a-z]*')" \
		"netns exclusive"
	rdma link add rxevf type rxe netdev "$VF1DEV"
	ip netns add srrdma
	node_config /tmp/rdma.json true
	netconf /tmp/rdma-net.json "$VF1"
	sed -i 's|/tmp/node.json|/tmp/rdma.json|' /tmp/rdma-net.json
	# the requests as sent, from strace (nlmon does not tap NETLINK_RDMA)
	CNI_WRAP="strace -f -e trace=sendto,sendmsg -e signal=none -e write=all -o /tmp/ours.strace" \
		cni ADD /tmp/rdma-net.json c-rdma /run/netns/srrdma >/tmp/rdma.out 2>/dev/null
	check "ADD of an RDMA VF whose driver cannot move (rxe): one clear error" \
		grep -q "rxevf: its driver cannot move between network namespaces (EOPNOTSUPP" /tmp/rdma.out
	sed 's/^/# /' /tmp/rdma.out
	check_eq "  rolled back: ip link show PF as before" "$(pf_state)" "$before"
	check_eq "  VF netdev and rxevf in the host, no hold, no record, pod empty" \
		"$(vf_netdev "$VF1") $(rdma dev show rxevf -j | jq -r '.[0].ifname') $(ls $CNI_STATE/sriov/*.json 2>/dev/null | wc -l) $(ls $CNI_STATE/sriov-rail/ 2>/dev/null | wc -l) $(ip -n srrdma -o link | grep -vc ' lo:')" \
		"$VF1DEV rxevf 0 0 0"
	strace -f -e trace=sendto,sendmsg -e signal=none -e write=all -o /tmp/theirs.strace \
		rdma dev set rxevf netns srrdma 2>/tmp/iproute.err
	check "iproute2's rdma dev set rxevf netns gets the same EOPNOTSUPP" \
		grep -qi "not supported" /tmp/iproute.err
	cp /tmp/ours.strace /tmp/theirs.strace "$VM_OUT/" 2>/dev/null
	python3 "$RN_SRC/selftests/vm/nl_rdma_set.py" /tmp/ours.strace /tmp/theirs.strace \
		>/tmp/nlcmp.txt 2>&1
	check_eq "the RDMA_NLDEV_CMD_SET requests of rdmanet and iproute2: same flags and attributes" $? 0
	sed 's/^/# /' /tmp/nlcmp.txt
	rdma link del rxevf
	ip netns del srrdma
	rdma system set netns shared
}

# ADD+DEL of the same VF: rdmanet (mode sriov, no checks) against the
# reference host-device plugin moving the VF netdev (no IPAM), same run.
bench() {
	local n=${SRIOV_BENCH_N:-3} i t0 t1 ours=0 ref=0
	ip netns add srbench
	netconf /tmp/bench.json "$VF1" '"ipConflictCheck": false, "gatewayCheck": false'
	cat >/tmp/hd.json <<JSON
{ "cniVersion": "1.0.0", "name": "hd", "type": "host-device", "pciBusID": "$VF1" }
JSON
	# the plugin exec'd as host-device is below: no jq in the timed part
	# (cni() asks jq for the node config's path at every call, about as
	# long under TCG as the ADD itself)
	ours_run() {
		env -i RDMANET_CONFIG=/tmp/node.json CNI_COMMAND="$1" CNI_CONTAINERID=c-bench \
			CNI_IFNAME=net1 CNI_NETNS=/run/netns/srbench CNI_PATH=/opt/cni/bin \
			"CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=vm;K8S_POD_NAME=c-bench" \
			"$RN_BUILD/bin/rdmanet" </tmp/bench.json >/dev/null 2>&1
	}
	for ((i = 0; i < n; i++)); do
		t0=$(date +%s%N)
		ours_run ADD && ours_run DEL || ours=-1
		t1=$(date +%s%N)
		[ $ours -ge 0 ] && ours=$((ours + (t1 - t0) / 1000))
		t0=$(date +%s%N)
		env -i CNI_COMMAND=ADD CNI_CONTAINERID=c-hd CNI_IFNAME=net1 CNI_NETNS=/run/netns/srbench \
			CNI_PATH=/usr/lib/cni /usr/lib/cni/host-device </tmp/hd.json >/dev/null 2>&1 &&
		env -i CNI_COMMAND=DEL CNI_CONTAINERID=c-hd CNI_IFNAME=net1 CNI_NETNS=/run/netns/srbench \
			CNI_PATH=/usr/lib/cni /usr/lib/cni/host-device </tmp/hd.json >/dev/null 2>&1 || ref=-1
		t1=$(date +%s%N)
		[ $ref -ge 0 ] && ref=$((ref + (t1 - t0) / 1000))
	done
	check "bench: $n rounds of ADD+DEL on VF 1 by both plugins" test $ours -gt 0 -a $ref -gt 0
	printf 'rounds %d rdmanet_add_del_us %d host_device_add_del_us %d\n' "$n" $((ours / n)) \
		$((ref / n)) | tee "$VM_OUT/bench_sriov.txt" | sed 's/^/# /'
	check_eq "  the VF is back in the host after both" "$(vf_netdev "$VF1")" "$VF1DEV"
	ip netns del srbench
}

guest_main() {
	NODE_N=$([ "$VM_NODE" = node-a ] && echo 1 || echo 2)
	POOL_LO=$([ "$VM_NODE" = node-a ] && echo 10 || echo 20)
	setup_vfs
	main_round
	if [ "$VM_NODE" = node-a ]; then
		dra_round
		error_cases
		settings_round_trip
		parallel_adds
		netns_gone
		slow_teardown
		killed_mid_add vf-moved DEL
		killed_mid_add vf-held GC
		rdma_move
		bench
	fi
	vm_barrier done 600
}

# bench=N (VM_SCRIPT_ARGS, from selftests/bench/bench_sriov.sh): N rounds
case "${1:-}" in bench=*) SRIOV_BENCH_N=${1#bench=} ;; esac
. "$(dirname "$0")/lib/main.sh"
if [ -z "${VM_NODE:-}" ]; then
	. "$RN_SRC/selftests/lib/tap.sh"
	. "$(dirname "$0")/lib/vm.sh"
	vm_qemu10_prepare >/dev/null || tap_skip_all "qemu 10 (bookworm-backports) not available"
	VM_MODULES="${VM_MODULES:-} igb igbvf"
fi
vm_main pair guest_main 900
tap_done
