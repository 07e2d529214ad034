#!/bin/bash
# What the CNI attached from a DRA claim is written into the claim's
# status.devices[].networkData (KEP-4817) by rdmanetd, by server-side
# apply to the API-server stand-in (apiserver_standin.py: apply per field
# manager, the UID precondition, resource.k8s.io/v1's validation of
# status.devices): interface name, IPs and MAC as the pod's netns has
# them; another driver's entry (a fake GPU driver's, applied first) kept;
# a shared port's entry naming the pod attached first; removed on DEL; a
# replaced claim (another UID) never written; written once the API server
# is back; nothing duplicated or lost over an agent restart. The pods are
# attached by the plugin as the runtime runs it, on the ConnectX-5 fixture
# cx5_sriov (the port's netdev a veth). No real kubelet, API server or
# scheduler runs; this host has no SR-IOV device, so a VF claim's ADD stops
# at the PF's VF settings (test_dra_cni.sh) and leaves no network data.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
trap 'standin_stop; rn_topo_down' EXIT

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
dra_fixture_netdevs vf
API=$RN_TMP/api
dra_api_start "$API" || { tap_fail "the API-server stand-in starts ($(tail -n 2 "$API/standin.err"))"; tap_done; }
CONFIG=$RN_TMP/config.json
dra_config "$CONFIG" '"slices": { "publish": true, "resync_s": 600 }' \
	"\"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": false } ],
  \"ipam\": { \"store\": \"sqlite\", \"path\": \"$RN_TMP/ipam.db\" },
  \"pools\": [ { \"name\": \"dra-v4\", \"subnet\": \"10.78.0.0/24\", \"ips\": [\"10.78.0.10-10.78.0.39\"],
               \"masters\": [\"ens1f0np0\"] },
             { \"name\": \"dra-v6\", \"subnet\": \"fd00:78::/64\", \"ips\": [\"fd00:78::10-fd00:78::39\"],
               \"masters\": [\"ens1f0np0\"] } ]"
check "agent starts, claims and status at the API-server stand-in" rn_agent_start "$CONFIG"

POD1=a1a1a1a1-0000-4000-8000-000000000001
POD2=a2a2a2a2-0000-4000-8000-000000000002
POD3=a3a3a3a3-0000-4000-8000-000000000003
GPU=$(dra_result gpu gpu-0 gpu.example.com gpu-pool)
# the port is shared through consumable capacity: its allocation is a
# share, with a shareID the status entry must carry (the entry's key)
SHARE=5a5a5a5a-0000-4000-8000-00000000005a
NIC=$(dra_result nic mlx5-0-port1 | jq -c --arg s "$SHARE" '. + {shareID: $s}')
CLAIMS=/apis/resource.k8s.io/v1/namespaces/default/resourceclaims
U1=$(dra_claim_api default nic1 "[$NIC, $GPU]" "$POD1 $POD3")
U2=$(dra_claim_api default vf1 "[$(dra_result nic vf-0000-3b-00-2)]" "$POD2")
out=$(dra_prepare v1.DRAPlugin default/nic1/$U1 default/vf1/$U2)
check_eq "a shared port claim (with a GPU beside) and a VF claim prepared" \
	"$(jq -c '[.grpc_error, [.claims[].error]]' <<<"$out")" '[null,["",""]]'

# the fake GPU driver applies its own device's status first, with curl (not
# rdmanet's client)
gpu_apply() {
	jq -n --arg u "$U1" '{apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim",
		metadata: {name: "nic1", namespace: "default", uid: $u},
		status: {devices: [{driver: "gpu.example.com", pool: "gpu-pool", device: "gpu-0",
			data: {uuid: "GPU-0000"}}]}}' >"$RN_TMP/gpu.json"
	rn_in_node curl -s -o /dev/null -w '%{http_code}' --cacert "$API/cluster-ca.pem" \
		-H "Authorization: Bearer token-one" -H "Content-Type: application/apply-patch+yaml" \
		-X PATCH --data-binary @"$RN_TMP/gpu.json" \
		"https://127.0.0.1:$STANDIN_PORT$CLAIMS/nic1/status?fieldManager=gpu.example.com&force=true"
}
check_eq "the GPU driver's device status applied" "$(gpu_apply)" 200

pod() {
	ip netns add "$RN_PFX-$1" && ip -n "$RN_PFX-$1" link set lo up
	echo "/run/netns/$RN_PFX-$1"
}
jq -n '{cniVersion: "1.1.0", name: "dranet", type: "rdmanet", dra: {request: "nic"},
	ippools: {ipv4: ["dra-v4"], ipv6: ["dra-v6"]}, gatewayCheck: false,
	ipConflictCheck: false}' >"$RN_TMP/nic.json"
cni() {	# cni CMD CID NETNS POD_UID
	rn_in_node env -i CNI_COMMAND="$1" CNI_CONTAINERID="$2" CNI_IFNAME=net1 CNI_NETNS="$3" \
		CNI_PATH=/usr/lib/cni RDMANET_CONFIG="$CONFIG" \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=p;K8S_POD_UID=$4" \
		${CNI_ENV:-} "$RN_BUILD/bin/rdmanet" <"$RN_TMP/nic.json" >"$RN_TMP/out.json" 2>"$RN_TMP/err.log"
}
claim() { dra_kube GET "$CLAIMS/${1:-nic1}" 2>/dev/null | sed -n 2p; }
ours() { claim "$@" | jq -cS '[.status.devices[]? | select(.driver == "rdma.rdmanet.io")]'; }
gpu() { claim | jq -c '[.status.devices[]? | select(.driver == "gpu.example.com") | .data]'; }
# what the pod's netns says its net1 is, as networkData
pod_data() {
	ip -n "$RN_PFX-$1" -j addr show net1 | jq -cS --arg s "$SHARE" '.[0] | [{driver: "rdma.rdmanet.io",
		pool: "node-a", device: "mlx5-0-port1", shareID: $s, networkData: {interfaceName: .ifname,
		hardwareAddress: .address, ips: [.addr_info[] | select(.scope == "global")
		| "\(.local)/\(.prefixlen)"]}}]'
}
# wait_ours WHAT WANT: up to 10 s for the claim's entries of this driver
wait_ours() {
	local i
	for i in $(seq 50); do
		[ "$(ours)" = "$2" ] && { tap_ok "$1"; return; }
		sleep 0.2
	done
	tap_fail "$1: the claim has $(ours), not $2"
}
applies() { jq -r 'select(.method == "PATCH" and .content_type == "application/apply-patch+yaml"
	and (.path | contains("fieldManager=rdma.rdmanet.io"))) | .status' "$API/requests.log" | wc -l; }

# --- a shared HCA port: the pod's interface in the claim ---------------------------
ns1=$(pod p1)
cni ADD c-p1 "$ns1" $POD1
check_eq "pod 1 attached from the shared port claim" "$?" 0
P1=$(pod_data p1)
wait_ours "within seconds: status.devices has the port (its share) with pod 1's interface, IPs and MAC (as its netns has them)" "$P1"
check_eq "... both its addresses, IPv4 and IPv6, as CIDRs" "$(jq '.[0].networkData.ips | length' <<<"$P1")" 2
check_eq "... the GPU driver's entry is still there" "$(gpu)" '[{"uuid":"GPU-0000"}]'
check "... the record the CNI left for the agent names the claim" \
	grep -q "\"uid\":\"$U1\"" "$DRA_STATE/networks/dranet:c-p1:net1.json"

ns3=$(pod p3)
cni ADD c-p3 "$ns3" $POD3
check_eq "pod 3 attached from the same claim" "$?" 0
sleep 2		# two passes of the writer: nothing to change
check_eq "... the claim's one device entry still names the pod attached first" "$(ours)" "$P1"
cni DEL c-p1 "$ns1" $POD1
check_eq "pod 1's DEL" "$?" 0
P3=$(pod_data p3)
wait_ours "... the entry names pod 3 now" "$P3"
check "... pod 1's record gone" test ! -e "$DRA_STATE/networks/dranet:c-p1:net1.json"

# --- agent restart: nothing duplicated, nothing lost ----------------------------------
n=$(applies)
rn_agent_stop
cni DEL c-p3 "$ns3" $POD3
check_eq "pod 3's DEL while the agent is down" "$?" 0
cni ADD c-p1 "$ns1" $POD1
check_eq "... and pod 1 attached again while the agent is down" "$?" 0
P1=$(pod_data p1)
check "agent started again" rn_agent_start "$CONFIG"
wait_ours "... the entry names pod 1 again: one entry, nothing left of pod 3" "$P1"
check_eq "... the GPU entry still one, still there" "$(gpu)" '[{"uuid":"GPU-0000"}]'
check_eq "... the claim has two device entries in all" "$(claim | jq '.status.devices | length')" 2

# --- DEL: ours removed, the GPU driver's kept ------------------------------------------
cni DEL c-p1 "$ns1" $POD1
wait_ours "DEL of the last pod: this driver's entry removed" '[]'
check_eq "... the GPU driver's stays" "$(gpu)" '[{"uuid":"GPU-0000"}]'

# --- the API server unreachable, then back: written once it is back ------------------------
block() { rn_in_node iptables "$1" INPUT -p tcp --dport "$STANDIN_PORT" -j REJECT --reject-with tcp-reset; }
n=$(applies)
block -I
cni ADD c-p1 "$ns1" $POD1
check_eq "pod attached while the API server cannot be reached" "$?" 0
P1=$(pod_data p1)
sleep 3
check_eq "... nothing reached it meanwhile" "$(applies)" "$n"
check_eq "... the failure logged once, not at every retry" \
	"$(grep -c 'DRA claim status not written' "$RN_TMP/agent.log")" 1
block -D
wait_ours "the API server back: the pod's networkData written" "$P1"

# --- a replaced claim (deleted, created again under its name): never written ------------
OLD_U1=$U1
dra_kube DELETE "$CLAIMS/nic1" >/dev/null
U1=$(dra_claim_api default nic1 "[$NIC, $GPU]" "$POD1 $POD3")
cni ADD c-p3 "$ns3" $POD3	# still the old claim's, as prepared
cni DEL c-p1 "$ns1" $POD1	# the old claim's entry would name pod 3 now
sleep 3
check_eq "a claim replaced under its name (another UID): the old claim's pods are not written into it" \
	"$(ours)" '[]'
check "... the agent said why (409: the UID precondition)" \
	grep -q "not written: .*409 Conflict: .*Precondition failed: UID in precondition: $OLD_U1" "$RN_TMP/agent.log"
cni DEL c-p3 "$ns3" $POD3
out=$(dra_unprepare v1.DRAPlugin default/nic1/$OLD_U1; dra_prepare v1.DRAPlugin default/nic1/$U1)
cni ADD c-p1 "$ns1" $POD1
check_eq "the new claim prepared, its pod attached" "$?" 0
P1=$(pod_data p1)
wait_ours "... and its networkData written into the new claim" "$P1"

# --- an ADD that fails after the record: rolled back --------------------------------------
ns4=$(pod p4)
(CNI_ENV="RDMANET_CNI_FAULT=stop@networked" cni ADD c-p4 "$ns4" $POD3) &
bg=$!
pid=
for _ in $(seq 200); do
	for p in $(pgrep -x rdmanet); do
		grep -qz "CNI_CONTAINERID=c-p4" "/proc/$p/environ" 2>/dev/null &&
			[ "$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null)" = T ] && pid=$p
	done
	[ -n "$pid" ] && break
	sleep 0.05
done
check "an ADD stopped right after its network data was recorded" test -e "$DRA_STATE/networks/dranet:c-p4:net1.json"
ip netns del "$RN_PFX-p4"
kill -CONT "$pid" 2>/dev/null
wait "$bg"
check "... its netns deleted meanwhile: the ADD fails" test "$(jq -r .code "$RN_TMP/out.json")" = 3
check "... and its record is gone with the rest" test ! -e "$DRA_STATE/networks/dranet:c-p4:net1.json"
sleep 2
check_eq "... the claim still names pod 1" "$(ours)" "$P1"

# --- a VF claim whose ADD fails here: nothing recorded ----------------------------------
ns2=$(pod p2)
cni ADD c-p2 "$ns2" $POD2
check "VF claim: the ADD stops at the PF's VF settings on this host" \
	test "$(jq -r .code "$RN_TMP/out.json")" = 108
check_eq "... no network data recorded, none written" \
	"$(ls "$DRA_STATE/networks" | grep -c c-p2) $(ours vf1)" "0 []"

# --- the stand-in's validation, as the real server's ----------------------------------------
bad_apply() {	# JQ edit of our entry: the stand-in's answer
	claim | jq --arg u "$U1" '{apiVersion, kind, metadata: {name: "nic1", namespace: "default", uid: $u},
		status: {devices: [.status.devices[] | select(.driver == "rdma.rdmanet.io")]}} | '"$1" \
		>"$RN_TMP/bad.json"
	rn_in_node curl -s --cacert "$API/cluster-ca.pem" -H "Authorization: Bearer token-one" \
		-H "Content-Type: application/apply-patch+yaml" -X PATCH --data-binary @"$RN_TMP/bad.json" \
		"https://127.0.0.1:$STANDIN_PORT$CLAIMS/nic1/status?fieldManager=test&force=true" |
		jq -r '"\(.code) \(.message)"'
}
check "stand-in: an address without its prefix is refused (422, the server's message)" \
	grep -q '^422 .*status.devices\[[0-9]\].networkData.ips\[0\]: Invalid value: "10.78.0.10": must be a valid address in CIDR form' \
	<<<"$(bad_apply '.status.devices[0].networkData.ips[0] = "10.78.0.10"')"
check "stand-in: a device not allocated to the claim is refused" \
	grep -q '^422 .*must be an allocated device in the claim' \
	<<<"$(bad_apply '.status.devices[0].device = "mlx5-1-port1"')"
check "stand-in: a shared device's entry without its share's shareID is refused (no such allocated device)" \
	grep -q '^422 .*"rdma.rdmanet.io/node-a/mlx5-0-port1": must be an allocated device in the claim' \
	<<<"$(bad_apply '.status.devices[0] |= del(.shareID)')"
check "stand-in: an interface name over 256 bytes is refused" \
	grep -q '^422 .*networkData.interfaceName: Too long: may not be more than 256 bytes' \
	<<<"$(bad_apply ".status.devices[0].networkData.interfaceName = \"$(printf 'x%.0s' $(seq 257))\"")"
check "stand-in: a replaced claim's UID is a 409" \
	grep -q '^409 .*Precondition failed' <<<"$(bad_apply '.metadata.uid = "00000000-0000-4000-8000-000000000000"')"
check_eq "... and none of these changed the claim" "$(ours)" "$P1"

# --- DEL without the netns, GC: the record goes with the attachment -----------------------
ns3=$(pod p3b)
cni ADD c-p3 "$ns3" $POD3
check_eq "pod 3 attached again" "$?" 0
ip netns del "$RN_PFX-p1"
cni DEL c-p1 "" $POD1
check_eq "pod 1's DEL without its netns (gone)" "$?" 0
P3=$(pod_data p3b)
wait_ours "... its entry gives way to pod 3's" "$P3"
jq '. + {"cni.dev/valid-attachments": []}' "$RN_TMP/nic.json" >"$RN_TMP/gc.json"
rn_in_node env -i CNI_COMMAND=GC CNI_PATH=/usr/lib/cni RDMANET_CONFIG="$CONFIG" \
	"$RN_BUILD/bin/rdmanet" <"$RN_TMP/gc.json" >"$RN_TMP/out.json" 2>"$RN_TMP/err.log"
check_eq "GC with no attachment valid" "$?" 0
check_eq "... no record left" "$(ls "$DRA_STATE/networks" | grep -c '\.json$')" 0
wait_ours "... and the claim has no entry of this driver left" '[]'

# --- a claim gone from the API server: dropped, not retried ---------------------------------
ns3=$(pod p3c)
cni ADD c-p3 "$ns3" $POD3
P3=$(pod_data p3c)
wait_ours "pod 3 attached once more: written" "$P3"
dra_kube DELETE "$CLAIMS/nic1" >/dev/null
cni DEL c-p3 "$ns3" $POD3
for _ in $(seq 50); do
	grep -q "nic1 ($U1): not written: .*404" "$RN_TMP/agent.log" && break
	sleep 0.2
done
n=$(applies)
sleep 3
check_eq "the claim deleted at the API server, its pod's DEL: one 404, then no more writes" \
	"$(grep -c "nic1 ($U1): not written: .*404" "$RN_TMP/agent.log") $(applies)" "1 $n"
check "... and the agent forgot the claim" \
	eval 'jq -e --arg u "$U1" ".claims | has(\$u) | not" "$DRA_STATE/claim-status.json" >/dev/null'
tap_done
