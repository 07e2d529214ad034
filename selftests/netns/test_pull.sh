#!/bin/bash
# The tc programs pull packet data into the linear part only when the parse
# needs it. A TSO super-packet carries just its headers in the linear part
# and is a clone (TCP keeps the original for retransmission), so a pull is
# a head reallocation per super-packet. A probe attached after rdmanet's tcx
# egress program sees how much of each GSO packet is linear: the headers
# alone without rdmanet, and still the headers alone with it.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
FPIN=/sys/fs/bpf/${RN_PFX}-probe
cleanup() { [ -n "${SRV:-}" ] && kill "$SRV" 2>/dev/null; rn_topo_down; rm -rf "$FPIN"; }
trap cleanup EXIT
OBJ=$RN_BUILD/selftests/netns/bpf/linear_probe.bpf.o

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
check "load the probe" bpftool prog loadall "$OBJ" "$FPIN" pinmaps "$FPIN/maps"
rn_in peer iperf3 -s -p 5201 -D --logfile "$RN_TMP/iperf3.log" --pidfile "$RN_TMP/iperf3.pid"
for _ in $(seq 50); do [ -s "$RN_TMP/iperf3.pid" ] && break; sleep 0.1; done
SRV=$(tr -d '\0' <"$RN_TMP/iperf3.pid")

# bulk NAME: 20 MB of TCP pod -> peer, then the probe's (gso, pulled) deltas
bulk() {
	local b a
	b=($(rn_map_u64s "$FPIN/maps/linear_counts"))
	rn_in a iperf3 -c 10.77.0.100 -p 5201 -n 20M >/dev/null || tap_fail "$1: iperf3"
	a=($(rn_map_u64s "$FPIN/maps/linear_counts"))
	GSO=$((a[0] - b[0])) PULLED=$((a[1] - b[1]))
	tap_diag "$1: $GSO GSO packets, $PULLED with a linear part of 192 bytes or more"
}

# without rdmanet: the probe alone
check "attach the probe (tcx egress)" rn_in_node bpftool net attach tcx_egress pinned "$FPIN/linear_probe" dev roce0
bulk "no rdmanet"
check "no rdmanet: TCP sends GSO super-packets ($GSO)" test "$GSO" -gt 0
check_eq "no rdmanet: their headers alone are linear" "$PULLED" 0
rn_in_node bpftool net detach tcx_egress dev roce0

# rdmanet first in the chain, the probe after it
rn_agent_config "$RN_TMP/config.json" enforce '"tc_mode": "tcx"'
check "rdmanet attaches" rn_agent_start "$RN_TMP/config.json"
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
check "attach the probe after rdmanet" rn_in_node bpftool net attach tcx_egress pinned "$FPIN/linear_probe" dev roce0
order=$(rn_in_node bpftool -j net show dev roce0 | jq -r '[.[0].tc[] | select(.kind == "tcx/egress") | .name] | join(",")')
check_eq "tcx egress order" "$order" "rn_tc_egress,linear_probe"
bulk "rdmanet"
check "rdmanet: TCP sends GSO super-packets ($GSO)" test "$GSO" -gt 0
check_eq "rdmanet: no super-packet was pulled (head reallocated)" "$PULLED" 0
check "rdmanet counted the pod's TCP" test "$(rn_pod_stat t/a .tx.tcp.packets)" -gt 0
tap_done
