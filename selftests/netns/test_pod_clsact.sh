#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The per-pod program as a clsact filter (what a master's tc_mode clsact,
# and auto, give pods; test_pod_upgrade.sh has tcx): the CNI plugin creates the clsact qdisc in the
# pod's netns and puts rn_pod_egress on its egress over netlink (a tail call
# through rn_pod_jmp_v1); it polices the same; an agent upgrade moves the pod
# to the new build's program; no tcx link is pinned; DEL leaves nothing.
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
	  "ipConflictCheck": {"enabled": false}, "gatewayCheck": {"enabled": false}}'
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

# an upgrade (build/variant: programs with another kernel tag) moves the
# pod: the filter keeps its program, a tail call through rn_pod_jmp_v1,
# whose entry the new agent points at its rn_pod_egress
filter_prog() {
	cni_in a bpftool -j net show dev net1 |
		jq -r '.[0].tc[] | select(.kind == "clsact/egress") | .prog_id'
}
jmp_prog() {	# the program id in the array's slot 0 (raw bytes, little-endian)
	bpftool -j map dump pinned "$CNI_PIN/rn_pod_jmp_v1" |
		jq -r '[.[0].value[] | ltrimstr("0x")] | reverse | join("")' | xargs -I{} printf '%d\n' 0x{}
}
pinned_prog() { bpftool -j prog show pinned "$CNI_PIN/rn_pod_egress" | jq -r .id; }
check "the tail call goes to the pinned rn_pod_egress" test "$(jmp_prog)" = "$(pinned_prog)"
filter0=$(filter_prog) jmp0=$(jmp_prog)
NEW=$RN_BUILD/variant/bin/rdmanetd
if [ -x "$NEW" ]; then
	cni_agent_stop
	nsenter --net=/run/netns/"$CNI_NODE" "$NEW" --config "$CNI_CONFIG" >>"$CNI_TMP/agent.log" 2>&1 &
	CNI_AGENT_PID=$!
	moved() { grep -q 'pods with a clsact filter moved' "$CNI_TMP/agent.log"; }
	check "the new rdmanetd moves the clsact pods" cni_wait "$CNI_AGENT_PID" moved
	check "the tail call now goes to the new build's program" \
		test "$(jmp_prog)" != "$jmp0" -a "$(jmp_prog)" = "$(pinned_prog)"
	check_eq "the pod's filter is the same" "$(filter_prog)" "$filter0"
	$CRAFT net1 arp op=2 spa=10.81.0.254 tpa=10.81.0.254
	check_eq "still refused, counted on" \
		"$(bpftool -j map lookup pinned "$CNI_PIN/rn_pod_rsn_v1" key "$slot" 0 0 0 |
		   jq '[.formatted.values[].value.denied[2]] | add')" 2
else
	tap_skip "clsact pods across an upgrade" "build/variant/bin/rdmanetd not built"
fi
# the attach takes the slot the registration gave: an ADD opens the owner
# table (rn_pod_meta_v1) once, to register (it opened every pinned map
# three times: registering, finding the slot again, attaching)
if command -v strace >/dev/null; then
	nsb=$(cni_pod_up b)
	CNI_WRAP="strace -f -qq -e trace=bpf -o $CNI_TMP/strace_b.log" \
		cni_run ADD "$CNI_TMP/rail.json" c-b net1 "$nsb"
	cni_check_ok "ADD pod b under strace"
	check_eq "  it opened the pinned owner table once" \
		"$(grep -c 'BPF_OBJ_GET.*rn_pod_meta_v1' "$CNI_TMP/strace_b.log")" 1
	check "  and pod b carries rn_pod_egress" \
		sh -c "nsenter --net=/run/netns/$CNI_PFX-b bpftool -j net show dev net1 | jq -e '.[0].tc[] | select(.name == \"rn_pod_egress\")' >/dev/null"
	cni_run DEL "$CNI_TMP/rail.json" c-b net1 "$nsb"
	cni_check_ok "DEL pod b"
else
	tap_skip "one registry read per ADD" "no strace"
fi
cni_run DEL "$CNI_TMP/rail.json" c-a net1 "$ns"
cni_check_ok "DEL pod a"
check_eq "nothing left in the pod" "$(cni_pod_leftovers a)" ""
tap_done
