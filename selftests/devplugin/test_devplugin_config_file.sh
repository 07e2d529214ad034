#!/bin/bash
# device_plugin.configFile (the shared device plugin's own ConfigMap) is an
# input of the node config: an edit of it reaches kubelet and the log, and
# rdmanetctl resources shows what kubelet was sent. A config refused for a
# bad configFile is retried once that file is fixed: the node-config edit
# made meanwhile (the master monitor -> enforce) is applied then.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
A=rdma/hca_shared_devices_a
PLUGIN=$RN_TMP/plugin/config.json
mkdir -p "$RN_TMP/plugin"
# plugin_config MAX: the shared plugin's config.json with rdmaHcaMax MAX
plugin_config() {
	cat >"$PLUGIN" <<JSON
{ "periodicUpdateInterval": 0,
  "configList": [ { "resourceName": "hca_shared_devices_a", "rdmaHcaMax": $1,
                    "selectors": { "vendors": ["15b3"], "deviceIDs": ["1017"] } } ] }
JSON
}
DP="{ \"kubelet_dir\": \"$DP_KUBELET\", \"configFile\": \"$PLUGIN\" }"
plugin_config 5
dp_config "$RN_TMP/config.json" "$DP"
# wait_log TEXT SINCE_LINE: the agent logged TEXT after line SINCE_LINE
wait_log() {
	for _ in $(seq 100); do
		tail -n +$(($2 + 1)) "$RN_TMP/agent.log" | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
# the reload logs "reloaded" before it applies the masters: wait for it
policy_is() {
	for _ in $(seq 50); do
		[ "$(rn_stat '.masters[0].policy')" = "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
devices() { rn_ctl --config "$RN_TMP/config.json" resources -j | jq -c '[.[] | [.resource, .devices]]'; }

dp_kubelet_start
check "fake kubelet up" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "$A: 5 devices from the configFile" dp_wait ".event == \"list\" and .resource == \"$A\" and .n == 5"

# --- an edit of the configFile alone ----------------------------------------------
dp_mark
n=$(wc -l <"$RN_TMP/agent.log")
plugin_config 3
check "configFile edit: kubelet gets 3 devices" \
	dp_wait ".event == \"list\" and .resource == \"$A\" and .n == 3"
check "configFile edit: logged" wait_log "device plugin restarted" "$n"
check_eq "rdmanetctl resources: what kubelet was sent" "$(devices)" "[[\"$A\",3]]"

# --- garbage in the configFile blocks a node-config edit, until it is fixed ----
check_eq "master in monitor" "$(rn_stat '.masters[0].policy')" monitor
n=$(wc -l <"$RN_TMP/agent.log")
printf '{ "configList": [ { "resourceName": ' >"$PLUGIN"
check "garbage configFile: refused, logged" wait_log "configFile $PLUGIN: line 1" "$n"
n=$(wc -l <"$RN_TMP/agent.log")
rn_agent_config "$RN_TMP/config.json" enforce "" \
	"\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" }, \"device_plugin\": $DP"
check "node-config edit refused while the configFile is bad" wait_log "keeping the last good config" "$n"
check_eq "master still in monitor" "$(rn_stat '.masters[0].policy')" monitor
dp_mark
n=$(wc -l <"$RN_TMP/agent.log")
plugin_config 2
check "configFile fixed: the config is retried and reloaded" wait_log "reloaded" "$n"
check "the node-config edit is applied: master in enforce" policy_is enforce
check "kubelet gets the fixed configFile's 2 devices" \
	dp_wait ".event == \"list\" and .resource == \"$A\" and .n == 2"
check_eq "rdmanetctl resources: 2 devices" "$(devices)" "[[\"$A\",2]]"

# --- a node-config edit that changes nothing the plugin serves ----------------
dp_mark
n=$(wc -l <"$RN_TMP/agent.log")
rn_agent_config "$RN_TMP/config.json" monitor "" \
	"\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" }, \"device_plugin\": $DP"
check "policy edit reloaded" wait_log "reloaded" "$n"
check "the device plugin is not restarted for it" \
	test -z "$(tail -n +$((n + 1)) "$RN_TMP/agent.log" | grep "device plugin restarted")"
rn_agent_stop
tap_done
