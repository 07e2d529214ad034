#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The DRA driver on real Soft-RoCE (rxe0 on eth0, one VM): rdmanetd with
# its "dra" section, the kubelet stand-in (selftests/dra/kubelet_dra.py),
# the API-server stand-in (selftests/kubeapi) and the scheduler stand-in
# (selftests/dra/lib.sh dra_claim_api), all inside the guest; no real
# kubelet, API server or scheduler runs.
#   - the slice the driver publishes has rxe0's port with what the kernel
#     says of it (rdma, sysfs): netdev, port state, link layer, the RoCE v2
#     GID index; no pcieRoot/NUMA (rxe0 has no PCI device);
#   - wiped at the API server (a starting kubelet does it), published again
#     when kubelet registers the driver;
#   - a shared claim on the port, prepared: the CDI spec has rxe0's
#     /dev/infiniband nodes (major:minor as the kernel has them) and the
#     env names rxe0, eth0 and the GID index;
#   - two pods attached by the CNI from that claim (macvlans on eth0), each
#     addressed from the pool, the claim's status.devices[].networkData
#     written at the API server; DEL both, unprepare: nothing left;
#   - eth0 down: the slice republished with the port DOWN (as rdma link
#     says), up: ACTIVE again.
# The host part is at the bottom; inside the VM (VM_NODE set) this file is
# the node's script.

guest_main() {
	RN_TMP=/tmp/dra
	mkdir -p $RN_TMP
	rn_in_node() { "$@"; }	# the guest's own netns is the node's
	. "$RN_SRC/selftests/dra/lib.sh"
	local D=$RN_BUILD/bin/rdmanetd CONFIG=$RN_TMP/agent.json agent out
	local CLAIMS=/apis/resource.k8s.io/v1/namespaces/default/resourceclaims
	local RS=/apis/resource.k8s.io/v1/resourceslices DEV=rxe0-port1

	# (python3 with grpc: each kubelet stand-in call imports it, 6-15 s
	# under TCG: three calls here)
	# dra_api_start of selftests/dra/lib.sh, in the guest's own netns (that
	# one enters a fixture's node netns)
	dra_api_start_here() {
		. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
		ip link set lo up
		mkdir -p "$1" || return 1
		# standin.sh's certificates use process substitution: /dev/fd,
		# which the guest's devtmpfs does not have
		[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
		# its python start (ssl, http.server) takes longer than
		# standin_start's 10 s under TCG: wait for its port file on
		standin_start "$1" || { vm_wait_until 60 test -s "$1/port" &&
			STANDIN_PORT=$(cat "$1/port"); } || return 1
		DRA_KUBECONFIG=$1/kubeconfig
		standin_kubeconfig "$1" "$DRA_KUBECONFIG"
	}
	# its directory in VM_OUT: requests.log and standin.err kept
	if dra_api_start_here "$VM_OUT/api"; then
		tap_ok "the API-server stand-in starts"
	else
		tap_fail "the API-server stand-in starts"
		tap_done
		exit
	fi
	mkdir -p "$DRA_KUBELET/plugins_registry"
	cat >$CONFIG <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "bpf": { "pin_dir": "/sys/fs/bpf/rnvmdra" },
  "cni": { "state_dir": "$DRA_HOLDS" },
  "ipam": { "store": "sqlite", "path": "$RN_TMP/ipam.db" },
  "pools": [ { "name": "dra-v4", "subnet": "10.79.0.0/24", "ips": ["10.79.0.10-10.79.0.19"],
               "masters": ["eth0"] } ],
  "dra": { "kubelet_dir": "$DRA_KUBELET", "kubeconfig": "$DRA_KUBECONFIG",
           "state_dir": "$DRA_STATE", "cdi_dir": "$DRA_CDI", "pool": "$DRA_POOL",
           "slices": { "publish": true, "resync_s": 600 } } }
JSON
	$D --config $CONFIG -v 2>"$VM_OUT/agent.log" &
	agent=$!

	slices() { dra_kube GET "$RS" 2>/dev/null | sed -n 2p; }
	slice_has() { [ "$(slices | jq -r "$1" 2>/dev/null)" = true ]; }
	check "the slice is published (the stand-in validated it)" \
		vm_wait_until 60 slice_has '.items | length == 1'
	local dev
	dev=$(slices | jq -c --arg d $DEV '.items[0].spec.devices[] | select(.name == $d)')
	echo "$dev" >"$VM_OUT/slice-device.json"
	# rxe0 as the kernel has it: rdma -j for the port, sysfs for the GIDs.
	# The GID index a RoCE v2 workload uses: the RoCE v2 GID of an IPv4
	# address (::ffff:a.b.c.d), else the first RoCE v2 GID. The table, in
	# index order (builtins: rxe's table has hundreds of empty entries):
	local port_state want_gid g i t P=/sys/class/infiniband/rxe0/ports/1
	port_state=$(rdma -j link show rxe0/1 | jq -r '.[0].state')
	for ((i = 0; ; i++)); do
		[ -e $P/gids/$i ] || break
		read -r g <$P/gids/$i 2>/dev/null || continue
		[ "$g" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
		t=
		read -r t <$P/gid_attrs/types/$i 2>/dev/null
		echo "$i $t $g"
	done >"$VM_OUT/gids"
	want_gid=$(awk '/RoCE v2/ { if (any == "") any = $1; if ($NF ~ /^0000:0000:0000:0000:0000:ffff:/) { v4 = $1; exit } }
		END { print (v4 != "" ? v4 : (any != "" ? any : -1)) }' "$VM_OUT/gids")
	check_eq "slice device $DEV: rxe0 port 1 on eth0, Ethernet, the port's state (rdma link), the RoCE v2 GID index (sysfs)" \
		"$(jq -c '.attributes | [.kind.string, .rdmaDevice.string, .port.int, .netdev.string,
			.master.string, .linkLayer.string, .portState.string, .gidIndex.int]' <<<"$dev")" \
		"[\"hca-port\",\"rxe0\",1,\"eth0\",\"eth0\",\"Ethernet\",\"$port_state\",$want_gid]"
	# rxe0 has no PCI device (/sys/class/infiniband/rxe0/device): nothing
	# to say of a PCIe root or a NUMA node
	check_eq "... no pcieRoot, NUMA node or PCI address, as rxe0 has no PCI device in sysfs" \
		"$(jq -c '.attributes | [has("resource.kubernetes.io/pcieRoot"), has("numaNode"),
			has("pciAddress")]' <<<"$dev") $(test -e /sys/class/infiniband/rxe0/device && echo pci)" \
		'[false,false,false] '
	check_eq "... shared: allowMultipleAllocations, a pods capacity" \
		"$(jq -c '[.allowMultipleAllocations, (.capacity.pods.value != null)]' <<<"$dev")" '[true,true]'

	# a starting kubelet wipes the node's slices, then registers the driver
	local node
	node=$(slices | jq -r '.items[0].spec.nodeName')
	dra_kube DELETE "$RS?fieldSelector=spec.nodeName%3D$node" >/dev/null
	check_eq "wiped at the API server" "$(slices | jq '.items | length')" 0
	dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER" >/dev/null
	check "... registered again: the slice is published again with $DEV" \
		vm_wait_until 60 slice_has "[.items[].spec.devices[].name] == [\"$DEV\"]"

	# --- a shared claim on the port, prepared ------------------------------------------
	local POD1=a1a1a1a1-0000-4000-8000-000000000001 POD2=a2a2a2a2-0000-4000-8000-000000000002
	local SHARE=5a5a5a5a-0000-4000-8000-00000000005a U1 spec
	U1=$(dra_claim_api default nic1 \
		"[$(dra_result nic $DEV | jq -c --arg s $SHARE '. + {shareID: $s}')]" "$POD1 $POD2")
	check "the scheduler stand-in allocated the claim" test -n "$U1"
	out=$(dra_prepare v1.DRAPlugin default/nic1/$U1)
	check_eq "NodePrepareResources: the claim prepared" \
		"$(jq -c "[.grpc_error, .claims[\"$U1\"].error]" <<<"$out")" '[null,""]'
	spec=$(dra_spec "$U1")
	# rxe0's nodes as the kernel lists them (uverbs, umad, issm), with
	# their major:minor; rdma_cm
	local want got c n
	want=$(for c in /sys/class/infiniband_verbs/uverbs* /sys/class/infiniband_mad/*; do
		[ "$(cat "$c/ibdev" 2>/dev/null)" = rxe0 ] && echo "/dev/infiniband/${c##*/}"
	done; echo /dev/infiniband/rdma_cm)
	want=$(echo "$want" | sort | xargs)
	got=$(jq -r '.devices[].containerEdits.deviceNodes[].path' "$spec" 2>/dev/null | sort | xargs)
	check_eq "CDI spec: rxe0's /dev/infiniband nodes (sysfs infiniband_verbs, _mad) and rdma_cm" "$got" "$want"
	# each node the spec names is the kernel's: its major:minor (stat) is
	# the one sysfs gives the device (rdma_cm: the misc device)
	local nodes_ok=yes f
	for n in $got; do
		f=/sys/class/infiniband_verbs/${n##*/}/dev
		[ -e "$f" ] || f=/sys/class/infiniband_mad/${n##*/}/dev
		[ -e "$f" ] || f=/sys/class/misc/${n##*/}/dev
		[ "$(stat -c '%t:%T' "$n" | { IFS=: read -r ma mi; echo $((16#$ma)):$((16#$mi)); })" = 		  "$(cat "$f")" ] || { nodes_ok="$n: $(stat -c '%t:%T' "$n") vs $f $(cat "$f")"; break; }
	done
	check_eq "... each a character device with the major:minor the kernel gives it (stat vs sysfs dev)" 		"$nodes_ok" yes
	check "... the uverbs node of rxe0 among them" grep -q "/dev/infiniband/uverbs" <<<"$got"
	check_eq "CDI spec env: rxe0, port 1, eth0, the GID index" \
		"$(jq -r '[.. | .env? // empty | .[]] | map(select(test("^RDMANET_NIC_(RDMA_DEVICE|PORT|NETDEV|GID_INDEX)=")))
			| sort | join(" ")' "$spec")" \
		"RDMANET_NIC_GID_INDEX=$want_gid RDMANET_NIC_NETDEV=eth0 RDMANET_NIC_PORT=1 RDMANET_NIC_RDMA_DEVICE=rxe0"

	# --- two pods attached from the claim by the CNI: macvlans on eth0 ------------------
	jq -n '{cniVersion: "1.1.0", name: "dranet", type: "rdmanet", dra: {request: "nic"},
		ippools: {ipv4: ["dra-v4"]}, gatewayCheck: false, ipConflictCheck: false}' >$RN_TMP/nic.json
	cni() {	# cni CMD POD POD_UID
		env -i CNI_COMMAND="$1" CNI_CONTAINERID="c-$2" CNI_IFNAME=net1 CNI_NETNS="/run/netns/$2" \
			CNI_PATH=/usr/lib/cni RDMANET_CONFIG=$CONFIG \
			CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$2;K8S_POD_UID=$3" \
			"$RN_BUILD/bin/rdmanet" <$RN_TMP/nic.json >"$VM_OUT/cni-$1-$2.json" 2>&1
	}
	# what the pod's netns says its net1 is, as networkData
	pod_data() {
		ip -n "$1" -j addr show net1 | jq -cS --arg s $SHARE --arg d $DEV '.[0] |
			[{driver: "rdma.rdmanet.io", pool: "node-a", device: $d, shareID: $s,
			  networkData: {interfaceName: .ifname, hardwareAddress: .address,
			  ips: [.addr_info[] | select(.scope == "global") | "\(.local)/\(.prefixlen)"]}}]'
	}
	ours() { dra_kube GET "$CLAIMS/nic1" 2>/dev/null | sed -n 2p |
		jq -cS '[.status.devices[]? | select(.driver == "rdma.rdmanet.io")]'; }
	ours_is() { [ "$(ours)" = "$1" ]; }
	local p eth0_idx
	eth0_idx=$(ip -j link show eth0 | jq .[0].ifindex)
	for p in p1:$POD1 p2:$POD2; do
		ip netns add ${p%%:*}
		cni ADD ${p%%:*} ${p#*:}
		check_eq "pod ${p%%:*}: ADD from the shared claim" $? 0
		check_eq "... a macvlan on eth0, addressed from the pool" \
			"$(ip -n ${p%%:*} -d -j addr show net1 | jq -r '.[0] | [.linkinfo.info_kind, .link_index,
				([.addr_info[] | select(.family == "inet") | .local][0] | split(".")[0:3] | join("."))]
				| map(tostring) | join(" ")')" "macvlan $eth0_idx 10.79.0"
	done
	local P1
	P1=$(pod_data p1)
	check "the claim's status.devices at the API server: the port's share with pod p1's interface, IPs and MAC" \
		vm_wait_until 30 ours_is "$P1"
	check_eq "... the two pods have distinct addresses" \
		"$(for p in p1 p2; do ip -n $p -j addr show net1 | jq -r '.[0].addr_info[] | select(.family == "inet") | .local'; done | sort -u | wc -l)" 2
	for p in p1:$POD1 p2:$POD2; do
		cni DEL ${p%%:*} ${p#*:}
		check_eq "pod ${p%%:*}: DEL" "$?:$(ip -n ${p%%:*} -o link show | grep -vc ': lo:')" "0:0"
		ip netns del ${p%%:*}
	done
	out=$(dra_unprepare v1.DRAPlugin default/nic1/$U1)
	check_eq "NodeUnprepareResources: done" "$(jq -c "[.grpc_error, .claims[\"$U1\"].error]" <<<"$out")" '[null,""]'
	check_eq "nothing left: CDI spec, state entry, CNI records, addresses" \
		"$(test -e "$spec" && echo spec) $(jq -c '.claims | length' "$DRA_STATE/prepared.json")" \
		" 0"
	check_eq "... no CNI record, no network-data record, no address allocated to either pod" \
		"$(find "$DRA_HOLDS" "$DRA_STATE/networks" -type f -name '*.json' 2>/dev/null | wc -l) $(for p in p1 p2; do
			"$RN_BUILD/bin/rdmanetctl" -c $CONFIG -j ip show --container-id c-$p --ifname net1 |
			jq '.allocations | length'; done | xargs)" \
		"0 0 0"

	# the port going down: eth0 down takes rxe0's port down (what the
	# devplugin test does too; nothing of the above needs the wire now)
	local gen down_state
	gen=$(slices | jq '.items[0].spec.pool.generation')
	ip link set eth0 down
	vm_wait_until 10 sh -c "rdma -j link show rxe0/1 | grep -qv '\"state\":\"ACTIVE\"'"
	down_state=$(rdma -j link show rxe0/1 | jq -r '.[0].state')
	check "eth0 down: the slice republished (a new generation) with the port's state, $down_state as rdma link says" \
		vm_wait_until 30 slice_has ".items[0] | .spec.pool.generation > $gen and
			(.spec.devices[] | select(.name == \"$DEV\") | .attributes.portState.string == \"$down_state\")"
	ip link set eth0 up
	check "eth0 up: republished, ACTIVE again" vm_wait_until 30 slice_has \
		".items[0].spec.devices[] | select(.name == \"$DEV\") | .attributes.portState.string == \"ACTIVE\""

	kill -TERM $agent
	wait $agent
	check_eq "agent stops cleanly" $? 0
	standin_stop
	$D --uninstall --config $CONFIG 2>/dev/null
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 240
tap_done
