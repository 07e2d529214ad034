#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The DaemonSet's container as far as a VM can build it, on a real RDMA
# device (Soft-RoCE in one VM), with exactly the manifest's capabilities:
#
# Mounts. In a mount namespace laid out as the manifest lays out the
# container (sysfs read-only, bpffs writable, configfs its own writable
# mount) rdmanetd attaches and sets default_roce_tos. With configfs
# read-only (no configfs mount) the same write fails with EROFS and says
# so: the configfs mount is what the write needs.
#
# AppArmor. The Debian kernel has AppArmor on. Under containerd's default
# profile (apparmor/cri-containerd.apparmor.d, what the runtime applies
# without the manifest's `appArmorProfile: Unconfined` and annotation) the
# same agent fails: on a fresh node it cannot make its bpffs pin dir; with
# the pin dir there it cannot lock it; a map cannot be pinned and
# default_roce_tos cannot be written; each denial is in the kernel's audit
# log (apparmor="DENIED", the operation, the path, the profile).
# Unconfined, the manifest's setting, it runs (the mounts part above).

guest_main() {
	# shellcheck source=selftests/vm/lib/deploy_container.sh
	. "$VM_LIB/deploy_container.sh"
	# shellcheck source=selftests/vm/lib/apparmor.sh
	. "$VM_LIB/apparmor.sh"
	local pin=/sys/fs/bpf/rn-deploy tos=/sys/kernel/config/rdma_cm/$VM_RXE/ports/1/default_roce_tos
	local aa=1

	check "rdma_cm configfs group present" test -d /sys/kernel/config/rdma_cm
	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "$VM_IFACE" } ], "qos": { "roce_dscp": 34, "ecn": "ect1" },
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$pin" } }
JSON
	aa_setup || aa=
	if [ -n "$aa" ]; then
		aa_confined_agent "on a fresh node" "mkdir $pin: Permission denied" mkdir "$pin/" \
			/tmp/agent.json
		check "AppArmor: nothing attached" \
			bash -c '! ip -d link show "$0" | grep -q xdp' "$VM_IFACE"
	fi

	# unconfined: the manifest's AppArmor setting
	deploy_container configfs /tmp/agent.json >"$VM_OUT/agent.log" 2>&1
	check_eq "with the manifest's mounts and capabilities the agent runs" $? 0
	sed 's/^/# /' "$VM_OUT/agent.log"
	check_eq "default_roce_tos set through the configfs mount" "$(cat "$tos")" 137
	check "the data path attached" grep -q "1 master(s) attached" "$VM_OUT/agent.log"
	check "its maps and links are pinned" test -n "$(ls "$pin")"
	check "no write refused" bash -c '! grep -q "Read-only file system" "$0"' "$VM_OUT/agent.log"

	if [ -n "$aa" ]; then
		aa_confined_agent "with its pin dir there" "flock $pin: Permission denied" \
			file_lock "$pin/" /tmp/agent.json
		check "AppArmor: confined, a map cannot be pinned" bash -c '! aa-exec -p "$1" -- \
			setpriv --bounding-set "-all$2" --inh-caps=-all bpftool map create "$0" \
			type array key 4 value 4 entries 1 name rn_aa_probe' \
			"$pin/probe" "$AA_PROFILE" "$DEPLOY_CAPS"
		check "AppArmor: the kernel denied the pin" aa_denied mknod "$pin/probe"
		check "AppArmor: confined, default_roce_tos cannot be written" \
			bash -c '! aa-exec -p "$1" -- sh -c "echo 105 >$0"' "$tos" "$AA_PROFILE"
		check "AppArmor: the kernel denied the configfs write" aa_denied open "$tos"
		check_eq "AppArmor: default_roce_tos kept" "$(cat "$tos")" 137
		dmesg | grep 'apparmor="DENIED"' >"$VM_OUT/apparmor-denials.log"
	fi

	sed -i 's/"roce_dscp": 34/"roce_dscp": 26/' /tmp/agent.json
	deploy_container none /tmp/agent.json >"$VM_OUT/agent-ro.log" 2>&1
	sed 's/^/# /' "$VM_OUT/agent-ro.log"
	check_eq "without the configfs mount default_roce_tos stays" "$(cat "$tos")" 137
	# 26 << 2 | ECT(1)
	check "and the agent says EROFS" grep -q "default_roce_tos 105 not applied: Read-only file system" \
		"$VM_OUT/agent-ro.log"
	check "and which mount it needs" grep -q "mount /sys/kernel/config writable" "$VM_OUT/agent-ro.log"
	"$RN_BUILD/bin/rdmanetd" --uninstall --config /tmp/agent.json -q
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 300
tap_done
