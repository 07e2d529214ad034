#!/bin/bash
# A device plugin's gRPC calls bring gRPC core's code back into rdmanetd's
# RSS (the start-up trim gave it back once): the agent's tick gives it back
# again (rn_mem_trim), so an agent that served a burst of calls and is then
# idle does not keep it. Read from /proc/PID/smaps: the resident part of
# libgrpc's text after 500 Allocate calls, then at each tick (every second
# in this config) until it falls; without the tick's trim it stays near
# the burst's (about 2 MiB here).
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
A=rdma/hca_shared_devices_a
dp_config "$RN_TMP/config.json" "{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 0,
  \"configList\": [ { \"resourceName\": \"hca_shared_devices_a\", \"rdmaHcaMax\": 2,
      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"] } } ] }"

# KiB of libgrpc's executable mapping resident in the agent
grpc_text_kib() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { t = ($2 == "r-xp" && $6 ~ /\/libgrpc\.so/) }
	     t && /^Rss:/ { n += $2 } END { print n + 0 }' /proc/"$RN_AGENT_PID"/smaps
}

dp_kubelet_start --bench-allocate 500
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "$A: 500 Allocate calls served" dp_wait ".event == \"allocate_bench\" and .resource == \"$A\"" 60
busy=$(grpc_text_kib)
check "libgrpc's text is mapped and resident after the calls (${busy} KiB)" test "$busy" -gt 0
low=$busy
for _ in $(seq 20); do
	kib=$(grpc_text_kib)
	[ "$kib" -lt "$low" ] && low=$kib
	[ "$low" -lt 512 ] && break
	sleep 0.5
done
check "idle, a tick gives libgrpc's text back: ${low} KiB resident (< 512)" test "$low" -lt 512
check_eq "the trimmed agent still serves the resource (rdmanetctl resources)" \
	"$(rn_ctl --config "$RN_TMP/config.json" resources -j | jq -c '[.[].serving]')" '[true]'
tap_done
