#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two rails for real: rdmanetd on two veth masters (policy enforce), a pod
# with one rdmanet interface on each, attached through the plugin with its
# checks on. Traffic from each interface leaves through its own master (the
# agent's per-master counts), also towards the other rail's subnet; replies
# come back; the pod's main default route never moves; CHECK sees the whole
# attachment including its registration; a gateway that does not answer
# fails the ADD cleanly; an address in use on the wire is detected and not
# used (IPv4 and IPv6).
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_CONFIG" enforce \
	'{ "name": "deadgw", "subnet": "10.81.0.0/24", "ips": ["10.81.0.50-10.81.0.59"],
	   "gateway": "10.81.0.253", "masters": ["ra0"] },
	 { "name": "squat4", "subnet": "10.81.0.0/24", "ips": ["10.81.0.60-10.81.0.61"],
	   "gateway": "10.81.0.254", "masters": ["ra0"] },
	 { "name": "squat6", "subnet": "fd81::/64", "ips": ["fd81::60-fd81::61"],
	   "gateway": "fd81::254", "masters": ["ra0"] },
	 { "name": "railC-v4", "subnet": "10.83.0.0/24", "masters": ["rc0"] }'
# a third NIC that rdmanetd does not manage
ip -n "$CNI_NODE" link add rc0 type veth peer name wc0 netns "$CNI_FABRIC"
ip -n "$CNI_NODE" link set rc0 up
ip -n "$CNI_FABRIC" link set wc0 up
check "rdmanetd attaches to both rails" cni_agent_start "$CNI_CONFIG"

# what a NetworkAttachmentDefinition per rail carries (checks left at their defaults)
cni_netconf "$CNI_TMP/rail1.json" 1.1.0 rail1 \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"], "ipv6": ["railA-v6"]}}'
cni_netconf "$CNI_TMP/rail2.json" 1.1.0 rail2 \
	'{"master": "rb0", "ippools": {"ipv4": ["railB-v4"]}, "dscp": 34}'

ns=$(cni_pod_up p)
default0=$(ip -n "$CNI_PFX-p" -j route show default)
cni_run ADD "$CNI_TMP/rail1.json" c-p net1 "$ns" "K8S_POD_NAMESPACE=team;K8S_POD_NAME=trainer"
cni_check_ok "ADD rail 1 (net1 on ra0, dual stack, conflict and gateway checks on)"
cp "$CNI_OUT" "$CNI_TMP/r1.result"
cni_run ADD "$CNI_TMP/rail2.json" c-p net2 "$ns" "K8S_POD_NAMESPACE=team;K8S_POD_NAME=trainer"
cni_check_ok "ADD rail 2 (net2 on rb0)"
cp "$CNI_OUT" "$CNI_TMP/r2.result"
A=$(jq -r '.ips[0].address | sub("/.*"; "")' "$CNI_TMP/r1.result")
A6=$(jq -r '.ips[1].address | sub("/.*"; "")' "$CNI_TMP/r1.result")
B=$(jq -r '.ips[0].address | sub("/.*"; "")' "$CNI_TMP/r2.result")
tap_diag "net1 $A $A6, net2 $B"
check_eq "the pod's main default route is untouched" \
	"$(ip -n "$CNI_PFX-p" -j route show default)" "$default0"
check_eq "one table per interface: rules from net1 -> 100, net2 -> 101" \
	"$(ip -n "$CNI_PFX-p" -j -4 rule show | jq -c '[.[] | select(.src != "all") | [.src, .table]]')" \
	"[[\"$A\",\"100\"],[\"$B\",\"101\"]]"
check_eq "rail 2's pool route went into its table, not the main one" \
	"$(ip -n "$CNI_PFX-p" -j route show 10.90.0.0/24 table all | jq -c '[.[] | [.table, .gateway]]')" \
	'[["101","10.82.0.254"]]'
check_eq "from net1's address, rail 2's subnet is reached through rail 1's gateway" \
	"$(ip -n "$CNI_PFX-p" -j route get 10.82.0.77 from "$A" | jq -r '.[0] | "\(.dev) \(.gateway)"')" \
	"net1 10.81.0.254"

reg() { cni_ctl -j pod show | jq -r --arg i "$1" ".[] | select(.ifname == \$i) | $2"; }
check_eq "registered: net1 on ra0 with its MAC and both addresses" \
	"$(reg net1 '"\(.namespace)/\(.pod) \(.master) \(.mac) \(.ips | join(","))"')" \
	"team/trainer ra0 $(ip -n "$CNI_PFX-p" -j link show net1 | jq -r '.[0].address') $A,$A6"
check_eq "registered: net2 on rb0 with the attachment's DSCP 34" \
	"$(reg net2 '"\(.master) \(.ips | join(",")) \(.dscp)"')" "rb0 $B 34"

# --- each interface leaves through its own master ------------------------------------
cni_in fabric ip neigh flush all
tx() { cni_ctl -j stats --master "$1" | jq --arg i "$2" "[.pods[] | select(.ifname == \$i) | $3] | add // 0"; }
drops() { cni_ctl -j stats | jq '[.pods[].drops.spoofed_source] | add'; }
# mgrew MASTER PATH: how much the master's counter at PATH grew between the
# snapshots before and after the traffic; nothing (a failed check) if PATH
# is not a number there, so a misspelt path cannot pass as 0
mgrew() {
	jq -n --slurpfile a "$CNI_TMP/stats0.json" --slurpfile b "$CNI_TMP/stats1.json" --arg m "$1" \
		"def v(s): [s.masters[] | select(.ifname == \$m) | $2] |
			if length == 1 and (.[0] | type) == \"number\" then .[0]
			else error(\"\\(\$m): no number at $2\") end;
		 v(\$b[0]) - v(\$a[0])"
}
cni_ctl -j stats >"$CNI_TMP/stats0.json"
cni_in p "$GEN" --src "$A" --dst 10.90.0.1 --count 200 --size 256
cni_in p "$GEN" --src "$B" --dst 10.90.0.1 --count 300 --size 256
cni_in p "$GEN" --src "$A" --dst 10.82.0.254 --count 50 --size 256
cni_in p "$GEN" --src "$A6" --dst fd90::1 --count 40 --size 256
cni_ctl -j stats >"$CNI_TMP/stats1.json"
check_eq "ra0 counted net1's 290 RoCE packets (to the remote host, rail 2's subnet, IPv6)" \
	"$(tx ra0 net1 .tx.roce.packets)" 290
check_eq "rb0 counted net2's 300" "$(tx rb0 net2 .tx.roce.packets)" 300
# a frame of net1 leaving through rb0 would not match net1's registration
# (on ra0): rb0 would count it as unknown, in its total
check_eq "nothing of net1 left through rb0: all the RoCE rb0 sent is net2's 300" \
	"$(mgrew rb0 .total.tx.roce.packets)" 300
check_eq "nothing of net2 left through ra0: all the RoCE ra0 sent is net1's 290" \
	"$(mgrew ra0 .total.tx.roce.packets)" 290
check_eq "no unregistered RoCE on either master (ra0 rb0)" \
	"$(mgrew ra0 .unknown_by_class.tx.roce.packets) $(mgrew rb0 .unknown_by_class.tx.roce.packets)" "0 0"
check_eq "enforce dropped nothing: every source matched its rail" "$(drops)" 0

# --- replies come back to the interface they answer -------------------------------
rx0=$(tx ra0 net1 .rx.other.packets)
pings() { cni_in p ping -q -c 3 -i 0.2 -W 2 "$@" >/dev/null; }
check "ping from net1's address to the host behind both rails" pings -I "$A" 10.90.0.1
check "ping from net2's address" pings -I "$B" 10.90.0.1
check "ping6 from net1's IPv6 address" pings -6 -I "$A6" fd90::1
check "net1 received the echo replies of its pings (ra0 rx)" \
	test "$(( $(tx ra0 net1 .rx.other.packets) - rx0 ))" -ge 3

# --- CHECK, including the registration ------------------------------------------
cni_with_prev "$CNI_TMP/rail1.json" "$CNI_TMP/r1.result" "$CNI_TMP/r1.prev"
cni_with_prev "$CNI_TMP/rail2.json" "$CNI_TMP/r2.result" "$CNI_TMP/r2.prev"
cni_run CHECK "$CNI_TMP/r1.prev" c-p net1 "$ns"
cni_check_ok "CHECK rail 1"
cni_run CHECK "$CNI_TMP/r2.prev" c-p net2 "$ns"
cni_check_ok "CHECK rail 2"
cni_ctl pod del --container-id c-p --ifname net2
cni_run CHECK "$CNI_TMP/r2.prev" c-p net2 "$ns"
cni_check_error 107 "CHECK notices a lost registration (107)"
ip -n "$CNI_PFX-p" link set net1 down
cni_run CHECK "$CNI_TMP/r1.prev" c-p net1 "$ns"
cni_check_error 107 "CHECK notices a link that went down (107)"
ip -n "$CNI_PFX-p" link set net1 up

cni_run DEL "$CNI_TMP/r1.prev" c-p net1 "$ns"
cni_check_ok "DEL rail 1"
cni_run DEL "$CNI_TMP/r2.prev" c-p net2 "$ns"
cni_check_ok "DEL rail 2"
check_eq "nothing of either rail left in the pod" "$(cni_pod_leftovers p)" ""
check_eq "registrations gone" "$(cni_registered c-p net1)$(cni_registered c-p net2)" 00
check_eq "addresses released" "$(cni_held c-p net1)$(cni_held c-p net2)" ""
check_eq "main default route as before" "$(ip -n "$CNI_PFX-p" -j route show default)" "$default0"

# --- a gateway that does not answer --------------------------------------------
ns=$(cni_pod_up g)
cni_netconf "$CNI_TMP/dead.json" 1.1.0 dead \
	'{"master": "ra0", "ippools": {"ipv4": ["deadgw"]}, "gatewayCheck": {"timeoutMs": 300}}'
t0=$(date +%s%N)
cni_run ADD "$CNI_TMP/dead.json" c-g net1 "$ns"
t1=$(date +%s%N)
cni_check_error 104 "ADD with a silent gateway fails with 104"
check "  naming the gateway" grep -q '10.81.0.253' "$CNI_OUT"
check_range "  after its timeout (ms)" $(( (t1 - t0) / 1000000 )) 300 3000
check_eq "  nothing left in the pod" "$(cni_pod_leftovers g)" ""
check_eq "  nothing allocated, nothing registered, no record" \
	"$(cni_held c-g net1)$(cni_registered c-g net1)$(ls "$CNI_STATE/dead" 2>/dev/null)" 0
jq '.gatewayCheck = false' "$CNI_TMP/dead.json" >"$CNI_TMP/dead-nocheck.json"
cni_run ADD "$CNI_TMP/dead-nocheck.json" c-g net1 "$ns"
cni_check_ok "the same ADD with gatewayCheck off succeeds"
cni_run DEL "$CNI_TMP/dead-nocheck.json" c-g net1 "$ns"

# --- an address already in use on the wire ----------------------------------------
cni_in fabric ip addr add 10.81.0.60/24 dev wa0
cni_in fabric ip addr add fd81::60/64 dev wa0 nodad
cni_netconf "$CNI_TMP/squat.json" 1.1.0 squat \
	'{"master": "ra0", "ippools": {"ipv4": ["squat4"], "ipv6": ["squat6"]}, "gatewayCheck": false}'
ns=$(cni_pod_up s)
cni_run ADD "$CNI_TMP/squat.json" c-s net1 "$ns"
cni_check_ok "ADD whose first address is taken succeeds"
cni_ok || tap_diag "$(cat "$CNI_OUT" "$CNI_ERR")"
check_eq "  with the next addresses, not the taken ones" \
	"$(jq -c '[.ips[].address]' "$CNI_OUT")" '["10.81.0.61/24","fd81::61/64"]'
check "  saying which address was in use and who has it" \
	grep -qE '(10\.81\.0\.60|fd81::60).* in use on the wire by' "$CNI_ERR"
check_eq "  the taken address is not held for the pod" "$(cni_held c-s net1)" "10.81.0.61,fd81::61"
cni_netconf "$CNI_TMP/squat4.json" 1.1.0 squat4 \
	'{"master": "ra0", "ippools": {"ipv4": ["squat4"]}, "gatewayCheck": false}'
cni_netconf "$CNI_TMP/squat6.json" 1.1.0 squat6 \
	'{"master": "ra0", "ippools": {"ipv6": ["squat6"]}, "gatewayCheck": false}'
ns2=$(cni_pod_up s2)
cni_run ADD "$CNI_TMP/squat4.json" c-s2 net1 "$ns2"
cni_check_error 103 "IPv4: only the taken address left: ADD fails with 103"
check "  naming it" grep -q '10.81.0.60' "$CNI_OUT"
cni_run ADD "$CNI_TMP/squat6.json" c-s2 net1 "$ns2"
cni_check_error 103 "IPv6 (NDP): only the taken address left: ADD fails with 103"
check "  naming it" grep -q 'fd81::60' "$CNI_OUT"
check_eq "  nothing left behind by either" \
	"$(cni_pod_leftovers s2)$(cni_held c-s2 net1)$(cni_registered c-s2 net1)" 0
cni_run DEL "$CNI_TMP/squat.json" c-s net1 "$ns"
cni_check_ok "DEL"

# --- a master rdmanetd does not manage: networking yes, accounting no ------------------
cni_netconf "$CNI_TMP/c.json" 1.1.0 railc '{"ippools": {"ipv4": ["railC-v4"]}}'
ns=$(cni_pod_up c)
cni_run ADD "$CNI_TMP/c.json" c-c net1 "$ns"
cni_check_ok "ADD on rc0, which rdmanetd does not manage"
check "  says it is not accounted (degraded)" grep -q 'not attached by rdmanetd.*degraded' "$CNI_ERR"
check_eq "  not registered" "$(cni_registered c-c net1)" 0
cni_with_prev "$CNI_TMP/c.json" "$CNI_OUT" "$CNI_TMP/c.prev"
cni_run CHECK "$CNI_TMP/c.prev" c-c net1 "$ns"
cni_check_ok "CHECK passes (the registration is not expected there)"
cni_run STATUS "$CNI_TMP/c.json" "" "" ""
cni_check_ok "STATUS is ready"
check "  and says the data path is not on rc0" grep -q 'degraded.*rc0' "$CNI_ERR"
cni_run DEL "$CNI_TMP/c.prev" c-c net1 "$ns"
cni_check_ok "DEL"
tap_done
