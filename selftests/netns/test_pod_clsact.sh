#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The per-pod program as a clsact filter (kernels without tcx, or a master
# whose tc_mode says clsact): the CNI plugin creates the clsact qdisc in the
# pod's netns and puts rn_pod_egress on its egress over netlink; it polices
# the same; no tcx link is pinned; DEL leaves nothing.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
CRAFT="nsenter --net=/run/netns/$CNI_PFX-a python3 $RN_SRC/selftests/tools/rn_craft.py"

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_TMP/base.json" enforce
jq '.masters[0].tc_mode = "clsact"' "$CNI_TMP/base.json" >"$CNI_CONFIG"
check "rdmanetd attaches (ra0 in clsact mode)" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/rail.json" 1.1.0 rail \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"]},
	  "conflictCheck": {"enabled": false}, "gatewayCheck": {"enabled": false}}'
ns=$(cni_pod_up a)
cni_run ADD "$CNI_TMP/rail.json" c-a net1 "$ns"
cni_check_ok "ADD pod a"
check "net1 carries rn_pod_egress as a clsact egress filter" \
	sh -c "nsenter --net=/run/netns/$CNI_PFX-a bpftool -j net show dev net1 | jq -e '.[0].tc[] | select(.name == \"rn_pod_egress\" and .kind == \"clsact/egress\")' >/dev/null"
check_eq "no tcx link pinned for it" "$(ls "$CNI_PIN/links" | grep -c '^pod_')" 0
slot=$(bpftool -j map dump pinned "$CNI_PIN/rn_pod_meta_v1" |
	jq -r '.[] | select(.formatted.value.container_id == "c-a") | .formatted.key')
$CRAFT net1 arp op=2 spa=10.81.0.254 tpa=10.81.0.254
check_eq "a gratuitous ARP for the gateway is refused and counted (ARP claim)" \
	"$(bpftool -j map lookup pinned "$CNI_PIN/rn_pod_rsn_v1" key "$slot" 0 0 0 |
	   jq '[.formatted.values[].value.denied[2]] | add')" 1
check "own traffic passes" cni_in a ping -q -c1 -W2 10.81.0.254
cni_run DEL "$CNI_TMP/rail.json" c-a net1 "$ns"
cni_check_ok "DEL pod a"
check_eq "nothing left in the pod" "$(cni_pod_leftovers a)" ""
tap_done
