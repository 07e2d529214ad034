#!/bin/bash
# VF resources against the fake kubelet (a real gRPC peer): the "sriov"
# section's resourceName served with no device_plugin configList, on the
# ConnectX-5 fixture cx5_sriov (12 VFs, two zero GUIDs, VF 5 in a pod,
# VF 9's RDMA device elsewhere) switched to exclusive netns mode. kubelet
# must see the resource registered, one device per VF PCI address with the
# right health, an Allocate answer with the VFs' RDMA nodes and
# PCIDEVICE_RDMA_MELLANOXROCE, a refusal for a VF that cannot serve; a VF
# in use stays Healthy (kubelet counts it in the pod's requests), one whose
# pod was deleted but which is not back yet is Unhealthy until freed
# (inotify on the holds: the periodic update is off).
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
echo N >"$RN_TMP/host/sys/module/ib_core/parameters/netns_mode"
# the agent and rdmanetctl find the CNI's holds here
export RDMANET_CNI_STATE_DIR=$RN_TMP/cni
mkdir -p "$RDMANET_CNI_STATE_DIR/sriov"
R=rdma/mellanoxroce

# hold VF PCI VF_INDEX POD [released]: what the CNI writes (atomically)
# before it touches a VF (released: what DEL leaves when the VF's netdev
# has not come back from the pod's netns); the pod netns is the node's,
# alive, so the leak sweep leaves it alone
hold() {
	local f=$RDMANET_CNI_STATE_DIR/sriov/$1.json
	cat >"$f.tmp" <<JSON
{ "pci": "$1", "pf": "ens1f0np0", "vf": $2, "network": "rail1", "container_id": "c0ffee$2",
  "ifname": "net1", "netns": "/run/netns/$RN_NODE", "pod_namespace": "default",
  "pod_name": "$3", "since": 1764000000, "complete": true, "rdma_moved": true,
  "released": ${4:-false},
  "original": { "netdev": "ens1f0v$2", "mtu": 1500, "mac": "02:00:00:00:00:0$2",
                "rdma_dev": "mlx5_$(($2 + 2))", "admin": null } }
JSON
	mv "$f.tmp" "$f"
}
hold 0000:3b:00.7 5 rdma-pod
# VFs on two NUMA nodes (as two PFs pooled in one resource would be)
echo 0 >"$RN_TMP/host/sys/bus/pci/devices/0000:3b:00.2/numa_node"
echo 1 >"$RN_TMP/host/sys/bus/pci/devices/0000:3b:00.3/numa_node"

# a device_plugin section only for the fake kubelet's directory: no configList
rn_agent_config "$RN_TMP/config.json" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"device_plugin\": { \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0 },
  \"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, \"resourceName\": \"mellanoxroce\" } ]"

dp_kubelet_start
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "$R: registered" dp_wait ".event == \"register\" and .resource == \"$R\""
reg=$(dp_last ".event == \"register\" and .resource == \"$R\"")
check_eq "$R: RegisterRequest passes kubelet's checks" "$(jq -r .error <<<"$reg")" null
check_eq "$R: endpoint" "$(jq -r .endpoint <<<"$reg")" "rdmanet-rdma-mellanoxroce.sock"
check "$R: ListAndWatch list" dp_wait ".event == \"list\" and .resource == \"$R\""
check "$R: Allocate answered" dp_wait ".event == \"allocate\" and .resource == \"$R\""
check "$R: an Unhealthy VF's Allocate answered" \
	dp_wait ".event == \"allocate_unhealthy_error\" and .resource == \"$R\""

l=$(dp_last ".event == \"list\" and .resource == \"$R\"")
check_eq "$R: one device per VF, its PCI address, 9 of 12 healthy" \
	"$(jq -c '[.n, .healthy]' <<<"$l")" "[12,9]"
check_eq "$R: Unhealthy: the zero GUIDs (00.5, 01.1), RDMA device away (01.3); not the VF in use (00.7)" \
	"$(jq -c '[.devices[] | select(.health != "Healthy") | .id]' <<<"$l")" \
	'["0000:3b:00.5","0000:3b:01.1","0000:3b:01.3"]'
check_eq "$R: every VF listed" "$(jq -c '[.devices[].id]' <<<"$l")" \
	'["0000:3b:00.2","0000:3b:00.3","0000:3b:00.4","0000:3b:00.5","0000:3b:00.6","0000:3b:00.7","0000:3b:01.0","0000:3b:01.1","0000:3b:01.2","0000:3b:01.3","0000:3b:01.4","0000:3b:01.5"]'

check_eq "$R: each VF's own NUMA node (none where the kernel knows none)" \
	"$(jq -c '[.devices[:3][] | .numa]' <<<"$l")" '[[0],[1],[]]'

al=$(dp_last ".event == \"allocate\" and .resource == \"$R\"")
check_eq "$R: Allocate gives the two VFs' RDMA nodes and rdma_cm, rwm" \
	"$(dp_alloc_devices "$al")" \
	'["/dev/infiniband/issm2=/dev/infiniband/issm2:rwm","/dev/infiniband/issm3=/dev/infiniband/issm3:rwm","/dev/infiniband/rdma_cm=/dev/infiniband/rdma_cm:rwm","/dev/infiniband/umad2=/dev/infiniband/umad2:rwm","/dev/infiniband/umad3=/dev/infiniband/umad3:rwm","/dev/infiniband/uverbs2=/dev/infiniband/uverbs2:rwm","/dev/infiniband/uverbs3=/dev/infiniband/uverbs3:rwm"]'
check_eq "$R: PCIDEVICE_ as sriov-network-device-plugin names it, the PCI addresses" \
	"$(jq -c '.containers[0].envs' <<<"$al")" \
	'{"PCIDEVICE_RDMA_MELLANOXROCE":"0000:3b:00.2,0000:3b:00.3"}'
bad=$(dp_last ".event == \"allocate_unhealthy_error\" and .resource == \"$R\"")
check_eq "$R: the zero-GUID VF refused, with why" \
	"$(jq -r '"\(.code) \(.details)"' <<<"$bad")" \
	"StatusCode.FAILED_PRECONDITION $R: VF 0000:3b:00.5 is not available: zero node GUID"

# a pod takes VF 1: still Healthy (kubelet subtracts the pod's request),
# seen in the list that shows VF 2's pod deleted while VF 2 is not back:
# Unhealthy at once (no periodic update: inotify on the hold directory is
# the only trigger); VF 1's pod deleted the same way; both freed: Healthy
dp_mark
hold 0000:3b:00.3 1 other-pod
hold 0000:3b:00.4 2 gone-pod true
check "$R: VF 00.4 Unhealthy once its pod is deleted and it is not back" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and (.devices[] | select(.id == \"0000:3b:00.4\") | .health) == \"Unhealthy\"" 10
check_eq "$R: ... and VF 00.3, in use, Healthy in that list" \
	"$(dp_last ".event == \"list\" and .resource == \"$R\"" | jq -c '[.healthy, (.devices[] | select(.id == "0000:3b:00.3") | .health)]')" \
	'[8,"Healthy"]'
dp_mark
hold 0000:3b:00.3 1 other-pod true
check "$R: VF 00.3 Unhealthy once its pod is deleted and it is not back" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and .healthy == 7 and (.devices[] | select(.id == \"0000:3b:00.3\") | .health) == \"Unhealthy\"" 10
rm "$RDMANET_CNI_STATE_DIR/sriov/0000:3b:00.4.json"
dp_mark
rm "$RDMANET_CNI_STATE_DIR/sriov/0000:3b:00.3.json"
check "$R: VFs 00.3 and 00.4 Healthy once freed" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and .healthy == 9 and (.devices[] | select(.id == \"0000:3b:00.3\") | .health) == \"Healthy\"" 10
check "agent log says why" grep -q "VF 0000:3b:00.3 unhealthy: being returned from default/other-pod's netns" "$RN_TMP/agent.log"

res=$(rn_ctl --config "$RN_TMP/config.json" resources -j)
check_eq "rdmanetctl resources -j: the VF resource, its devices, health, serving" \
	"$(jq -c '[.[] | [.resource, .kind, .devices, .healthy, .serving, (.vfs | length)]]' <<<"$res")" \
	'[["rdma/mellanoxroce","sriov",12,9,true,12]]'
check_eq "rdmanetctl resources -j: the VF in use is healthy" \
	"$(jq -c '.[0].vfs[] | select(.pci == "0000:3b:00.7") | .healthy' <<<"$res")" true
check "rdmanetctl resources: a line per VF" \
	grep -q "^    vf 0000:3b:00.2 rdma mlx5_2 netdev ens1f0v0 numa 0 healthy$" \
	<(rn_ctl --config "$RN_TMP/config.json" resources)

# the hold directory removed and made again (the watch dies with it): the
# agent watches the new one within a few seconds and reads what is there
rm -rf "$RDMANET_CNI_STATE_DIR/sriov"
sleep 1	# the reload the removal causes is over before the new hold exists
mkdir -p "$RDMANET_CNI_STATE_DIR/sriov"
dp_mark
hold 0000:3b:00.4 2 late-pod true
check "$R: a hold in a re-made directory is seen (VF 00.4 released: Unhealthy)" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and (.devices[] | select(.id == \"0000:3b:00.4\") | .health) == \"Unhealthy\"" 10

# a changed sriov section (another prefix) is a device plugin change: the
# plugin restarts and kubelet gets the new resource
N=nvidia.com/mellanoxroce
dp_mark
rn_agent_config "$RN_TMP/config.new" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"device_plugin\": { \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0 },
  \"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, \"resourceName\": \"mellanoxroce\",
                \"resourcePrefix\": \"nvidia.com\" } ]"
mv "$RN_TMP/config.new" "$RN_TMP/config.json"
check "config reload: $N registered" \
	dp_wait ".event == \"register\" and .resource == \"$N\" and .error == null"
check "config reload: $N's Allocate names PCIDEVICE_NVIDIA_COM_MELLANOXROCE" \
	dp_wait ".event == \"allocate\" and .resource == \"$N\" and (.containers[0].envs | has(\"PCIDEVICE_NVIDIA_COM_MELLANOXROCE\"))"
check "config reload: the old socket is gone" \
	test ! -e "$DP_KUBELET/device-plugins/rdmanet-rdma-mellanoxroce.sock"

check "data path still attached" \
	test "$(rn_stat '.masters[] | select(.ifname == "roce0") | .tc')" != none
tap_done
