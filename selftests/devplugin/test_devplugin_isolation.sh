#!/bin/bash
# One resource that cannot be served does not take the others down: a
# resource whose socket path is longer than a unix socket allows fails
# rdmanetd --check-config, and a start serves the valid resource beside
# it (rdmanetctl resources says why the other is not served). An unclean
# exit (kill -9) leaves the old socket behind: the restarted agent's own
# bind replaces it, which is not a kubelet restart, and nothing logs a
# refused registration.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
A=rdma/hca_shared_devices_a
# the issue's shape: a 52-character prefix, a 50-character name
LP=$(printf 'p%.0s' $(seq 52))
LN=$(printf 'n%.0s' $(seq 50))
dp_config "$RN_TMP/config.json" "{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 1,
  \"configList\": [
    { \"resourcePrefix\": \"$LP\", \"resourceName\": \"$LN\", \"rdmaHcaMax\": 2,
      \"selectors\": { \"ifNames\": [\"ens1f1np1\"] } },
    { \"resourceName\": \"hca_shared_devices_a\", \"rdmaHcaMax\": 2,
      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"] } } ] }"

out=$(rn_in_node "$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/config.json" --check-config 2>&1)
rc=$?
check_eq "--check-config fails on the resource start cannot serve" "$rc" 1
check "--check-config: one line naming the resource and the limit" \
	test "$(wc -l <<<"$out")" = 1 -a -n "$(grep -F "device plugin $LP/$LN: socket path" <<<"$out" |
		grep -F "longer than a unix socket allows (107)")"

dp_kubelet_start
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "$A: registered beside the unservable resource" \
	dp_wait ".event == \"register\" and .resource == \"$A\" and .error == null"
check "$A: its list, healthy" dp_wait ".event == \"list\" and .resource == \"$A\" and .healthy == 2"
check "agent log: the unservable resource is named, the others served" \
	grep -qF "device plugin $LP/$LN: socket path" "$RN_TMP/agent.log"
res=$(rn_ctl --config "$RN_TMP/config.json" resources -j)
check_eq "rdmanetctl resources: the unservable one refused, not serving; the other serving" \
	"$(jq -c '[.[] | [.serving, .refused, (.refused_why | test("longer than a unix socket"))]]' <<<"$res")" \
	'[[false,true,true],[true,false,false]]'

# --- kill -9, then a restart ----------------------------------------------------
kill -KILL "$RN_AGENT_PID"
wait "$RN_AGENT_PID" 2>/dev/null
RN_AGENT_PID=
check "kill -9 left the socket behind" \
	test -S "$DP_KUBELET/device-plugins/rdmanet-rdma-hca_shared_devices_a.sock"
dp_mark
lines=$(wc -l <"$RN_TMP/agent.log")
check "agent restarts after kill -9" rn_agent_start "$RN_TMP/config.json"
check "$A: registered again" dp_wait ".event == \"register\" and .resource == \"$A\" and .error == null"
check "$A: list after the restart" dp_wait ".event == \"list\" and .resource == \"$A\" and .healthy == 2"
# Register answered and the list sent: anything the stale socket's removal
# set off has been logged by now
new_log() { tail -n +$((lines + 1)) "$RN_TMP/agent.log"; }
check "no 'kubelet refused the registration' after the restart" \
	test -z "$(new_log | grep "kubelet refused the registration")"
check "the agent's own bind is not taken for a kubelet restart" \
	test -z "$(new_log | grep "was deleted (kubelet restart?)")"
check_eq "one registration of $A since the restart" \
	"$(dp_lines | jq -c "select(.event == \"register\" and .resource == \"$A\")" | wc -l)" 1
rn_agent_stop
tap_done
