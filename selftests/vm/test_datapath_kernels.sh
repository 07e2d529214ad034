#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The data path on Debian's own kernels, not only the host's: the BPF
# fixtures (verifier acceptance and behaviour) and rdmanetd attaching to a
# real NIC driver (virtio-net: native XDP), on 6.12 (tcx) and 6.1 (no tcx:
# the clsact fallback). RoCEv2 from Soft-RoCE through these programs is
# test_rdma_traffic.sh's.

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
	check "uninstall" "$RN_BUILD/bin/rdmanetd" --config "$VM_OUT/config.json" --uninstall -q
	check_eq "nothing left on eth0" "$(ip -j link show eth0 | jq -r '.[0].xdp // "none"')" none
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 180
VM_SERIES=6.1 vm_main one guest_main 180
tap_done
