#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# 802.1Q-tagged pod traffic through the data path on a Debian kernel (the
# host kernel is built without 802.1Q): runs netns_vlan.sh, a netns test,
# inside one VM and re-emits its checks.

guest_main() {
	local line

	RN_BUILD=$RN_BUILD RN_SRC=$RN_SRC bash "$RN_SRC/selftests/vm/netns_vlan.sh" \
		>"$VM_OUT/vlan.tap" 2>&1
	while IFS= read -r line; do
		case $line in
		"not ok "*) tap_fail "${line#not ok * - }" ;;
		"ok "*) tap_ok "${line#ok * - }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$VM_OUT/vlan.tap"
}

. "$(dirname "$0")/lib/main.sh"
vm_main one guest_main 180
tap_done
