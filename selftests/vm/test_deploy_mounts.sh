#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The DaemonSet's sysfs/configfs layout, on a real RDMA device (Soft-RoCE
# in one VM): in a mount namespace laid out as the manifest lays out the
# container (sysfs read-only, bpffs writable, configfs read-only but its
# rdma_cm group writable) and with exactly the manifest's capabilities,
# rdmanetd attaches and sets default_roce_tos. With configfs read-only all
# through (no rdma_cm mount) the same write fails with EROFS and says so:
# the rdma_cm mount is what the write needs, and all it needs.

guest_main() {
	# shellcheck source=selftests/vm/lib/deploy_container.sh
	. "$VM_LIB/deploy_container.sh"
	local pin=/sys/fs/bpf/rn-deploy tos=/sys/kernel/config/rdma_cm/$VM_RXE/ports/1/default_roce_tos

	check "rdma_cm configfs group present" test -d /sys/kernel/config/rdma_cm
	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "$VM_IFACE" } ], "qos": { "roce_dscp": 34, "ecn": "ect1" },
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$pin" } }
JSON
	deploy_container rdma_cm /tmp/agent.json >"$VM_OUT/agent.log" 2>&1
	check_eq "with the manifest's mounts and capabilities the agent runs" $? 0
	sed 's/^/# /' "$VM_OUT/agent.log"
	check_eq "default_roce_tos set through the rdma_cm mount" "$(cat "$tos")" 137
	check "the data path attached" grep -q "1 master(s) attached" "$VM_OUT/agent.log"
	check "no write refused" bash -c '! grep -q "Read-only file system" "$0"' "$VM_OUT/agent.log"

	sed -i 's/"roce_dscp": 34/"roce_dscp": 26/' /tmp/agent.json
	deploy_container none /tmp/agent.json >"$VM_OUT/agent-ro.log" 2>&1
	sed 's/^/# /' "$VM_OUT/agent-ro.log"
	check_eq "without the rdma_cm mount default_roce_tos stays" "$(cat "$tos")" 137
	# 26 << 2 | ECT(1)
	check "and the agent says EROFS" grep -q "default_roce_tos 105 not applied: Read-only file system" \
		"$VM_OUT/agent-ro.log"
	check "and which mount it needs" grep -q "rdma_cm writable" "$VM_OUT/agent-ro.log"
	"$RN_BUILD/bin/rdmanetd" --uninstall --config /tmp/agent.json -q
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 180
tap_done
