#!/bin/bash
# Health follows link events, not a poll: with periodicUpdateInterval 0 the
# only thing that re-reads the RDMA model is an rtnetlink link event. The
# fixture HCA mlx5_1's netdev is made the node's real roce0 (a sysfs of the
# node's netns mounted under the run dir, linked from the fixture tree), so
# `ip link set roce0 down` is a real event: the fake kubelet must get the
# Unhealthy list, and the Healthy one after `up`.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
NSYS=$RN_TMP/nsys
trap 'dp_kubelet_stop; umount "$NSYS" 2>/dev/null; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
mkdir -p "$NSYS"
check "a sysfs of the node's netns" rn_in_node mount -t sysfs sysfs "$NSYS"
OPER=$RN_TMP/host/sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1/net/ens1f1np1/operstate
rm "$OPER" && ln -s "$NSYS/class/net/roce0/operstate" "$OPER"
check_eq "the fixture's ens1f1np1 is roce0" "$(cat "$OPER")" up
G=spidernet.io/shared_cx5_gpu1
dp_config "$RN_TMP/config.json" "{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0,
  \"configList\": [ { \"resourcePrefix\": \"spidernet.io\", \"resourceName\": \"shared_cx5_gpu1\",
                      \"rdmaHcaMax\": 2, \"selectors\": { \"ifNames\": [\"ens1f1np1\"] } } ] }"
dp_kubelet_start
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "healthy list" dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 2"
for round in 1 2; do
	dp_mark
	ip -n "$RN_NODE" link set roce0 down
	check "round $round: roce0 down -> Unhealthy" \
		dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 0"
	dp_mark
	ip -n "$RN_NODE" link set roce0 up
	check "round $round: roce0 up -> Healthy" \
		dp_wait ".event == \"list\" and .resource == \"$G\" and .healthy == 2"
done
check_eq "no list without a change: one per transition (coalesced)" \
	"$(jq -c "select(.event == \"list\" and .resource == \"$G\") | .healthy" "$DP_LOG" | xargs)" \
	"2 0 2 0 2"
tap_done
