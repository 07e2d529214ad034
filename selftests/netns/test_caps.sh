#!/bin/bash
# The capabilities the DaemonSet gives rdmanetd (read from
# deploy/base/rdmanetd-daemonset.yaml) are enough, and each is needed: the agent
# runs under a bounding set of exactly those (setpriv; as root, an exec
# then holds the bounding set and nothing else), attaches XDP (skb mode, so
# libxdp's dispatcher is used even on a veth) and tc, a restart finds
# what it attached, and an upgrade to other program code replaces it. Then capabilities are taken away and the call that
# needed them fails. (The kernel's bpf_capable() and perfmon_capable() also
# accept CAP_SYS_ADMIN, so BPF and PERFMON are shown needed with SYS_ADMIN
# absent too.)
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT

CAPS=$(grep -E '^\s+- [A-Z_]+\s*$' "$RN_SRC/deploy/base/rdmanetd-daemonset.yaml" |
	awk '{ printf ",+%s", tolower($2) }')
tap_diag "capabilities from the manifest:$(echo "$CAPS" | tr ',+' '  ')"
check_eq "the manifest adds BPF, NET_ADMIN, NET_RAW, PERFMON, SYS_ADMIN" "$CAPS" \
	",+bpf,+net_admin,+net_raw,+perfmon,+sys_admin"
command -v setpriv >/dev/null || { tap_fail "setpriv (util-linux)"; tap_done; }
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
rn_agent_config "$RN_TMP/c.json" monitor '"xdp_mode": "skb"'

agent() {	# agent BOUNDING_SET [BINARY]: one --once run; its log in $RN_TMP/once.log
	nsenter --net=/run/netns/"$RN_NODE" setpriv --bounding-set "$1" --inh-caps=-all \
		"${2:-$RN_BUILD/bin/rdmanetd}" --config "$RN_TMP/c.json" --once >"$RN_TMP/once.log" 2>&1
	local rc=$?
	sed 's/^/#   /' "$RN_TMP/once.log"
	return $rc
}
attached() { rn_ctl stats -j 2>/dev/null | jq -r '.masters[0] | "xdp \(.xdp), tc \(.tc)"'; }
progs() { rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].xdp[]?.id, (.[0].tc[]? | .prog_id)] | sort'; }
uninstall() { rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q; }

check "start with only the manifest's capabilities" agent "-all$CAPS"
check_eq "XDP (libxdp dispatcher) and tc attached" "$(attached)" "xdp skb, tc tcx"
before=$(progs)
check "restart with them" agent "-all$CAPS"
check_eq "the restart found its programs" "$(attached)" "xdp skb, tc tcx"
check_eq "nothing reattached" "$(progs)" "$before"
# an upgrade (the variant build: other program code) and back, with them
check "upgrade with them" agent "-all$CAPS" "$RN_BUILD/variant/bin/rdmanetd"
check_eq "upgrade: tc egress, tc ingress and XDP replaced in place" \
	"$(grep -c "upgraded in place" "$RN_TMP/once.log")" 3
check_eq "upgrade: still attached" "$(attached)" "xdp skb, tc tcx"
check "downgrade with them" agent "-all$CAPS"
check_eq "downgrade: all three replaced" "$(grep -c "upgraded in place" "$RN_TMP/once.log")" 3

agent "-all,+bpf,+net_admin,+perfmon"
check_eq "restart without SYS_ADMIN: the attached dispatcher cannot be opened by id, XDP lost" \
	"$(attached)" "xdp none, tc tcx"
check "libxdp's EPERM logged" grep -q "couldn't get program fd: Operation not permitted" \
	"$RN_TMP/once.log"
uninstall

agent "-all,+bpf,+perfmon,+sys_admin"
check_eq "without NET_ADMIN no XDP attach" "$(attached)" "xdp none, tc tcx"
check "EPERM logged" grep -q "XDP skb-mode attach: Operation not permitted" "$RN_TMP/once.log"
uninstall

agent "-all,+bpf,+net_admin"
check_eq "without PERFMON (nor SYS_ADMIN) the verifier refuses the programs" \
	"$(attached)" "xdp none, tc none"
check "EACCES from the load logged" grep -q "load rn_tc_egress: Permission denied" \
	"$RN_TMP/once.log"
uninstall

if agent "-all,+net_admin,+perfmon"; then
	tap_fail "without BPF (nor SYS_ADMIN) the agent must fail"
else
	check "without BPF (nor SYS_ADMIN) the agent cannot make its maps" \
		grep -q "create maps.*Operation not permitted" "$RN_TMP/once.log"
fi
tap_done
