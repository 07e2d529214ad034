# shellcheck shell=bash
# Guest side of the AppArmor proof in test_deploy_mounts.sh: the container
# runtime's default profile (containerd's, apparmor/cri-containerd.apparmor.d)
# loaded in a testbed VM, to show that rdmanetd cannot work under it, so the
# DaemonSet's `appArmorProfile: Unconfined` is needed. Sourced after
# guest.sh and deploy_container.sh.
#
#   aa_setup                  load the profile and make the kernel log its
#                             denials; 1, with a TAP skip saying exactly
#                             why, when the proof cannot be made here
#   aa_denied OP PATH         the kernel logged the profile denying OP on PATH
#   aa_confined_agent WHEN ERROR OP PATH CONFIG
#                             rdmanetd (deploy_container, rdma_cm layout)
#                             under the profile fails, says ERROR, and the
#                             kernel logged it denying OP on PATH

AA_PROFILE=cri-containerd.apparmor.d

aa_setup() {
	local enabled why=
	enabled=$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)
	if [ "$enabled" != Y ]; then
		why="kernel $VM_KVER runs without AppArmor (/sys/module/apparmor/parameters/enabled: '${enabled:-missing}')"
	elif ! command -v apparmor_parser >/dev/null || ! command -v aa-exec >/dev/null ||
		[ ! -f /etc/apparmor.d/tunables/global ]; then
		why="no apparmor_parser, aa-exec or /etc/apparmor.d on the host: Debian's apparmor package (make deps installs it)"
	fi
	if [ -n "$why" ]; then
		tap_skip "the agent under the runtime's default AppArmor profile" "$why"
		return 1
	fi
	mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security
	# The template's rules are explicit `deny` rules, which AppArmor does not
	# log (deny implies quiet; only `audit deny` logs): on a node the agent's
	# EACCES is all there is to see. noquiet makes the kernel log them here.
	check "AppArmor: quiet denials logged (audit mode noquiet)" \
		bash -c 'echo -n noquiet >/sys/module/apparmor/parameters/audit'
	check "AppArmor: containerd's default profile loads" \
		apparmor_parser -r -K "$RN_SRC/selftests/vm/apparmor/$AA_PROFILE"
	check "AppArmor: and is enforced" \
		grep -qx "$AA_PROFILE (enforce)" /sys/kernel/security/apparmor/profiles
	check_eq "AppArmor: aa-exec runs a process in it" \
		"$(aa-exec -p "$AA_PROFILE" -- cat /proc/self/attr/current)" "$AA_PROFILE (enforce)"
	dmesg -C
}

# kauditd logs asynchronously: wait for the line, bounded
aa_denied() {
	vm_wait_until 10 bash -c 'dmesg | grep "apparmor=\"DENIED\" operation=\"$0\"" |
		grep "profile=\"$1\"" | grep -q "name=\"$2\""' "$1" "$AA_PROFILE" "$2" || return 1
	dmesg | grep "apparmor=\"DENIED\" operation=\"$1\"" | grep "name=\"$2\"" | tail -n 1 |
		sed 's/^/# /'
}

aa_confined_agent() {
	local log=$VM_OUT/agent-confined.$((++AA_CONFINED_RUNS)).log
	deploy_container rdma_cm "$5" "$AA_PROFILE" >"$log" 2>&1
	check "AppArmor: confined, $1, the agent fails" test $? -ne 0
	sed 's/^/# /' "$log"
	check "AppArmor: it says: $2" grep -q "$2" "$log"
	check "AppArmor: the kernel denied the $3 of $4" aa_denied "$3" "$4"
}
