#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Why the DaemonSet runs rdmanetd with `appArmorProfile: Unconfined` (and
# the matching annotation): under the container runtime's default AppArmor
# profile the agent cannot work, under the manifest's setting it does.
# In one VM (a Debian kernel: AppArmor built in and enabled), in the
# container's mount layout and with exactly the manifest's capabilities
# (lib/deploy_container.sh, as test_deploy_mounts.sh), with containerd's
# default profile (apparmor/cri-containerd.apparmor.d) loaded:
#   - confined, on a fresh node the agent cannot make its bpffs pin dir;
#   - unconfined (the manifest's setting) the same run attaches, pins its
#     maps and links, locks its pin dir and sets default_roce_tos;
#   - confined again, with the pin dir there, it cannot lock it, and a map
#     cannot be pinned nor default_roce_tos written;
# each refusal with the kernel's apparmor="DENIED" audit line naming the
# operation, the path and the profile.

PROFILE=cri-containerd.apparmor.d

# denied OPERATION PATH: the kernel logged AppArmor denying OPERATION on PATH
# to PROFILE (kauditd logs asynchronously: wait for the line, bounded)
denied() {
	vm_wait_until 10 bash -c 'dmesg | grep "apparmor=\"DENIED\" operation=\"$0\"" |
		grep "profile=\"$1\"" | grep -q "name=\"$2\""' "$1" "$PROFILE" "$2" || return 1
	dmesg | grep "apparmor=\"DENIED\" operation=\"$1\"" | grep "name=\"$2\"" | tail -n 1 |
		sed 's/^/# /'
}

guest_main() {
	# shellcheck source=selftests/vm/lib/deploy_container.sh
	. "$VM_LIB/deploy_container.sh"
	local pin=/sys/fs/bpf/rn-aa tos=/sys/kernel/config/rdma_cm/$VM_RXE/ports/1/default_roce_tos
	local enabled

	enabled=$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)
	if [ "$enabled" != Y ]; then
		tap_skip "the AppArmor proof" "kernel $VM_KVER booted with AppArmor off \
(/sys/module/apparmor/parameters/enabled: '${enabled:-missing}')"
		return
	fi
	mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
	# The template's rules are explicit `deny` rules, which AppArmor does not
	# log (deny implies quiet; only `audit deny` logs): on a node the agent's
	# EACCES is all there is to see. noquiet makes the kernel log them here.
	check "quiet denials logged (audit mode noquiet)" \
		bash -c 'echo -n noquiet >/sys/module/apparmor/parameters/audit'
	check "containerd's default profile loads" \
		apparmor_parser -r -K "$RN_SRC/selftests/vm/apparmor/$PROFILE"
	check "and is enforced" grep -qx "$PROFILE (enforce)" /sys/kernel/security/apparmor/profiles
	check_eq "aa-exec runs a process in it" "$(aa-exec -p "$PROFILE" -- cat /proc/self/attr/current)" \
		"$PROFILE (enforce)"

	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "$VM_IFACE" } ], "qos": { "roce_dscp": 34, "ecn": "ect1" },
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 }, "bpf": { "pin_dir": "$pin" } }
JSON
	dmesg -C
	deploy_container rdma_cm /tmp/agent.json "$PROFILE" >"$VM_OUT/agent-confined.log" 2>&1
	check "confined, the agent fails" test $? -ne 0
	sed 's/^/# /' "$VM_OUT/agent-confined.log"
	check "it cannot make its pin dir" \
		grep -q "mkdir $pin: Permission denied" "$VM_OUT/agent-confined.log"
	check "AppArmor denied the mkdir on bpffs" denied mkdir "$pin/"
	check "nothing attached" bash -c '! ip -d link show "$0" | grep -q xdp' "$VM_IFACE"

	deploy_container rdma_cm /tmp/agent.json >"$VM_OUT/agent-unconfined.log" 2>&1
	check_eq "unconfined (the manifest's setting), the same run succeeds" $? 0
	sed 's/^/# /' "$VM_OUT/agent-unconfined.log"
	check "the data path attached" grep -q "1 master(s) attached" "$VM_OUT/agent-unconfined.log"
	check "its maps and links are pinned" test -n "$(ls "$pin")"
	# 34 << 2 | ECT(1)
	check_eq "default_roce_tos set" "$(cat "$tos")" 137

	dmesg -C
	deploy_container rdma_cm /tmp/agent.json "$PROFILE" >"$VM_OUT/agent-confined-2.log" 2>&1
	check "confined, with its pin dir there, the agent fails" test $? -ne 0
	sed 's/^/# /' "$VM_OUT/agent-confined-2.log"
	check "it cannot lock its pin dir" \
		grep -q "flock $pin: Permission denied" "$VM_OUT/agent-confined-2.log"
	check "AppArmor denied the lock on bpffs" denied file_lock "$pin/"
	check "confined, a map cannot be pinned" bash -c '! aa-exec -p "$1" -- setpriv \
		--bounding-set "-all$2" --inh-caps=-all bpftool map create "$0" type array \
		key 4 value 4 entries 1 name rn_aa_probe' "$pin/probe" "$PROFILE" "$DEPLOY_CAPS"
	check "AppArmor denied the pin" denied mknod "$pin/probe"
	check "confined, default_roce_tos cannot be written" \
		bash -c '! aa-exec -p "$1" -- sh -c "echo 105 >$0"' "$tos" "$PROFILE"
	check "AppArmor denied the configfs write" denied open "$tos"
	check_eq "default_roce_tos kept" "$(cat "$tos")" 137
	dmesg | grep 'apparmor="DENIED"' >"$VM_OUT/denials.log"

	"$RN_BUILD/bin/rdmanetd" --uninstall --config /tmp/agent.json -q
}

# on the host (the VM runs the host's files): the tools the proof needs
if [ -z "${VM_NODE:-}" ] && ! { command -v apparmor_parser && command -v aa-exec &&
	[ -f /etc/apparmor.d/tunables/global ]; } >/dev/null; then
	. "$(dirname "$0")/../lib/tap.sh"
	tap_skip_all "apparmor_parser, aa-exec or /etc/apparmor.d missing: Debian's apparmor package (make deps installs it)"
fi
. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 180
tap_done
