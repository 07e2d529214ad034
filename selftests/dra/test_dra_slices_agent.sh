#!/bin/bash
# rdmanetd publishes its DRA devices as ResourceSlices (user/lib/dra/slices.h)
# to an API-server stand-in that validates them (selftests/kubeapi; no real
# API server runs): on start, again within seconds when a port goes down
# in the node's sysfs (the ConnectX-5 fixture), again when kubelet
# registers the driver anew (a starting kubelet deletes the node's slices),
# and on the resync when they were deleted behind its back. Without an
# API server to reach, the kubelet side works on and the failure is logged
# once.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
trap 'standin_stop; rn_topo_down' EXIT

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
REQ=$RN_BUILD/tools/kube_request
RS=/apis/resource.k8s.io/v1/resourceslices
mkdir -p "$RN_TMP/api"
rn_in_node ip link set lo up
STANDIN_RUN="nsenter --net=/run/netns/$RN_NODE"	# the agent's loopback
standin_start "$RN_TMP/api" || { tap_fail "the API-server stand-in starts"; tap_done; }
standin_kubeconfig "$RN_TMP/api" "$RN_TMP/kubeconfig"
K=(--kubeconfig "$RN_TMP/kubeconfig")
slices() { rn_in_node "$REQ" "${K[@]}" GET "$RS" 2>/dev/null | sed -n 2p; }
# wait_for WHAT JQ-FILTER: up to 20 s for the stand-in's slices to match
wait_for() {
	local i
	for i in $(seq 100); do
		[ "$(slices | jq -r "$2" 2>/dev/null)" = true ] && { tap_ok "$1"; return; }
		sleep 0.2
	done
	tap_fail "$1: the API server holds $(slices | jq -c '[.items[] | {name: .metadata.name, gen: .spec.pool.generation}]')"
}

dra_config "$RN_TMP/config.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\", \"resync_s\": 600 }"
check "the agent starts with a dra section that publishes slices" rn_agent_start "$RN_TMP/config.json"
wait_for "its slices are published (the stand-in validated them): pool $DRA_POOL, generation 1" \
	"[.items[] | .spec.pool] == [{\"name\": \"$DRA_POOL\", \"generation\": 1, \"resourceSliceCount\": 1}]"
check_eq "... with every device of the fixture" \
	"$(slices | jq '.items[0].spec.devices | length')" \
	"$("$RN_BUILD/tools/dra_slices" --sysfs "$RN_TMP/host/sys" --node x --print | jq '.[0].spec.devices | length')"

echo "1: DOWN" >"$RN_TMP/host/sys/class/infiniband/mlx5_0/ports/1/state"
wait_for "a port goes down: a new generation says so within seconds" \
	'.items[0] | .spec.pool.generation == 2 and (.spec.devices[] | select(.name == "mlx5-0-port1") | .attributes.portState.string == "DOWN")'

wipe() { rn_in_node "$REQ" "${K[@]}" DELETE "$RS?fieldSelector=spec.nodeName%3D$(slices | jq -r '.items[0].spec.nodeName')" >/dev/null; }
wipe
check_eq "kubelet starting deletes the node's slices (deletecollection)" "$(slices | jq '.items | length')" 0
dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER" >/dev/null
wait_for "... and registers the driver: the slices are published again at once (the resync is 10 minutes away)" \
	'.items | length == 1'

rn_agent_stop
dra_config "$RN_TMP/config.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\", \"resync_s\": 2 }"
lists=$(grep -c fieldSelector "$RN_TMP/api/requests.log")
check "agent restarted (resync every 2 s)" rn_agent_start "$RN_TMP/config.json"
for i in $(seq 100); do	# its first publication (it found the slices unchanged)
	[ "$(grep -c fieldSelector "$RN_TMP/api/requests.log")" -gt "$lists" ] && break
	sleep 0.2
done
wipe
wait_for "deleted behind its back with no registration: published again by the resync" '.items | length == 1'

rn_agent_stop
standin_stop
check "agent restarted with the API server down" rn_agent_start "$RN_TMP/config.json"
for _ in $(seq 100); do [ -S "$DRA_SOCK" ] && break; sleep 0.1; done
U1=11111111-1111-4111-8111-111111111111
dra_claim default shared1 $U1 "[$(dra_result nic mlx5-1-port1)]"
out=$(dra_prepare v1.DRAPlugin default/shared1/$U1)
check_eq "... the kubelet side works on: a claim is prepared" "$(jq -r ".claims[\"$U1\"].error" <<<"$out")" ""
sleep 6
check_eq "... the failed publication is logged once, not every retry" \
	"$(grep -c 'ResourceSlices not published' "$RN_TMP/agent.log")" 1
tap_done
