#!/bin/bash
# A claim's opaque configuration (status.allocation.devices.config, the
# entries of rdmanet's driver: an rdma.rdmanet.io/v1alpha1 NetworkConfig
# with mode, ipvlanMode, ippools, dscp) reaches the pod through the
# prepared record: the driver prepares the claims through the kubelet
# stand-in on the ConnectX-5 fixture cx5_sriov (HCA port mlx5-0-port1,
# netdev ens1f0np0, a veth in the node netns), the scheduler stand-in
# writes each claim with its allocation's config, and the CNI plugin
# attaches the pod from it. A class entry is overridden by a claim entry;
# the claim's pools replace the network's; its DSCP is the pod's; a bad
# config fails the claim's prepare with nothing left. No real kubelet, API
# server or scheduler runs.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
trap 'rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
dra_fixture_netdevs
CONFIG=$RN_TMP/config.json
pool() { echo "{ \"name\": \"$1\", \"subnet\": \"$2\", \"ips\": [\"$3\"], \"masters\": [\"roce0\", \"ens1f0np0\"] }"; }
dra_config "$CONFIG" "" "\"ipam\": { \"store\": \"sqlite\", \"path\": \"$RN_TMP/ipam.db\" },
  \"pools\": [ $(pool net-v4 10.78.0.0/24 10.78.0.10-10.78.0.39),
               $(pool class-v4 10.77.0.0/24 10.77.0.10-10.77.0.39),
               $(pool claim-v4 10.79.0.0/24 10.79.0.10-10.79.0.39),
               $(pool claim-v6 fd00:79::/64 fd00:79::10-fd00:79::39) ]"
# the port's netdev a master of the agent: a pod on it is registered with its DSCP
jq '.masters += [{ifname: "ens1f0np0", policy: "monitor"}]' "$CONFIG" >"$CONFIG.tmp" && mv "$CONFIG.tmp" "$CONFIG"
check "agent starts with the dra section and four pools" rn_agent_start "$CONFIG"

PARAMS='{"apiVersion": "rdma.rdmanet.io/v1alpha1", "kind": "NetworkConfig"}'
# entry SOURCE PARAMS_JSON [REQUESTS_JSON]: one config entry of rdmanet's driver
entry() {
	jq -nc --arg s "$1" --argjson p "$PARAMS" --argjson x "$2" --argjson r "${3:-[]}" \
		'{source: $s, requests: $r, opaque: {driver: "rdma.rdmanet.io", parameters: ($p + $x)}}'
}
# claim N POD CONFIG_JSON [DEVICE]: claim cN (UID ...N), DEVICE (HCA port
# mlx5-0-port1) for request nic, reserved for POD, with that allocation config
claim() {
	local u=c0c0c0c0-0000-4000-8000-00000000000$1 f=$DRA_CLAIMS/default/c$1.json
	dra_claim default "c$1" "$u" "[$(dra_result nic "${4:-mlx5-0-port1}")]" "$2"
	jq --argjson c "$3" '.status.allocation.devices.config = $c' "$f" >"$f.tmp" && mv "$f.tmp" "$f"
	echo "$u"
}
prepared() { dra_prepare v1.DRAPlugin "default/c$1/$2" | jq -r ".claims[\"$2\"].error"; }
pod() {
	ip netns add "$RN_PFX-$1" && ip -n "$RN_PFX-$1" link set lo up
	echo "/run/netns/$RN_PFX-$1"
}
netconf() {
	jq -n --argjson x "$2" '{cniVersion: "1.1.0", name: "dranet", type: "rdmanet",
		ippools: {ipv4: ["net-v4"]}, dra: {request: "nic"}, gatewayCheck: false,
		ipConflictCheck: false} + $x' >"$1"
}
cni() {
	rn_in_node env -i CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_IFNAME=net1 CNI_NETNS="$4" \
		CNI_PATH=/usr/lib/cni RDMANET_CONFIG="$CONFIG" \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$5;K8S_POD_UID=$6" \
		"$RN_BUILD/bin/rdmanet" <"$2" >"$RN_TMP/out.json" 2>"$RN_TMP/err.log"
}
answer() { jq -c '[.code, .msg]' "$RN_TMP/out.json" 2>/dev/null; }
# the pod's addresses on net1, as the kernel has them
addrs() { ip -n "$RN_PFX-$1" -j addr show net1 2>/dev/null | jq -c '[.[0].addr_info[] | select(.scope == "global") | .local]'; }
link_kind() { ip -n "$RN_PFX-$1" -d -j link show net1 2>/dev/null | jq -r '.[0].linkinfo | [.info_kind, (.info_data.mode // "")] | join(" ")'; }
pod_dscp() { rn_ctl -j stats 2>/dev/null | jq -c --arg c "$1" '[.pods[] | select(.container_id == $c) | .dscp]'; }
left() {
	echo "links=$(ip -n "$RN_PFX-$1" -o link show | grep -vc ': lo:')" \
		"addresses=$(rn_in_node "$RN_BUILD/bin/rdmanetctl" -c "$CONFIG" -j ip show \
			     --container-id "c-$1" --ifname net1 2>/dev/null | jq '.allocations | length')"
}
NOTHING="links=0 addresses=0"
netconf "$RN_TMP/net.json" '{}'

# --- the claim's pools replace the network's -----------------------------------------
P1=a1000000-0000-4000-8000-000000000001
U1=$(claim 1 $P1 "[$(entry FromClaim '{"ippools": {"ipv4": ["claim-v4"]}}')]")
check_eq "a claim whose config names pool claim-v4: prepared" "$(prepared 1 "$U1")" ""
check_eq "... the record has the device's effective config" \
	"$(jq -c ".claims[\"$U1\"].devices[0].config" "$DRA_STATE/prepared.json")" '{"ippools":{"ipv4":["claim-v4"]}}'
ns=$(pod p1)
cni ADD "$RN_TMP/net.json" c-p1 "$ns" p1 $P1
check_eq "... ADD with a network whose pool is net-v4: done" "$(answer)" "[null,null]"
check "... the pod's address is from claim-v4 (10.79.0.0/24), not the network's" \
	grep -q '^\["10\.79\.0\.[0-9]*"\]$' <<<"$(addrs p1)"
jq --slurpfile r "$RN_TMP/out.json" '. + {prevResult: $r[0]}' "$RN_TMP/net.json" >"$RN_TMP/net.check"
cni CHECK "$RN_TMP/net.check" c-p1 "$ns" p1 $P1
check_eq "... CHECK finds it as ADD made it (the claim's pool again)" "$?" 0
cni DEL "$RN_TMP/net.json" c-p1 "$ns" p1 $P1
check_eq "... DEL: nothing left" "$(left p1)" "$NOTHING"

# --- class config, overridden by the claim's; DSCP ------------------------------------
P2=a2000000-0000-4000-8000-000000000002
U2=$(claim 2 $P2 "[$(entry FromClaim '{"ippools": {"ipv4": ["claim-v4"]}}'),
	$(entry FromClass '{"mode": "macvlan", "dscp": 26, "ippools": {"ipv4": ["class-v4"]}}')]")
check_eq "a claim with a class entry and a claim entry (listed first): prepared" "$(prepared 2 "$U2")" ""
check_eq "... recorded merged: the claim's pools, the class's mode and DSCP" \
	"$(jq -c ".claims[\"$U2\"].devices[0].config" "$DRA_STATE/prepared.json")" \
	'{"dscp":26,"ippools":{"ipv4":["claim-v4"]},"mode":"macvlan"}'
ns=$(pod p2)
cni ADD "$RN_TMP/net.json" c-p2 "$ns" p2 $P2
check_eq "... ADD: done" "$(answer)" "[null,null]"
check "... addressed from claim-v4, not the class's class-v4" grep -q '^\["10\.79\.0\.[0-9]*"\]$' <<<"$(addrs p2)"
check_eq "... the pod's RoCE traffic is marked with the class's DSCP 26 (as a network's dscp does)" \
	"$(pod_dscp c-p2)" "[26]"
cni DEL "$RN_TMP/net.json" c-p2 "$ns" p2 $P2
check_eq "... DEL: nothing left" "$(left p2)" "$NOTHING"

# --- mode ipvlan from the claim, over the class's macvlan ------------------------------
P7=a7000000-0000-4000-8000-000000000007
U7=$(claim 7 $P7 "[$(entry FromClass '{"mode": "macvlan", "ipvlanMode": "l2"}'),
	$(entry FromClaim '{"mode": "ipvlan", "ipvlanMode": "l3"}' '["nic"]')]")
check_eq "a claim whose entry says ipvlan l3 over its class's macvlan: prepared" "$(prepared 7 "$U7")" ""
ns=$(pod p7)
cni ADD "$RN_TMP/net.json" c-p7 "$ns" p7 $P7
if rn_in_node ip link add rnipvprobe link ens1f0np0 type ipvlan 2>/dev/null; then
	rn_in_node ip link del rnipvprobe
	check_eq "... an ipvlan in mode l3, not the network's default macvlan" \
		"$(answer)/$(link_kind p7)" "[null,null]/ipvlan l3"
else
	# this kernel has no ipvlan (the VM's test_cni_ipvlan has): the
	# network's default, macvlan, would be made; the claim's ipvlan is not
	check_eq "... ADD makes an ipvlan, not the network's default macvlan (no ipvlan in this kernel: refused by it)" \
		"$(jq -c '[.code, (.msg | test("create ipvlan child"))]' "$RN_TMP/out.json")" '[108,true]'
fi
cni DEL "$RN_TMP/net.json" c-p7 "$ns" p7 $P7
check_eq "... DEL: nothing left" "$(left p7)" "$NOTHING"

# --- the network config and the claim's config disagree, or name what is not there -----
P3=a3000000-0000-4000-8000-000000000003
U3=$(claim 3 $P3 "[$(entry FromClaim '{"mode": "ipvlan"}')]")
check_eq "a claim configuring mode ipvlan: prepared" "$(prepared 3 "$U3")" ""
ns=$(pod p3)
netconf "$RN_TMP/macvlan.json" '{"mode": "macvlan"}'
cni ADD "$RN_TMP/macvlan.json" c-p3 "$ns" p3 $P3
check_eq "... a network config saying mode macvlan: refused, naming both" "$(answer)" \
	'[7,"config: mode \"macvlan\": the pod'"'"'s claim default/c3 configures mode \"ipvlan\""]'
check_eq "... nothing left" "$(left p3)" "$NOTHING"
netconf "$RN_TMP/nopools.json" '{}'
jq 'del(.ippools)' "$RN_TMP/nopools.json" >"$RN_TMP/nopools.tmp" && mv "$RN_TMP/nopools.tmp" "$RN_TMP/nopools.json"
cni ADD "$RN_TMP/nopools.json" c-p3 "$ns" p3 $P3
check_eq "... a network without ippools and a claim naming none: refused" "$(answer)" \
	'[7,"config: ippools: required: neither the network config nor the pod'"'"'s claim default/c3 names a pool"]'

P4=a4000000-0000-4000-8000-000000000004
U4=$(claim 4 $P4 "[$(entry FromClaim '{"ippools": {"ipv4": ["nowhere-v4"]}}')]")
check_eq "a claim naming a pool this node does not have: prepared (pools are the node's CNI's business)" \
	"$(prepared 4 "$U4")" ""
ns=$(pod p4)
cni ADD "$RN_TMP/net.json" c-p4 "$ns" p4 $P4
check_eq "... ADD refused, naming the claim and the pool" "$(answer)" \
	'[7,"the pod'"'"'s claim default/c4: ippools.ipv4: pool \"nowhere-v4\" does not exist on this node"]'
check_eq "... nothing left" "$(left p4)" "$NOTHING"
P5=a5000000-0000-4000-8000-000000000005
U5=$(claim 5 $P5 "[$(entry FromClaim '{"ippools": {"ipv4": ["claim-v6"]}}')]")
prepared 5 "$U5" >/dev/null
ns=$(pod p5)
cni ADD "$RN_TMP/net.json" c-p5 "$ns" p5 $P5
check_eq "an IPv6 pool in the claim's ipv4 list: refused" "$(answer)" \
	'[7,"the pod'"'"'s claim default/c5: ippools.ipv4: pool \"claim-v6\" is an IPv6 pool"]'
P6=a6000000-0000-4000-8000-000000000006
U6=$(claim 6 $P6 "[$(entry FromClaim '{"dscp": 34, "ippools": {"ipv6": ["claim-v6"]}}')]")
prepared 6 "$U6" >/dev/null
ns=$(pod p6)
cni ADD "$RN_TMP/nopools.json" c-p6 "$ns" p6 $P6
check "a claim's DSCP 34, not in the node's allowed set: refused as a network's is, naming the claim" \
	grep -q '^\[7,"the pod.s claim default/c6: config: dscp: 34 is not allowed on this node' <<<"$(answer)"
check_eq "... nothing left" "$(left p6)" "$NOTHING"
jq '.status.allocation.devices.config[0].opaque.parameters.dscp = 26' "$DRA_CLAIMS/default/c6.json" >"$RN_TMP/c6" &&
	mv "$RN_TMP/c6" "$DRA_CLAIMS/default/c6.json"
dra_unprepare v1.DRAPlugin "default/c6/$U6" >/dev/null
check_eq "the same claim with DSCP 26, prepared again: done" "$(prepared 6 "$U6")" ""
cni ADD "$RN_TMP/nopools.json" c-p6 "$ns" p6 $P6
check_eq "... a network config without ippools: the claim's IPv6 pool addresses the pod" \
	"$(answer)/$(addrs p6 | jq -r '.[0]' | cut -d: -f1-2)" "[null,null]/fd00:79"
cni DEL "$RN_TMP/nopools.json" c-p6 "$ns" p6 $P6
check_eq "... DEL: nothing left" "$(left p6)" "$NOTHING"

# --- a bad config: that claim's prepare fails, nothing of it left ----------------------
bad() {
	local u
	u=$(claim 9 a9000000-0000-4000-8000-000000000009 "$1")
	rm -f "$RN_TMP/good.out"
	dra_prepare v1.DRAPlugin "default/c9/$u" "default/c1/$U1" >"$RN_TMP/prep.out"
	check "$2: refused, naming the entry and key" \
		grep -qF "$3" <<<"$(jq -r ".claims[\"$u\"].error" "$RN_TMP/prep.out")"
	check_eq "... nothing recorded, no CDI spec; the other claim of the call answered" \
		"$(jq -c ".claims | has(\"$u\")" "$DRA_STATE/prepared.json")/$(test -e "$(dra_spec "$u")" && echo spec)/$(jq -r ".claims[\"$U1\"].error" "$RN_TMP/prep.out")" \
		"false//"
}
bad "[$(entry FromClaim '{"pools": ["claim-v4"]}')]" "an unknown key" \
	'status.allocation.devices.config[0].opaque.parameters: unknown key "pools" (a FromClaim entry of driver rdma.rdmanet.io)'
bad "[$(entry FromClass '{"dscp": "26"}')]" "a DSCP of the wrong type" \
	'config[0].opaque.parameters.dscp: expected an integer'
bad "[$(entry FromClaim '{}'), $(entry FromClaim '{"mode": "sriov"}' '["gpu"]')]" \
	"a bad entry for another request" 'config[1].opaque.parameters.mode: expected one of'
bad "[$(jq -c '.opaque.parameters.apiVersion = "rdma.rdmanet.io/v2"' <<<"$(entry FromClaim '{}')")]" \
	"an unknown apiVersion" 'parameters.apiVersion: expected "rdma.rdmanet.io/v1alpha1"'
bad "[$(jq -c '.source = "FromPod"' <<<"$(entry FromClaim '{}')")]" "source FromPod" \
	'status.allocation.devices.config[0].source: expected one of'
# a mode for a VF (exclusive mode has no child link): refused before the VF is held
U8=$(claim 8 a8000000-0000-4000-8000-000000000008 "[$(entry FromClass '{"mode": "macvlan"}')]" vf-0000-3b-00-2)
check_eq "a VF claim whose class config says mode macvlan: refused, naming the device and mode" \
	"$(prepared 8 "$U8")" \
	'claim default/c8: device vf-0000-3b-00-2 of request nic is a VF (exclusive): its config'"'"'s mode "macvlan" is for an HCA port'"'"'s child link'
check_eq "... the VF not held, nothing recorded, no CDI spec" \
	"$(test -e "$DRA_HOLDS/sriov/0000:3b:00.2.json" && echo held)/$(jq -c ".claims | has(\"$U8\")" "$DRA_STATE/prepared.json")/$(test -e "$(dra_spec "$U8")" && echo spec)" \
	"/false/"
U8B=$(claim 8 a8000000-0000-4000-8000-000000000008 "[$(entry FromClass '{"dscp": 26}')]" vf-0000-3b-00-2)
check_eq "... the same VF claim with a DSCP only: prepared, the VF held" \
	"$(prepared 8 "$U8B")/$(test -e "$DRA_HOLDS/sriov/0000:3b:00.2.json" && echo held)" "/held"
dra_unprepare v1.DRAPlugin "default/c8/$U8B" >/dev/null
tap_done
