#!/bin/bash
# The CNI plugin attaches a pod from its DRA claim ("dra": {"request": ...}
# in the network config): the driver prepares the claims through the
# kubelet stand-in on the ConnectX-5 fixture cx5_sriov, the scheduler
# stand-in reserves each claim for its pod (status.reservedFor), and the
# plugin, run as a runtime runs it in the node netns with K8S_POD_UID in
# CNI_ARGS, finds the claim by the pod's UID. The fixture's PF ens1f0np0
# (mlx5_0 port 1) and VF 0 netdev ens1f0v0 exist in the node netns as a
# veth each. No real kubelet, API server or scheduler runs.
#
# What this host cannot do: hand a real VF to a pod (no SR-IOV device: the
# PF's VF settings cannot be read), so the VF pod's ADD is followed as far
# as the exclusive path goes here: past the VF's hold (the claim's,
# accepted), to the PF's VF settings, and rolled back with the hold as it
# was. A claim's VF given back from a pod (its hold as the CNI writes it)
# goes back to the claim, not to the node.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
trap 'rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
dra_fixture_netdevs vf
CONFIG=$RN_TMP/config.json
dra_config "$CONFIG" "" "\"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": false } ],
  \"ipam\": { \"store\": \"sqlite\", \"path\": \"$RN_TMP/ipam.db\" },
  \"pools\": [ { \"name\": \"dra-v4\", \"subnet\": \"10.78.0.0/24\", \"ips\": [\"10.78.0.10-10.78.0.39\"],
               \"masters\": [\"roce0\", \"ens1f0np0\"] } ]"
check "agent starts with the dra and sriov sections" rn_agent_start "$CONFIG"

POD1=a1a1a1a1-0000-4000-8000-000000000001	# its claim: HCA port mlx5_0 port 1
POD2=a2a2a2a2-0000-4000-8000-000000000002	# its claim: VF 0000:3b:00.2
POD9=a9a9a9a9-0000-4000-8000-000000000009	# no claim
U1=c1c1c1c1-1111-4111-8111-111111111111
U2=c2c2c2c2-2222-4222-8222-222222222222
dra_claim default pod1-nic $U1 "[$(dra_result nic mlx5-0-port1)]" "$POD1"
dra_claim default pod2-vf $U2 "[$(dra_result nic vf-0000-3b-00-2)]" "$POD2"
out=$(dra_prepare v1.DRAPlugin default/pod1-nic/$U1 default/pod2-vf/$U2)
check_eq "both claims prepared" "$(jq -c '[.grpc_error, [.claims[].error]]' <<<"$out")" '[null,["",""]]'
check_eq "the state file records each claim's pods (reservedFor) and what its device is" \
	"$(jq -c "[(.claims[\"$U1\"] | .pods, (.devices[0] | [.kind, .netdev])),
	           (.claims[\"$U2\"] | .pods, (.devices[0] | [.kind, .pci]))]" "$DRA_STATE/prepared.json")" \
	"[[\"$POD1\"],[\"port\",\"ens1f0np0\"],[\"$POD2\"],[\"vf\",\"0000:3b:00.2\"]]"
HOLD=$DRA_HOLDS/sriov/0000:3b:00.2.json
cp "$HOLD" "$RN_TMP/hold.prepared"

# pod NAME: a pod netns; prints its path
pod() {
	ip netns add "$RN_PFX-$1" && echo "$RN_PFX-$1" >>"$RN_TMP/pods.list"
	ip -n "$RN_PFX-$1" link set lo up
	echo "/run/netns/$RN_PFX-$1"
}
# netconf FILE JSON: a network config with "dra"
netconf() {
	jq -n --argjson x "$2" '{cniVersion: "1.1.0", name: "dranet", type: "rdmanet",
		ippools: {ipv4: ["dra-v4"]}, gatewayCheck: false, ipConflictCheck: false} + $x' >"$1"
}
# cni CMD CONF CID NETNS CNI_ARGS: the plugin as the runtime runs it
cni() {
	rn_in_node env -i CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_IFNAME=net1 CNI_NETNS="$4" \
		CNI_PATH=/usr/lib/cni CNI_ARGS="$5" RDMANET_CONFIG="$CONFIG" \
		${CNI_WRAP:-} "$RN_BUILD/bin/rdmanet" <"$2" >"$RN_TMP/out.json" 2>"$RN_TMP/err.log"
}
answer() { jq -c '[.code, .msg]' "$RN_TMP/out.json" 2>/dev/null; }
args() { echo "IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$1${2:+;K8S_POD_UID=$2}"; }
# nothing of an attachment left: no link in the pod but lo, no record, no address
records() { find "$DRA_HOLDS" -path "$DRA_HOLDS/sriov" -prune -o -type f -name '*.json' -print | wc -l; }
left() {
	echo "links=$(ip -n "$RN_PFX-$1" -o link show | grep -vc ': lo:') records=$(records)" \
		"addresses=$(rn_in_node "$RN_BUILD/bin/rdmanetctl" -c "$CONFIG" -j ip show \
			     --container-id "c-$1" --ifname net1 2>/dev/null | jq '.allocations | length')"
}
NOTHING="links=0 records=0 addresses=0"

# --- a shared HCA port: a macvlan on the port's netdev ------------------------------
ns1=$(pod p1)
netconf "$RN_TMP/nic.json" '{"dra": {"request": "nic"}}'
cni ADD "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD1)"
check_eq "HCA port claim: ADD succeeds" "$?" 0
check_eq "... a macvlan child of the port's netdev ens1f0np0 in the pod" \
	"$(ip -n "$RN_PFX-p1" -d -j link show net1 | jq -r '.[0] | [.linkinfo.info_kind,
	   (.link_index as $i | $i | tostring)] | .[0]')/$(ip -n "$RN_NODE" -j link show ens1f0np0 |
	   jq -r '.[0].ifindex')" \
	"macvlan/$(ip -n "$RN_PFX-p1" -j link show net1 | jq -r '.[0].link_index')"
check_eq "... addressed from the network's pool" \
	"$(jq -r '.ips[0].address' "$RN_TMP/out.json" 2>/dev/null | cut -d. -f1-3)" "10.78.0"
jq --slurpfile r "$RN_TMP/out.json" '. + {prevResult: $r[0]}' "$RN_TMP/nic.json" >"$RN_TMP/nic.check"
cni CHECK "$RN_TMP/nic.check" c-p1 "$ns1" "$(args p1 $POD1)"
check_eq "... CHECK finds it as ADD made it (the master from the claim again)" "$?" 0
cni DEL "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD1)"
check_eq "... DEL" "$?" 0
check_eq "... and nothing left" "$(left p1)" "$NOTHING"
check_eq "... the claim stays prepared" "$(jq -c ".claims | has(\"$U1\")" "$DRA_STATE/prepared.json")" true

# --- a claim two pods share: kubelet prepares it again for the second ------------------
POD3=a3a3a3a3-0000-4000-8000-000000000003
ns3=$(pod p3)
dra_claim default pod1-nic $U1 "[$(dra_result nic mlx5-0-port1)]" "$POD1 $POD3"
cni ADD "$RN_TMP/nic.json" c-p3 "$ns3" "$(args p3 $POD3)"
check "a second pod of a shared claim, before kubelet prepared it for that pod: not found" \
	grep -q "pod $POD3: no claim prepared on this node is reserved for it" <<<"$(answer)"
out=$(dra_prepare v1.DRAPlugin default/pod1-nic/$U1)
check_eq "... prepared again for it: the same answer" "$(jq -c "[.grpc_error, .claims[\"$U1\"].error]" <<<"$out")" '[null,""]'
check_eq "... the record lists both pods now" \
	"$(jq -c ".claims[\"$U1\"].pods" "$DRA_STATE/prepared.json")" "[\"$POD1\",\"$POD3\"]"
cni ADD "$RN_TMP/nic.json" c-p3 "$ns3" "$(args p3 $POD3)"
check_eq "... and the second pod attaches on the same port" \
	"$?/$(ip -n "$RN_PFX-p3" -j link show net1 2>/dev/null | jq -r '.[0].link_index')" \
	"0/$(ip -n "$RN_NODE" -j link show ens1f0np0 | jq -r '.[0].ifindex')"
cni DEL "$RN_TMP/nic.json" c-p3 "$ns3" "$(args p3 $POD3)"
check_eq "... DEL: nothing left" "$(left p3)" "$NOTHING"
U5=c5c5c5c5-5555-4555-8555-555555555555
dra_claim default badres $U5 "[$(dra_result nic mlx5-1-port1)]" "$POD3"
jq '.status.reservedFor[0] |= del(.uid)' "$DRA_CLAIMS/default/badres.json" >"$RN_TMP/badres.json" &&
	mv "$RN_TMP/badres.json" "$DRA_CLAIMS/default/badres.json"
out=$(dra_prepare v1.DRAPlugin default/badres/$U5)
check "a claim whose reservedFor entry has no uid: refused, naming it" \
	grep -q 'status.reservedFor\[0\].uid: missing' <<<"$(jq -r ".claims[\"$U5\"].error" <<<"$out")"

netconf "$RN_TMP/nic-master.json" '{"dra": {"request": "nic"}, "master": "roce0"}'
cni ADD "$RN_TMP/nic-master.json" c-p1 "$ns1" "$(args p1 $POD1)"
check "a master in the config other than the port's netdev: refused, naming both" \
	grep -q '^\[7,"config: master \\"roce0\\": the pod.s claim default/pod1-nic got HCA port mlx5-0-port1, whose netdev is ens1f0np0"\]$' <<<"$(answer)"
check_eq "... nothing left" "$(left p1)" "$NOTHING"
netconf "$RN_TMP/nic-sriov.json" '{"dra": {"request": "nic"}, "mode": "sriov"}'
cni ADD "$RN_TMP/nic-sriov.json" c-p1 "$ns1" "$(args p1 $POD1)"
check "mode sriov for a claim that got an HCA port: refused" \
	grep -q '^\[7,"config: mode \\"sriov\\": the pod.s claim default/pod1-nic got HCA port' <<<"$(answer)"

# --- the pod, its claim and the request: each missing one a clear error ---------------
cni ADD "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1)"
check "no K8S_POD_UID in CNI_ARGS: code 4, naming it" \
	grep -q '^\[4,"CNI_ARGS: K8S_POD_UID: required with \\"dra\\"' <<<"$(answer)"
check_eq "... nothing left" "$(left p1)" "$NOTHING"
cni ADD "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD9)"
check "a pod with no prepared claim (same name as the claim's pod, another UID): code 7" \
	grep -q "^\[7,\"dra.request \\\\\"nic\\\\\": pod $POD9: no claim prepared on this node is reserved for it\"\]$" <<<"$(answer)"
check_eq "... nothing left" "$(left p1)" "$NOTHING"
netconf "$RN_TMP/gpu.json" '{"dra": {"request": "gpu"}}'
cni ADD "$RN_TMP/gpu.json" c-p1 "$ns1" "$(args p1 $POD1)"
check "an unknown request name: code 7, naming the requests the claims have" \
	grep -q "^\[7,\"dra.request \\\\\"gpu\\\\\": pod $POD1: its prepared claims have no request \\\\\"gpu\\\\\" (they have \\\\\"nic\\\\\")\"\]$" <<<"$(answer)"
check_eq "... nothing left" "$(left p1)" "$NOTHING"
for bad in '"nic"' '{}' '{"request": ""}' '{"request": "NIC"}' '{"request": "nic", "pool": "x"}'; do
	netconf "$RN_TMP/bad.json" "{\"dra\": $bad}"
	cni ADD "$RN_TMP/bad.json" c-p1 "$ns1" "$(args p1 $POD1)"
	check "\"dra\": $bad: refused as a config error (code 7, naming dra)" \
		grep -q '^\[7,"config: dra' <<<"$(answer)"
done
check_eq "... nothing left" "$(left p1)" "$NOTHING"

# --- a VF: exclusive mode with the claim's VF, under the claim's hold ------------------
ns2=$(pod p2)
cni ADD "$RN_TMP/nic.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "VF claim: ADD takes the exclusive path with VF 0000:3b:00.2, the claim's hold accepted (here it stops at the PF's VF settings: no SR-IOV device)" \
	grep -q '^\[108,"VF settings: ens1f0np0: no VF 0 in IFLA_VFINFO_LIST' <<<"$(answer)"
check "... the hold as the driver wrote it" cmp -s "$HOLD" "$RN_TMP/hold.prepared"
check_eq "... nothing left" "$(left p2)" "$NOTHING"
check_eq "... the VF's netdev still in the host" "$(ip -n "$RN_NODE" -o link show ens1f0v0 | wc -l)" 1
netconf "$RN_TMP/vf-plain.json" '{"mode": "sriov", "deviceID": "0000:3b:00.2"}'
cni ADD "$RN_TMP/vf-plain.json" c-p9 "$ns2" "$(args p9 $POD9)"
check "a pod without the claim asking for its VF by deviceID: refused, naming the claim" \
	grep -q "^\[102,\"deviceID 0000:3b:00.2: VF held for DRA claim $U2 (default/pod2-vf), not this pod's (no \\\\\"dra\\\\\" in the config)\"\]$" <<<"$(answer)"
check "... the hold untouched" cmp -s "$HOLD" "$RN_TMP/hold.prepared"
netconf "$RN_TMP/vf-dev.json" '{"dra": {"request": "nic"}, "mode": "sriov", "deviceID": "0000:3b:00.4"}'
cni ADD "$RN_TMP/vf-dev.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "a deviceID other than the claim's VF: refused, naming both" \
	grep -q '^\[7,"config: deviceID 0000:3b:00.4: the pod.s claim default/pod2-vf got VF 0000:3b:00.2"\]$' <<<"$(answer)"
netconf "$RN_TMP/vf-macvlan.json" '{"dra": {"request": "nic"}, "mode": "macvlan"}'
cni ADD "$RN_TMP/vf-macvlan.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "mode macvlan for a claim that got a VF: refused" \
	grep -q '^\[7,"config: mode \\"macvlan\\": the pod.s claim default/pod2-vf got VF 0000:3b:00.2' <<<"$(answer)"
check_eq "... nothing left" "$(left p2)" "$NOTHING"

# --- the claim's VF given back from a pod: to the claim, not to the node -----------------
# the hold as the CNI's ADD leaves it for the claim's pod (the pod's netns
# alive; the VF's netdev in the host: this host cannot move a VF)
jq --arg ns "$ns2" '. + {network: "dranet", container_id: "c-p2", ifname: "net1", netns: $ns,
	 pod_namespace: "default", pod_name: "p2", complete: true}' "$RN_TMP/hold.prepared" >"$HOLD"
cni DEL "$RN_TMP/nic.json" c-p2 "$ns2" "$(args p2 $POD2)"
check_eq "DEL of the claim's VF: done" "$?" 0
check_eq "... the VF held for the claim again, in no pod (DEL does not free it)" \
	"$(jq -c '[.claim_uid, .container_id, .netns, .pci]' "$HOLD" 2>/dev/null)" \
	"[\"$U2\",\"\",\"\",\"0000:3b:00.2\"]"
check_eq "... exactly the hold the driver wrote (the claim's names and network, not the pod's)" \
	"$(jq -cS 'del(.since)' "$HOLD" 2>/dev/null)" "$(jq -cS 'del(.since)' "$RN_TMP/hold.prepared")"

# an ADD of the claim's pod killed midway left its hold: the retried ADD
# gives the VF back to the claim and takes it again
cp "$HOLD" "$RN_TMP/hold.claim"
jq --arg ns "$ns2" '. + {network: "dranet", container_id: "c-p2", ifname: "net1", netns: $ns,
	 pod_namespace: "default", pod_name: "p2"}' "$RN_TMP/hold.claim" >"$HOLD"
cni ADD "$RN_TMP/nic.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "the claim's pod's ADD again after one killed midway: its leftover given back, the VF taken again" \
	grep -q '^\[108,"VF settings: ens1f0np0: no VF 0 in IFLA_VFINFO_LIST' <<<"$(answer)"
check_eq "... the hold the claim's, in no pod" \
	"$(jq -c '[.claim_uid, .container_id, .netns]' "$HOLD" 2>/dev/null)" "[\"$U2\",\"\",\"\"]"
check_eq "... nothing left" "$(left p2)" "$NOTHING"
# the hold as the CNI's ADD leaves it for the claim's pod, whose netns is
# gone now (the VF's netdev back in the host): the agent's leak sweep gives
# the VF back, through the restore DEL uses (rn_sriov_restore_host)
jq '. + {network: "dranet", container_id: "c-p2", ifname: "net1", netns: "/run/netns/gone-p2",
	 pod_namespace: "default", pod_name: "p2", complete: true}' "$RN_TMP/hold.prepared" >"$HOLD"
for _ in $(seq 100); do
	[ "$(jq -r .container_id "$HOLD" 2>/dev/null)" = "" ] && break
	sleep 0.1
done
check_eq "a claim's VF back from a pod that is gone: held for the claim again, in no pod" \
	"$(jq -c '[.claim_uid, .container_id, .netns, .pci]' "$HOLD" 2>/dev/null)" \
	"[\"$U2\",\"\",\"\",\"0000:3b:00.2\"]"
check "... the sweep said so" grep -q "sriov sweep: VF 0000:3b:00.2 .* restored as ens1f0v0" "$RN_TMP/agent.log"
cni ADD "$RN_TMP/vf-plain.json" c-p9 "$ns2" "$(args p9 $POD9)"
check "... still refused to a pod without the claim" \
	grep -q "VF held for DRA claim $U2" <<<"$(answer)"
cni ADD "$RN_TMP/nic.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "... and taken again by the claim's pod" \
	grep -q '^\[108,"VF settings: ens1f0np0: no VF 0 in IFLA_VFINFO_LIST' <<<"$(answer)"
# unprepared while a pod still has the VF: the hold becomes the pod's alone
jq --arg ns "$ns2" '. + {container_id: "c-p2", ifname: "net1", netns: $ns, complete: true}' \
	"$HOLD" >"$HOLD.tmp" && mv "$HOLD.tmp" "$HOLD"
out=$(dra_unprepare v1.DRAPlugin default/pod2-vf/$U2)
check_eq "unprepare while the VF is in the pod: done" "$(jq -c "[.grpc_error, .claims[\"$U2\"].error]" <<<"$out")" '[null,""]'
check_eq "... the pod's hold stays, no longer the claim's (DEL gives the VF to the node)" \
	"$(jq -c '[.claim_uid // "", .container_id]' "$HOLD" 2>/dev/null)" '["","c-p2"]'
cni DEL "$RN_TMP/nic.json" c-p2 "$ns2" "$(args p2 $POD2)"
check "... and DEL then frees the VF" test ! -e "$HOLD"

# --- a state file of an older agent (no pods, no device kinds): read, found by no pod -------
rn_agent_stop
jq '.claims[] |= (del(.pods) | .devices[] |= del(.kind, .pci, .netdev))' \
	"$DRA_STATE/prepared.json" >"$RN_TMP/old.json" && cp "$RN_TMP/old.json" "$DRA_STATE/prepared.json"
cni ADD "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD1)"
check "an older agent's record (no pods): the pod's claim is not found, clearly" \
	grep -q "pod $POD1: no claim prepared on this node is reserved for it" <<<"$(answer)"
check "... and the agent reads that file" rn_agent_start "$CONFIG"
for _ in $(seq 100); do [ -S "$DRA_SOCK" ] && break; sleep 0.1; done
out=$(dra_prepare v1.DRAPlugin default/pod1-nic/$U1)
check_eq "... kubelet prepares the claim again: its record gets the pods and what the device is" \
	"$(jq -c "[.claims[\"$U1\"] | .pods, (.devices[0] | [.kind, .netdev])]" "$DRA_STATE/prepared.json")" \
	"[[\"$POD1\",\"$POD3\"],[\"port\",\"ens1f0np0\"]]"
cni ADD "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD1)"
check_eq "... and the pod attaches from it" "$?" 0
cni DEL "$RN_TMP/nic.json" c-p1 "$ns1" "$(args p1 $POD1)"
check_eq "... DEL: nothing left" "$(left p1)" "$NOTHING"
out=$(dra_unprepare v1.DRAPlugin default/pod1-nic/$U1)
check_eq "... and unprepares its claim" "$(jq -c "[.grpc_error, .claims[\"$U1\"].error]" <<<"$out")" '[null,""]'
tap_done
