#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The data path on Debian's own kernels, not only the host's: the BPF
# fixtures (verifier acceptance and behaviour) and rdmanetd attaching to a
# real NIC driver (virtio-net: native XDP), on 6.12 (tcx) and 6.1 (no tcx:
# the clsact fallback). RoCEv2 from Soft-RoCE through these programs is
# test_rdma_traffic.sh's.

# rn_xdp_rx's tags in the dispatcher, one per line
xdp_tags() { xdp-loader status eth0 2>&1 | awk '$3 == "rn_xdp_rx" { print $5 }'; }

# (the guest has no /dev/fd for <(...))
foreign_there() { xdp-loader status eth0 2>&1 | grep -q xdpfilt_alw_all; }

# An upgrade where libxdp's dispatcher works (the host's kernel refuses
# freplace, so test_upgrade.sh sees XDP attached alone): beside a foreign
# XDP program, the variant build's agent replaces ours in the dispatcher
# and the generation flips; tc is replaced too (tcx link update on 6.12,
# clsact filter replace on 6.1); and back.
upgrade_in_dispatcher() {
	local before after n
	xdp-loader load -m native eth0 /usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o \
		>"$VM_OUT/foreign.log" 2>&1
	check "a foreign XDP program joins the dispatcher" foreign_there
	before=$(xdp_tags)
	"$RN_BUILD/variant/bin/rdmanetd" --config "$VM_OUT/config.json" --once >"$VM_OUT/up.log" 2>&1
	check "upgrade: the new build's agent runs" test $? = 0
	n=$(grep -c "upgraded in place" "$VM_OUT/up.log")
	check_eq "upgrade: tc egress, tc ingress and XDP replaced" "$n" 3
	check "upgrade: XDP through the dispatcher" grep -q "rn_xdp_rx upgraded in place (libxdp dispatcher)" "$VM_OUT/up.log"
	after=$(xdp_tags)
	check_eq "upgrade: one rn_xdp_rx in the dispatcher" "$(wc -l <<<"$after")" 1
	check "upgrade: its tag changed ($before -> $after)" test -n "$after" -a "$after" != "$before"
	check "upgrade: the foreign program stays" foreign_there
	check_eq "upgrade: the generation flipped" \
		"$(bpftool -j map dump pinned /sys/fs/bpf/rdmanet/rn_masters_v1 | jq '[.[] | .formatted.value | select(.ifname == "eth0") | .xdp_gen][0]')" 2
	"$RN_BUILD/variant/bin/rdmanetd" --config "$VM_OUT/config.json" --once >"$VM_OUT/same.log" 2>&1
	check_eq "same build again: nothing replaced" "$(grep -c "upgraded in place" "$VM_OUT/same.log")" 0
	"$RN_BUILD/bin/rdmanetd" --config "$VM_OUT/config.json" --once >"$VM_OUT/down.log" 2>&1
	check_eq "downgrade: all three replaced" "$(grep -c "upgraded in place" "$VM_OUT/down.log")" 3
	check_eq "downgrade: the old build's XDP program, alone of ours" "$(xdp_tags)" "$before"
	check "downgrade: the foreign program stays" foreign_there
	# an upgrade cut short (agent killed between adding the new program and
	# taking the old one out) leaves two of ours: the next start finishes it
	xdp-loader load -m native -p /sys/fs/bpf/rdmanet eth0 "$RN_BUILD/variant/bpf/xdp_rx.bpf.o" \
		>>"$VM_OUT/foreign.log" 2>&1
	check_eq "cut short: two rn_xdp_rx in the dispatcher" "$(xdp_tags | wc -l)" 2
	"$RN_BUILD/variant/bin/rdmanetd" --config "$VM_OUT/config.json" --once >"$VM_OUT/resume.log" 2>&1
	check "cut short: the next start upgrades" grep -q "rn_xdp_rx upgraded in place" "$VM_OUT/resume.log"
	check_eq "cut short: one rn_xdp_rx left, the new build's" "$(xdp_tags)" "$after"
	check "cut short: the foreign program stays" foreign_there
	xdp-loader unload -i "$(xdp-loader status eth0 2>&1 | awk '$3 == "xdpfilt_alw_all" { print $4 }')" eth0 \
		>>"$VM_OUT/foreign.log" 2>&1
}

guest_main() {
	local t out want_tc
	for t in test_xdp_rx test_tc_egress test_tc_ingress; do
		out=$("$RN_BUILD/selftests/bpf/$t" 2>&1)
		if echo "$out" | grep -q '^not ok'; then
			tap_fail "$t on $(uname -r)"
			echo "$out" | grep '^not ok' | head -5 | sed 's/^/# /'
		else
			tap_ok "$t on $(uname -r): $(echo "$out" | grep -c '^ok') fixtures"
		fi
	done
	cat >"$VM_OUT/config.json" <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "$VM_OUT/textfile", "interval_s": 0 },
  "bpf": { "pin_dir": "/sys/fs/bpf/rdmanet" } }
JSON
	check "rdmanetd attaches to eth0" "$RN_BUILD/bin/rdmanetd" --config "$VM_OUT/config.json" --once
	"$RN_BUILD/bin/rdmanetctl" stats -j >"$VM_OUT/stats0.json"
	want_tc=tcx
	case "$(uname -r)" in 6.1.*) want_tc=clsact ;; esac
	check_eq "tc attach on $(uname -r)" "$(jq -r '.masters[0].tc' "$VM_OUT/stats0.json")" "$want_tc"
	check_eq "native XDP on virtio-net" "$(jq -r '.masters[0].xdp' "$VM_OUT/stats0.json")" native
	# a Debian kernel allows freplace: libxdp's dispatcher, ours at priority 90
	xdp-loader status eth0 >"$VM_OUT/xdp-status.txt" 2>&1
	check "libxdp dispatcher on eth0" grep -q "xdp_dispatcher" "$VM_OUT/xdp-status.txt"
	check "rn_xdp_rx in the dispatcher at priority 90, chaining on XDP_PASS" \
		grep -Eq "=>[[:space:]]+90[[:space:]]+rn_xdp_rx.*XDP_PASS" "$VM_OUT/xdp-status.txt"
	upgrade_in_dispatcher
	check "uninstall" "$RN_BUILD/bin/rdmanetd" --config "$VM_OUT/config.json" --uninstall -q
	check_eq "nothing left on eth0" "$(ip -j link show eth0 | jq -r '.[0].xdp // "none"')" none
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 180
VM_SERIES=6.1 vm_main one guest_main 180
tap_done
