#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The delegate config as Multus hands it: for a
# NetworkAttachmentDefinition with a k8s.v1.cni.cncf.io/resourceName
# annotation Multus sets the top-level "deviceID" and "pciBusID" (the
# device plugin's ID) whatever the plugin's mode, and passes runtimeConfig
# with the capabilities it knows. Shared-mode networks annotated for the
# RDMA shared device plugin (the setups rdmanet replaces) must attach with
# them; mode sriov reads the VF from them, or from runtimeConfig.deviceID
# (Multus's capability args) when neither is set (on this host, which has
# no VF, its answer names the device it was given). CNI_ARGS are Multus's:
# IgnoreUnknown=true, the pod's namespace, name, infra container id and UID.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" monitor
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"

# multus NAME MODE_JSON DEVICE: the delegate's config as Multus writes it
multus() {
	cni_netconf "$CNI_TMP/$1.json" 1.1.0 "$1" "{ $2 \"master\": \"ra0\",
	  \"ippools\": {\"ipv4\": [\"railA-v4\"]}, \"gatewayCheck\": false, \"ipConflictCheck\": false,
	  \"deviceID\": \"$3\", \"pciBusID\": \"$3\",
	  \"runtimeConfig\": { \"portMappings\": [], \"ips\": [], \"mac\": \"\" } }"
}

ns=$(cni_pod_up p)
modes=macvlan
if cni_in node ip link add rnipvprobe link ra0 type ipvlan 2>/dev/null; then
	cni_in node ip link del rnipvprobe
	modes="macvlan ipvlan"
else
	# this kernel has no ipvlan: the config is still accepted, the link is
	# what fails
	multus m-ipvlan '"mode": "ipvlan",' "hca_shared_devices_a-3"
	cni_run ADD "$CNI_TMP/m-ipvlan.json" c-ipvlan nipvlan "$ns"
	check_eq "mode ipvlan (no ipvlan in this kernel): the config accepted, the link refused" \
		"$(jq -c '[.code, (.msg | test("create ipvlan child"))]' "$CNI_OUT")" '[108,true]'
	cni_run DEL "$CNI_TMP/m-ipvlan.json" c-ipvlan nipvlan "$ns"
fi
for mode in $modes; do
	# the shared device plugin's device ID, as Multus passes it
	multus "m-$mode" "\"mode\": \"$mode\"," "hca_shared_devices_a-3"
	cni_run ADD "$CNI_TMP/m-$mode.json" "c-$mode" "n$mode" "$ns" \
		"IgnoreUnknown=true;K8S_POD_NAMESPACE=d;K8S_POD_NAME=p;K8S_POD_INFRA_CONTAINER_ID=c-$mode;K8S_POD_UID=u-1"
	cni_check_ok "mode $mode: ADD with Multus's deviceID and pciBusID"
	check_eq "mode $mode: the pod from Multus's CNI_ARGS (IgnoreUnknown=true, infra id, uid)" \
		"$(cni_ctl -j pod show | jq -c --arg c "c-$mode" '[.[] | select(.container_id == $c) | [.namespace, .pod]]')" \
		'[["d","p"]]'
	jq --slurpfile r "$CNI_OUT" '. + {prevResult: $r[0]}' "$CNI_TMP/m-$mode.json" >"$CNI_TMP/m-$mode.check"
	cni_run CHECK "$CNI_TMP/m-$mode.check" "c-$mode" "n$mode" "$ns"
	cni_check_ok "mode $mode: CHECK"
	cni_run DEL "$CNI_TMP/m-$mode.json" "c-$mode" "n$mode" "$ns"
	cni_check_ok "mode $mode: DEL"
done

multus m-sriov '"mode": "sriov",' 0000:3b:00.2
sed -i 's/"master": "ra0",//' "$CNI_TMP/m-sriov.json"
cni_run ADD "$CNI_TMP/m-sriov.json" c-sriov net1 "$ns"
check_eq "mode sriov: the VF is the top-level deviceID (no VF here: code 7, naming it)" \
	"$(jq -c '[.code, (.msg | test("deviceID 0000:3b:00.2: not a VF"))]' "$CNI_OUT")" '[7,true]'
jq 'del(.deviceID)' "$CNI_TMP/m-sriov.json" >"$CNI_TMP/m-sriov-pci.json"
cni_run ADD "$CNI_TMP/m-sriov-pci.json" c-sriov net1 "$ns"
check_eq "mode sriov: pciBusID alone names it too" \
	"$(jq '.msg | test("deviceID 0000:3b:00.2: not a VF")' "$CNI_OUT")" true
# a delegate declaring the deviceID capability gets it in runtimeConfig
# (Multus's capability args), with no top-level key
jq 'del(.deviceID, .pciBusID) | .capabilities = {deviceID: true} |
	.runtimeConfig.deviceID = "0000:3b:00.4"' "$CNI_TMP/m-sriov.json" >"$CNI_TMP/m-sriov-rc.json"
cni_run ADD "$CNI_TMP/m-sriov-rc.json" c-sriov net1 "$ns"
check_eq "mode sriov: runtimeConfig.deviceID alone names it" \
	"$(jq -c '[.code, (.msg | test("deviceID 0000:3b:00.4: not a VF"))]' "$CNI_OUT")" '[7,true]'
jq '.pciBusID = "0000:3b:00.3"' "$CNI_TMP/m-sriov.json" >"$CNI_TMP/m-sriov-two.json"
cni_run ADD "$CNI_TMP/m-sriov-two.json" c-sriov net1 "$ns"
check_eq "mode sriov: deviceID and pciBusID naming two devices: code 7, naming both" \
	"$(jq -c '[.code, (.msg | test("0000:3b:00.2.*0000:3b:00.3"))]' "$CNI_OUT")" '[7,true]'
check_eq "the failed sriov ADDs left nothing" "$(cni_held c-sriov net1)$(cni_registered c-sriov net1)" 0
tap_done
