#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# VF ADD+DEL: rdmanet in mode "sriov" against the reference host-device
# plugin moving the same VF netdev, in the same VM run (qemu 10's igb, see
# selftests/vm/test_sriov_vm.sh; both under TCG, so only the ratio means
# anything). rdmanet's ADD (address checks off) also records the VF,
# allocates an address from the pool and installs policy routes; DEL gives
# everything back; host-device moves the netdev and nothing else.
set -u
cd "$(dirname "$0")/../.."
: "${RN_BUILD:=$(realpath build)}"
: "${RN_BENCH_OUT:=$RN_BUILD/bench-results}"
export RN_BUILD RN_SRC=$(pwd)
N=${SRIOV_BENCH_N:-10}
mkdir -p "$RN_BENCH_OUT"
VM_SCRIPT_ARGS="bench=$N" RN_TEST_TIMEOUT=1200 selftests/vm/test_sriov_vm.sh >"$RN_BENCH_OUT/sriov.log" 2>&1
dir=$(ls -dt "$RN_BUILD"/vm-logs/test_sriov_vm.* 2>/dev/null | head -n 1)
line=$(cat "$dir/node-a/bench_sriov.txt" 2>/dev/null)
if [ -z "$line" ]; then
	echo "no bench result (see $RN_BENCH_OUT/sriov.log)"
	exit 1
fi
read -r _ rounds _ ours _ ref <<<"$line"
ratio=$(awk -v a="$ours" -v b="$ref" 'BEGIN { printf "%.2f", a / b }')
printf '%-44s %12s %12s %8s\n' "VF ADD+DEL (TCG VM, $rounds rounds)" "rdmanet us" "host-device" "ratio"
printf '%-44s %12d %12d %8s\n' "mode sriov vs host-device, same VF" "$ours" "$ref" "$ratio"
jq -n --argjson n "$rounds" --argjson o "$ours" --argjson r "$ref" --argjson x "$ratio" \
	'{sriov_vf_add_del: {rounds: $n, rdmanet_us: $o, host_device_us: $r, ratio: $x,
	  note: "qemu 10 igb VF under TCG; rdmanet also allocates an address and installs policy routes"}}' \
	>"$RN_BENCH_OUT/sriov.json"
