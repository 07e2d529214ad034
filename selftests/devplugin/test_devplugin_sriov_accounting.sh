#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# kubelet's accounting of a VF resource: allocatable is
# the count of Healthy devices and the scheduler subtracts the pods'
# requests from it, so a VF in use must stay Healthy or it is counted twice
# (with 12 VFs and 6 pods no new pod would fit: sriov-network-device-plugin
# #40). The fake kubelet admits one pod per VF that can serve (cx5_sriov:
# 8 of 12), one at a time; after each Allocate the test plays the pod's CNI
# ADD (the VF's hold). Every list kubelet gets keeps 8 Healthy, so every
# pod fits (allocatable - requests >= 1 before each); then one pod is
# deleted while its VF is not back yet (a released hold): 7 Healthy, and
# with the 7 pods left nothing more fits, as it should.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
echo N >"$RN_TMP/host/sys/module/ib_core/parameters/netns_mode"
export RDMANET_CNI_STATE_DIR=$RN_TMP/cni
mkdir -p "$RDMANET_CNI_STATE_DIR/sriov" "$RN_TMP/pods"
R=rdma/mellanoxroce

# hold PCI POD [released]: what the CNI's ADD writes for the pod (its netns
# the node's, alive: the sweep leaves it alone)
hold() {
	local f=$RDMANET_CNI_STATE_DIR/sriov/$1.json
	cat >"$f.tmp" <<JSON
{ "pci": "$1", "pf": "ens1f0np0", "vf": 0, "network": "rail1", "container_id": "c-$2",
  "ifname": "net1", "netns": "/run/netns/$RN_NODE", "pod_namespace": "default",
  "pod_name": "$2", "since": 1764000000, "complete": true, "rdma_moved": true,
  "released": ${3:-false},
  "original": { "netdev": "x", "mtu": 1500, "mac": "02:00:00:00:00:01",
                "rdma_dev": "x", "admin": null } }
JSON
	mv "$f.tmp" "$f"
}

rn_agent_config "$RN_TMP/config.json" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"device_plugin\": { \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0 },
  \"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, \"resourceName\": \"mellanoxroce\" } ]"
dp_kubelet_start --pods-dir "$RN_TMP/pods" --allocate-size 1
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "$R: registered, first list" dp_wait ".event == \"list\" and .resource == \"$R\""
serving=$(dp_last ".event == \"list\" and .resource == \"$R\"" | jq .healthy)
# 12 VFs: two zero GUIDs, two RDMA devices away (in another netns)
check_eq "$R: 8 of the 12 VFs can serve" "$serving" 8

# the pods, one at a time: kubelet allocates, the CNI takes the VF
for n in $(seq 0 $((serving - 1))); do
	if ! dp_wait ".event == \"pod\" and .n == $n" 30 >/dev/null; then
		tap_fail "pod $n: no Allocate"
		break
	fi
	hold "$(dp_last ".event == \"pod\" and .n == $n" | jq -r .id)" "pod$n"
	touch "$RN_TMP/pods/$n.started"
done
check "kubelet admitted one pod per VF" dp_wait '.event == "pods_done"' 30
check_eq "every pod's Allocate answered" "$(dp_lines | jq -c 'select(.event == "pod_error")' | wc -l)" 0
check_eq "each pod got its own VF" \
	"$(dp_lines | jq -r 'select(.event == "pod") | .id' | sort -u | wc -l)" "$serving"

# one pod deleted, its VF not back yet: the list that says so is after
# every hold above was read (each reload reads them all)
first=$(dp_last '.event == "pod" and .n == 0' | jq -r .id)
hold "$first" pod0 true
check "$R: the deleted pod's VF, not back yet, Unhealthy" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and (.devices[] | select(.id == \"$first\") | .health) == \"Unhealthy\"" 10
counts=$(dp_lines | jq -c "select(.event == \"list\" and .resource == \"$R\") | .healthy" | tr '\n' ' ')
tap_diag "healthy in every list kubelet got: $counts"
check_eq "no list before it said fewer than the $serving VFs that can serve" \
	"$(dp_lines | jq -c "select(.event == \"list\" and .resource == \"$R\") | .healthy" | sed '$d' | awk -v s="$serving" '$1 < s' | wc -l)" 0
last=$(dp_last ".event == \"list\" and .resource == \"$R\"" | jq .healthy)
check_eq "  and that one one fewer" "$last" $((serving - 1))
# kubelet's arithmetic: allocatable (Healthy) minus the running pods' requests
least=$(dp_lines | jq -c "select(.event == \"list\" and .resource == \"$R\") | .healthy" | sed '$d' | sort -n | head -1)
check_eq "so every pod fitted: at least $least Healthy - $((serving - 1)) pods >= 1 before the last" \
	"$((least - (serving - 1) >= 1))" 1
check_eq "and with the deleted pod's VF not back, $last Healthy - $((serving - 1)) pods: none fits" \
	"$((last - (serving - 1) >= 1))" 0
tap_done
