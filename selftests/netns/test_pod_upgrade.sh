#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Pods attached before an agent upgrade keep their per-pod program and run
# the new build's code: the new rdmanetd (build/variant: the same sources,
# programs with another kernel tag) pins its rn_pod_egress and moves every
# pinned pod link to it in place (link update), and the pod is still
# policed. Going back to the old build moves it back. The master's tc_mode
# is tcx, so the pod gets a tcx link (auto gives it a clsact filter, which
# moves through rn_pod_jmp_v1: test_pod_clsact.sh).
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/cni/lib.sh"
trap cni_topo_down EXIT
NEW=$RN_BUILD/variant/bin/rdmanetd
CRAFT="nsenter --net=/run/netns/$CNI_PFX-a python3 $RN_SRC/selftests/tools/rn_craft.py"

[ -x "$CNI_BIN" ] || tap_skip_all "build/bin/rdmanet not built"
[ -x "$NEW" ] || tap_skip_all "build/variant/bin/rdmanetd not built"
cni_topo_up || tap_skip_all "cannot create network namespaces"
cni_node_config "$CNI_TMP/base.json" enforce
jq '.masters[0].tc_mode = "tcx"' "$CNI_TMP/base.json" >"$CNI_CONFIG"
check "old rdmanetd attaches (ra0 in tcx mode)" cni_agent_start "$CNI_CONFIG"
cni_netconf "$CNI_TMP/rail.json" 1.1.0 rail \
	'{"master": "ra0", "ippools": {"ipv4": ["railA-v4"]},
	  "ipConflictCheck": {"enabled": false}, "gatewayCheck": {"enabled": false}}'
ns=$(cni_pod_up a)
cni_run ADD "$CNI_TMP/rail.json" c-a net1 "$ns"
cni_check_ok "ADD pod a"

# the tag of the program on the pod's net1 egress, and of the pinned one
pod_tag() {
	local id
	id=$(cni_in a bpftool -j net show dev net1 | jq -r '.[0].tc[] | select(.kind == "tcx/egress") | .prog_id')
	bpftool -j prog show id "$id" | jq -r .tag
}
pinned_tag() { bpftool -j prog show pinned "$CNI_PIN/rn_pod_egress" | jq -r .tag; }
refused_arp() {	# gratuitous ARP for the gateway: refusals counted (reason ARP claim)
	local slot
	slot=$(bpftool -j map dump pinned "$CNI_PIN/rn_pod_meta_v1" |
		jq -r '.[] | select(.formatted.value.container_id == "c-a") | .formatted.key')
	$CRAFT net1 arp op=2 spa=10.81.0.254 tpa=10.81.0.254
	bpftool -j map lookup pinned "$CNI_PIN/rn_pod_rsn_v1" key "$slot" 0 0 0 |
		jq '[.formatted.values[].value.denied[2]] | add'
}
old=$(pod_tag)
check "the pod runs the old build's program" test -n "$old" -a "$old" = "$(pinned_tag)"
check_eq "and it refuses a gratuitous ARP for the gateway" "$(refused_arp)" 1

cni_agent_stop
nsenter --net=/run/netns/"$CNI_NODE" "$NEW" --config "$CNI_CONFIG" >>"$CNI_TMP/agent.log" 2>&1 &
CNI_AGENT_PID=$!
# the masters stay attached across the restart: wait for the agent's word
# that it moved the pod
moved() { [ "$(grep -c '1 pod(s) moved' "$CNI_TMP/agent.log")" -ge "$1" ]; }
check "new rdmanetd moves the pod to its program" cni_wait "$CNI_AGENT_PID" moved 1
new=$(pod_tag)
check "the pod now runs the new build's program" test "$new" != "$old" -a "$new" = "$(pinned_tag)"
check "its link is the same pin" test -e "$CNI_PIN/links/$(ls "$CNI_PIN/links" | grep '^pod_')"
check_eq "still refused, counted on" "$(refused_arp)" 2

cni_agent_stop
nsenter --net=/run/netns/"$CNI_NODE" "$RN_BUILD/bin/rdmanetd" --config "$CNI_CONFIG" \
	>>"$CNI_TMP/agent.log" 2>&1 &
CNI_AGENT_PID=$!
check "old rdmanetd again, moving it back" cni_wait "$CNI_AGENT_PID" moved 2
check_eq "the pod is back on the old build's program" "$(pod_tag)" "$old"
cni_run DEL "$CNI_TMP/rail.json" c-a net1 "$ns"
cni_check_ok "DEL pod a"
tap_done
