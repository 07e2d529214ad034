#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The device plugin on real Soft-RoCE (rxe0 on eth0, one VM), with the
# fake kubelet (selftests/devplugin/fake_kubelet.py) as its peer:
#   - the resource selecting eth0 advertises rxe0, healthy;
#   - Allocate returns rxe0's real /dev/infiniband nodes (character devices)
#     and rdma_cm, exactly the ones the kernel has for it;
#   - the CDI spec names the same nodes, and podman (runc) started with
#     --device rdmanet.io/hca=rxe0 sees those nodes and no other;
#   - eth0 down turns the devices Unhealthy, up Healthy again, as kubelet
#     sees through ListAndWatch, with the periodic update off: the change
#     comes from the link event.
# The host part is at the bottom; inside the VM (VM_NODE set) this file is
# the node's script.

guest_main() {
	. "$VM_LIB/guest.sh"
	local D=$RN_BUILD/bin/rdmanetd R=$RN_BUILD/bin/rdmanetctl PIN=/sys/fs/bpf/rnvmdp agent
	RN_TMP=/tmp/dp
	mkdir -p $RN_TMP
	. "$RN_SRC/selftests/devplugin/lib.sh"
	# lib.sh's dp_wait counts 0.1 s steps, each a jq run: most of a second
	# under TCG, back to back, taking the CPU the agent being waited for
	# needs. Here the same bound (10 steps a second) is in real seconds and
	# vm_wait_until paces the checks.
	dp_seen() { [ -n "$(dp_lines | jq -c "select($1)" 2>/dev/null | head -1)" ]; }
	dp_wait() {
		vm_wait_until $((${2:-20} * 10)) dp_seen "$1" && return 0
		echo "# timed out waiting for: $1"
		return 1
	}
	DP_LOG=$VM_OUT/kubelet.log
	local RES=rdma/rxe_shared

	cat >/tmp/agent.json <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 1 }, "bpf": { "pin_dir": "$PIN" },
  "device_plugin": { "kubelet_dir": "$DP_KUBELET", "cdi": true, "cdi_dir": "/var/run/cdi",
    "periodicUpdateInterval": 0,
    "configList": [ { "resourceName": "rxe_shared", "rdmaHcaMax": 2,
                      "selectors": { "ifNames": ["eth0"] } } ] } }
JSON
	dp_kubelet_start
	check "fake kubelet up" vm_wait_until 60 dp_wait '.event == "kubelet_up"' 1
	$D --config /tmp/agent.json -v 2>"$VM_OUT/agent.log" &
	agent=$!
	check "registered" dp_wait ".event == \"register\" and .resource == \"$RES\" and .error == null" 120
	check "rxe0 advertised, healthy" \
		dp_wait ".event == \"list\" and .resource == \"$RES\" and .n == 2 and .healthy == 2" 60
	check "Allocate answered" dp_wait ".event == \"allocate\" and .resource == \"$RES\"" 60

	local al want got p
	al=$(dp_last ".event == \"allocate\" and .resource == \"$RES\"")
	got=$(jq -r '.containers[0].devices[].host' <<<"$al" | sort | xargs)
	# rxe0's nodes as the kernel lists them, plus rdma_cm
	want=$(for c in /sys/class/infiniband_verbs/uverbs* /sys/class/infiniband_mad/*; do
		[ "$(cat "$c/ibdev" 2>/dev/null)" = rxe0 ] && echo "/dev/infiniband/$(basename "$c")"
	done; echo /dev/infiniband/rdma_cm)
	want=$(echo "$want" | sort | xargs)
	check_eq "Allocate: rxe0's device nodes and rdma_cm" "$got" "$want"
	for p in $got; do
		check "$p is a character device" test -c "$p"
	done
	check_eq "Allocate: env names rxe0 on eth0" \
		"$(jq -r '.containers[0].envs.RDMANET_HCAS_RDMA_RXE_SHARED' <<<"$al")" "rxe0:1:eth0"
	check_eq "Allocate: the CDI device" "$(jq -c '.containers[0].cdi' <<<"$al")" \
		'["rdmanet.io/hca=rxe0"]'
	check_eq "Allocate: the CDI annotation" \
		"$(jq -r '.containers[0].annotations["cdi.k8s.io/rdmanet_rdma_rxe_shared"]' <<<"$al")" \
		"rdmanet.io/hca=rxe0"
	check_eq "CDI spec: kind and device" \
		"$(jq -c '[.kind, [.devices[].name]]' /var/run/cdi/rdmanet.io-hca.json)" \
		'["rdmanet.io/hca",["rxe0"]]'
	check_eq "CDI spec: the same nodes" \
		"$(jq -r '.devices[0].containerEdits.deviceNodes[].path' /var/run/cdi/rdmanet.io-hca.json | sort | xargs)" \
		"$want"

	# a container engine consumes the spec: podman with runc, a busybox rootfs
	if command -v podman >/dev/null && command -v runc >/dev/null; then
		mkdir -p /tmp/rootfs/bin /tmp/rootfs/dev /tmp/rootfs/proc /tmp/rootfs/sys
		cp /bin/busybox /tmp/rootfs/bin/busybox
		# storage of its own: the guest's root is an overlay of the host's,
		# whose podman storage (overlay driver) cannot be used over overlayfs
		local pm=(podman --runtime runc --root /tmp/podman-root --runroot /tmp/podman-run
			  --storage-driver vfs)
		"${pm[@]}" run --rm --network none --ulimit nofile=1024:1024 \
			--ulimit nproc=1024:1024 --device rdmanet.io/hca=rxe0 \
			--rootfs /tmp/rootfs /bin/busybox sh -c \
			'for f in /dev/infiniband/*; do [ -c "$f" ] && echo "$f"; done' \
			>"$VM_OUT/podman.out" 2>"$VM_OUT/podman.err"
		check_eq "podman --device rdmanet.io/hca=rxe0: those nodes, no other" \
			"$(sort "$VM_OUT/podman.out" | xargs)" "$want"
		"${pm[@]}" run --rm --network none --ulimit nofile=1024:1024 \
			--ulimit nproc=1024:1024 --rootfs /tmp/rootfs /bin/busybox \
			ls /dev/infiniband >"$VM_OUT/podman-none.out" 2>&1
		# (the container ran: busybox says the directory is missing)
		check "without the CDI device the container has no /dev/infiniband" \
			grep -q "/dev/infiniband: No such file" "$VM_OUT/podman-none.out"
	else
		tap_skip "podman consumes the CDI spec" "podman or runc missing (make deps)"
	fi

	# health from the link event (periodic update off)
	dp_mark
	local t0 t1
	t0=$(date +%s.%N)
	ip link set eth0 down
	check "eth0 down: Unhealthy" \
		dp_wait ".event == \"list\" and .resource == \"$RES\" and .healthy == 0" 30
	t1=$(dp_last ".event == \"list\" and .resource == \"$RES\" and .healthy == 0" | jq -r .t)
	echo "$t0 $t1" | awk '{ printf "# link down -> kubelet sees Unhealthy: %.0f ms\n", ($2 - $1) * 1000 }' |
		tee "$VM_OUT/unhealthy_ms"
	check "agent log: why" grep -q "rxe0 unhealthy" "$VM_OUT/agent.log"
	dp_mark
	ip link set eth0 up
	check "eth0 up: Healthy again" \
		dp_wait ".event == \"list\" and .resource == \"$RES\" and .healthy == 2" 30
	check "the data path stayed attached" sh -c "$R -c /tmp/agent.json stats -j | jq -e '.masters[] | select(.ifname == \"eth0\" and .tc != \"none\")' >/dev/null"

	kill -TERM $agent
	wait $agent
	check_eq "agent stops cleanly" $? 0
	dp_kubelet_stop
	$D --uninstall --config /tmp/agent.json 2>/dev/null
	tap_done
}

if [ -n "${VM_NODE:-}" ]; then
	guest_main
fi

. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/vm/lib/vm.sh"
vm_require "${VM_SERIES:-6.12}"
vm_run_one "$0" 240
tap_done
