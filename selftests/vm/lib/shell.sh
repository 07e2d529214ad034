#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Interactive testbed VM for debugging: boots node-a with a root shell on
# this terminal, everything prepared as for a test (rxe0, eth0, mounts).
#
#   selftests/vm/lib/shell.sh [6.12|6.1] [NODE_B_SCRIPT]
#
# With NODE_B_SCRIPT, node-b boots too and runs it (for instance a script
# that starts a perftest server and sleeps). Exit the shell (or Ctrl-A X)
# to power off; logs stay in the run directory printed at the end.
set -u
VM_LIB=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/vm/lib/vm.sh
. "$VM_LIB/vm.sh"
vm_prepare "${1:-6.12}" || exit
export VM_INTERACTIVE=1
if [ -n "${2:-}" ]; then
	vm_run_pair "$VM_LIB/guest-shell.sh" "$2" "${VM_TIMEOUT:-3600}"
else
	vm_run_one "$VM_LIB/guest-shell.sh" "${VM_TIMEOUT:-3600}"
fi
