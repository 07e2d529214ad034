#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Node script of shell.sh: an interactive root shell on the serial console.
# The VM powers off when it exits.
echo "node $VM_NODE ($VM_IP, peer $VM_PEER at $VM_PEER_IP), kernel $VM_KVER; exit to power off" \
	>/dev/ttyS0
exec setsid -c bash -i <>/dev/ttyS0 >&0 2>&0
