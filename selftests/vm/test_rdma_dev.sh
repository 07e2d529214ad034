#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The RDMA device model against real Soft-RoCE (rdma_rxe on eth0, one VM):
#   - rdmanetctl dev/gid agree with ibv_devices, rdma dev/link/system/
#     statistic and the sysfs GID files (read the way show_gids does);
#   - the RDMA netns mode round-trips between `rdma system` and rdmanetctl,
#     and a change the kernel refuses (other namespaces exist) is explained;
#   - macvlan "pods" in network namespaces get their addresses into rxe0's
#     GID table at growing indexes, and `rdmanetctl env` inside each pod
#     prints the index sysfs has;
#   - with rdmanetd running and the pods registered, doctor passes, the
#     textfile carries each pod's GID index, the GID watch reports an
#     index that moved, and doctor/env diagnose a pod whose GID is gone.
# The host part is at the bottom; inside the VM (VM_NODE set) this file is
# the node's script.

gid_gone() { ! gid_v2_index /sys rxe0 1 "$1" >/dev/null; }

pod_up() {	# pod_up NAME IPv4
	ip netns add "$1" &&
	ip link add "$1-m" link eth0 type macvlan mode bridge &&
	ip link set "$1-m" netns "$1" &&
	ip -n "$1" link set "$1-m" name net1 &&
	ip -n "$1" addr add "$2/24" dev net1 &&
	ip -n "$1" link set net1 up
}

# `rdma -j system show` prints no valid JSON on some iproute2 versions
rdma_netns() { rdma system show | awk '$1 == "netns" { print $2 }'; }

pod_mac() { ip -n "$1" -j link show net1 | jq -r '.[0].address'; }

guest_main() {
	. "$VM_LIB/guest.sh"
	. "$RN_SRC/selftests/fixtures/sysfs/show_gids.sh"
	local R=$RN_BUILD/bin/rdmanetctl D=$RN_BUILD/bin/rdmanetd PIN=/sys/fs/bpf/rnvmdev j
	export RDMANET_CONFIG=/tmp/empty.json
	echo '{}' >"$RDMANET_CONFIG"

	# --- dev against rdma-core, iproute2's rdma and sysfs ---------------
	j=$($R dev -j)
	echo "$j" >"$VM_OUT/dev.json"
	check_eq "dev -j: sysfs, netlink and verbs all consulted" "$(jq -c .sources <<<"$j")" \
		'["sysfs","netlink","verbs"]'
	check_eq "dev: devices and node GUIDs as ibv_devices lists them" \
		"$(jq -r '.devices[] | "\(.name) \(.node_guid | gsub(":"; ""))"' <<<"$j")" \
		"$(ibv_devices | awk 'NR > 2 { print $1, $2 }')"
	check_eq "dev: index, name, node GUID as rdma dev shows them" \
		"$(jq -r '.devices[] | "\(.index) \(.name) \(.node_guid)"' <<<"$j")" \
		"$(rdma -j dev show | jq -r '.[] | "\(.ifindex) \(.ifname) \(.node_guid)"')"
	check_eq "dev: ports as rdma link shows them" \
		"$(jq -r '.devices[] | .name as $d | .ports[] | "\($d)/\(.port) \(.state) \(.netdev) \(.netdev_ifindex)"' <<<"$j")" \
		"$(rdma -j link show | jq -r '.[] | "\(.ifname)/\(.port) \(.state) \(.netdev) \(.netdev_index)"')"
	check_eq "dev: netns mode as rdma system shows it" "$(jq -r .netns_mode <<<"$j")" \
		"$(rdma_netns)"
	check_eq "dev: soft-RoCE on eth0, driver and provider rxe" \
		"$(jq -r '.devices[0] | "\(.function) \(.parent) \(.driver) \(.provider)"' <<<"$j")" "virtual eth0 rxe rxe"
	check_eq "dev: RoCE MTU and GID table size from verbs" \
		"$(jq -r '.devices[0].ports[0] | "\(.active_mtu) \(.gid_tbl_len)"' <<<"$j")" \
		"$(ibv_devinfo -d rxe0 -v | awk '/active_mtu/ { print $2 } /gid_tbl_len/ { print $2 }' | xargs)"
	check_eq "dev: /dev/infiniband/uverbs0 found and present" \
		"$(jq -r '.devices[0].chardevs[] | "\(.path) \(.present) \(.devt)"' <<<"$j")" \
		"/dev/infiniband/uverbs0 true $(cat /sys/class/infiniband_verbs/uverbs0/dev)"
	check_eq "dev -s: hardware counter names as rdma statistic has them" \
		"$($R dev -s -j | jq -r '.devices[0].ports[0].hw_counters | keys[]')" \
		"$(rdma -j statistic show link rxe0/1 | jq -r '.[0] | del(.ifname, .port) | keys[]')"

	# --- gid against the sysfs files ------------------------------------
	j=$($R gid -j)
	check_eq "gid -j: the table came from ibv_query_gid_table" "$(jq -r .source <<<"$j")" verbs
	check_eq "gid: every entry as in sysfs (index, GID, type, netdev)" \
		"$(jq -r '.gids[] | "\(.index) \(.gid) \(.type) \(.netdev)"' <<<"$j")" "$(show_gids /sys rxe0 1)"
	check_eq "gid: eth0's address maps to its RoCE v2 GID" \
		"$(jq -r '.gids[] | select(.address == "'"$VM_IP"'" and .type == "RoCE v2") | .index' <<<"$j")" \
		"$(gid_v2_index /sys rxe0 1 "$VM_IP")"

	# --- netns mode round trip (no other namespace exists yet) ----------
	rdma system set netns exclusive
	check_eq "rdma system set exclusive -> rdmanetctl sees it" "$($R dev netns)" "netns exclusive"
	check_eq "... and dev -j too (from netlink)" "$($R dev -j | jq -r .netns_mode)" exclusive
	check_eq "rdmanetctl dev netns shared" "$($R dev netns shared)" "netns shared"
	check_eq "... rdma system sees shared" "$(rdma_netns)" shared
	$R dev netns exclusive >/dev/null
	check_eq "rdmanetctl dev netns exclusive -> rdma system" \
		"$(rdma_netns)" exclusive
	$R dev netns shared >/dev/null
	check_eq "and back to shared" "$(rdma_netns)" shared
	ip netns add rnblock
	$R dev netns exclusive >/tmp/out 2>/tmp/err
	check_eq "a refused change exits 1" $? 1
	check_eq "... with one line that says why" "$(wc -l </tmp/err) $(grep -c 'other than the initial one exist' /tmp/err)" "1 1"
	check_eq "... and changes nothing" "$(rdma_netns)" shared
	check "rxe refuses an RDMA device netns move (EOPNOTSUPP; ConnectX only)" \
		sh -c "! rdma dev set rxe0 netns rnblock 2>&1 | grep -vq 'not supported'"
	ip netns del rnblock

	# --- the agent, then pods ---------------------------------------------
	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 1 }, "bpf": { "pin_dir": "$PIN" } }
JSON
	$D --config /tmp/agent.json -v 2>"$VM_OUT/agent.log" &
	local agent=$!
	check "rdmanetd exports its textfile" vm_wait_until 30 test -s /tmp/prom/rdmanet.prom

	local i1 i2 i1b
	pod_up pod1 192.168.77.11
	check "pod1's address is in rxe0's GID table" vm_wait_until 10 gid_v2_index /sys rxe0 1 192.168.77.11
	i1=$(gid_v2_index /sys rxe0 1 192.168.77.11)
	pod_up pod2 192.168.77.12
	check "pod2's address is in rxe0's GID table" vm_wait_until 10 gid_v2_index /sys rxe0 1 192.168.77.12
	i2=$(gid_v2_index /sys rxe0 1 192.168.77.12)
	check "the index grows per pod ($i1 < $i2)" test "$i1" -lt "$i2"
	check_eq "gid: pod2's entry has netdev net1" \
		"$($R gid -j | jq -r '.gids[] | select(.address == "192.168.77.12" and .type == "RoCE v2") | "\(.index) \(.netdev)"')" \
		"$i2 net1"
	j=$(ip netns exec pod1 "$R" env)
	echo "$j" >"$VM_OUT/env.pod1"
	check_eq "env in pod1: NCCL_IB_GID_INDEX is sysfs's index" \
		"$(grep NCCL_IB_GID_INDEX <<<"$j")" "export NCCL_IB_GID_INDEX='$i1'"
	check_eq "env in pod1: NCCL_IB_HCA" "$(grep NCCL_IB_HCA <<<"$j")" "export NCCL_IB_HCA='=rxe0:1'"
	check_eq "env in pod1: NCCL_SOCKET_IFNAME" "$(grep NCCL_SOCKET_IFNAME <<<"$j")" \
		"export NCCL_SOCKET_IFNAME='=net1'"
	check_eq "env in pod1: UCX_NET_DEVICES" "$(grep UCX_NET_DEVICES <<<"$j")" \
		"export UCX_NET_DEVICES='rxe0:1'"
	check_eq "env in pod2: its own index" \
		"$(ip netns exec pod2 "$R" env -j | jq -r '.interfaces[0] | "\(.ifname) \(.address) \(.gid_index)"')" \
		"net1 192.168.77.12 $i2"

	$R --pin-dir $PIN pod add --namespace team --pod p1 --container-id c1 --ifname net1 \
		--master eth0 --mac "$(pod_mac pod1)" --ip 192.168.77.11
	$R --pin-dir $PIN pod add --namespace team --pod p2 --container-id c2 --ifname net1 \
		--master eth0 --mac "$(pod_mac pod2)" --ip 192.168.77.12
	$R -c /tmp/agent.json doctor >"$VM_OUT/doctor.ok" 2>&1
	check_eq "doctor: no check fails on this node" $? 0
	check_eq "doctor: all but datapath pass" "$(grep -v -e '^pass' -e '^[a-z]* datapath ' "$VM_OUT/doctor.ok")" ""
	# datapath: pass with XDP attached; a warning (rx counted by tc
	# ingress) if XDP did not attach, as the masters map says
	check_eq "doctor: datapath as the masters map has it" \
		"$(awk '$2 == "datapath" { print $1 }' "$VM_OUT/doctor.ok")" \
		"$("$R" --pin-dir $PIN stats -j | jq -r '.masters[0] |
			if .tc == "none" then "fail" elif .xdp == "none" then "warn" else "pass" end')"
	check "textfile: pod1's GID index" vm_wait_until 10 \
		sh -c "grep -q 'rdmanet_pod_roce_gid_index{namespace=\"team\",pod=\"p1\",.*} $i1\$' /tmp/prom/rdmanet.prom"
	check "textfile: hardware counters of rxe0" grep -q \
		'^rdmanet_rdma_hw_stats_total{device="rxe0",port="1",counter="sent_pkts"}' /tmp/prom/rdmanet.prom

	# pod1's address leaves and comes back after pod3 took its slot: the
	# same address, a new index. The agent runs on: its ticks see the
	# address go, then come back; the watch remembers where it was, so
	# that is a move as much as one tick seeing both would be
	ip -n pod1 addr del 192.168.77.11/24 dev net1
	vm_wait_until 10 gid_gone 192.168.77.11
	pod_up pod3 192.168.77.13
	vm_wait_until 10 gid_v2_index /sys rxe0 1 192.168.77.13 >/dev/null
	ip -n pod1 addr add 192.168.77.11/24 dev net1
	vm_wait_until 10 gid_v2_index /sys rxe0 1 192.168.77.11 >/dev/null
	i1b=$(gid_v2_index /sys rxe0 1 192.168.77.11)
	check "pod1's address got a new index ($i1 -> $i1b)" test "$i1" != "$i1b"
	check "the GID watch warns that pod1's index moved" vm_wait_until 15 grep -q \
		"warning: rdma rxe0/1: RoCE v2 GID of 192.168.77.11 (net1, pod team/p1) moved from index $i1 to $i1b" \
		"$VM_OUT/agent.log"
	check "textfile: the move is counted" vm_wait_until 10 \
		sh -c "grep -q '^rdmanet_rdma_gid_index_moves_total{device=\"rxe0\",port=\"1\"} [1-9]' /tmp/prom/rdmanet.prom"
	check "textfile: pod1's new index" vm_wait_until 10 \
		sh -c "grep -q 'rdmanet_pod_roce_gid_index{namespace=\"team\",pod=\"p1\",.*} $i1b\$' /tmp/prom/rdmanet.prom"
	check_eq "env in pod1 follows" "$(ip netns exec pod1 "$R" env -j | jq -r '.interfaces[0].gid_index')" "$i1b"

	# pod2 loses its address: its GID goes, doctor and env say so
	ip -n pod2 addr del 192.168.77.12/24 dev net1
	vm_wait_until 10 gid_gone 192.168.77.12
	$R -c /tmp/agent.json doctor >"$VM_OUT/doctor.bad" 2>/tmp/err
	check_eq "doctor exits 1 when a pod address has no GID" $? 1
	check "doctor: pod-gids names pod2's address" \
		grep -q '^fail pod-gids .*team/p2 net1 192.168.77.12 has no RoCE v2 GID on rxe0/1' "$VM_OUT/doctor.bad"
	check_eq "doctor: only that check fails" "$(grep -c '^fail' "$VM_OUT/doctor.bad")" 1
	check "textfile: pod2's GID is reported missing" vm_wait_until 10 \
		sh -c "grep -q 'rdmanet_pod_roce_gid_present{namespace=\"team\",pod=\"p2\",.*} 0\$' /tmp/prom/rdmanet.prom"
	ip netns exec pod2 "$R" env >/dev/null 2>/tmp/err
	cp /tmp/err "$VM_OUT/env.pod2.err"
	check_eq "env in pod2 fails with one line that says why" \
		"$(wc -l </tmp/err) $(grep -c 'has a RoCE v2 GID: net1: no IP address' /tmp/err)" "1 1"
	check "textfile passes promtool" sh -c "promtool check metrics < /tmp/prom/rdmanet.prom"

	kill -TERM $agent
	wait $agent
	$D --uninstall --config /tmp/agent.json 2>/dev/null
	tap_done
}

if [ -n "${VM_NODE:-}" ]; then
	guest_main
fi

. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/vm/lib/vm.sh"
vm_require "${VM_SERIES:-6.12}"
vm_run_one "$0" 150
tap_done
