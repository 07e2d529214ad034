#!/bin/bash
# The device plugin on bad input and odd kubelets: a kubelet that refuses
# the registration, one that never answers it, registration through the
# plugin watcher instead of kubelet.sock, exclusive netns mode, and configs
# the agent must refuse (one line naming the key). The data path keeps
# running and the textfile keeps being written throughout.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
trap 'dp_kubelet_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_healthy
R=rdma/hca_shared_devices_a
DP="{ \"kubelet_dir\": \"$DP_KUBELET\", \"periodicUpdateInterval\": 1,
  \"configList\": [ { \"resourceName\": \"hca_shared_devices_a\", \"rdmaHcaMax\": 2,
                      \"selectors\": { \"vendors\": [\"15b3\"], \"deviceIDs\": [\"1017\"] } } ] }"
dp_config "$RN_TMP/config.json" "$DP"
TEXTFILE=$RN_TMP/textfile/rdmanet.prom

# the textfile is rewritten (interval 1 s) while the plugin waits on kubelet
textfile_moves() {
	local before i
	before=$(stat -c %Y.%N "$TEXTFILE" 2>/dev/null) || return 1
	for i in $(seq 50); do
		sleep 0.1
		[ "$(stat -c %Y.%N "$TEXTFILE" 2>/dev/null)" != "$before" ] && return 0
	done
	return 1
}
attached() { test "$(rn_stat '.masters[] | select(.ifname == "roce0") | .tc')" != none; }

# --- a kubelet that refuses -------------------------------------------------
dp_kubelet_start --refuse
check "fake kubelet up (refusing)" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "Register reached the kubelet" dp_wait ".event == \"register\" and .resource == \"$R\""
for i in $(seq 50); do grep -q "kubelet refused" "$RN_TMP/agent.log" && break; sleep 0.1; done
check "agent logs the refusal with kubelet's reason" \
	grep -q "device plugin $R: kubelet refused the registration: refused by this fake kubelet" \
	"$RN_TMP/agent.log"
check "agent still running" kill -0 "$RN_AGENT_PID"
check "data path attached" attached
check "textfile still written" textfile_moves
rn_agent_stop
dp_kubelet_stop

# --- a kubelet that never answers Register ------------------------------------
dp_mark
dp_kubelet_start --stall
check "fake kubelet up (stalling)" dp_wait '.event == "kubelet_up"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
check "Register pending at the kubelet" dp_wait ".event == \"register\" and .resource == \"$R\""
check "textfile written while Register hangs" textfile_moves
check "data path attached" attached
rn_agent_stop
check "agent stops cleanly with a Register in flight" test $? = 0
dp_kubelet_stop

# --- the plugin watcher ------------------------------------------------------
mkdir -p "$DP_KUBELET/plugins_registry"
dp_mark
check "agent attaches (watcher mode)" rn_agent_start "$RN_TMP/config.json"
dp_kubelet_start --watcher
check "GetInfo answered" dp_wait ".event == \"getinfo\" and .resource == \"$R\""
gi=$(dp_last ".event == \"getinfo\"")
check_eq "GetInfo passes kubelet's checks" "$(jq -r .error <<<"$gi")" null
check_eq "GetInfo: type, versions, endpoint" "$(jq -c '[.type, .versions]' <<<"$gi")" \
	'["DevicePlugin",["v1beta1"]]'
check_eq "endpoint is the socket under plugins_registry" "$(jq -r .endpoint <<<"$gi")" \
	"$DP_KUBELET/plugins_registry/rdmanet-rdma-hca_shared_devices_a.sock"
check "ListAndWatch through the watcher registration" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and .healthy == 2"
check "Allocate through the watcher registration" \
	dp_wait ".event == \"allocate\" and .resource == \"$R\""
for i in $(seq 50); do grep -q "plugin watcher" "$RN_TMP/agent.log" && break; sleep 0.1; done
check "agent heard NotifyRegistrationStatus" \
	grep -q "device plugin $R: registered with kubelet (plugin watcher)" "$RN_TMP/agent.log"
rn_agent_stop
dp_kubelet_stop
rm -rf "$DP_KUBELET/plugins_registry"

# --- exclusive netns mode: nothing advertised, and why --------------------------
dp_fixture netns_exclusive
dp_mark
dp_kubelet_start
check "agent attaches (exclusive mode)" rn_agent_start "$RN_TMP/config.json"
check "registered, with an empty list" \
	dp_wait ".event == \"list\" and .resource == \"$R\" and .n == 0"
check "agent says why" grep -q "exclusive netns mode" "$RN_TMP/agent.log"
rn_agent_stop
dp_kubelet_stop

# --- configs the agent refuses --------------------------------------------------
check "agent attaches (good config)" rn_agent_start "$RN_TMP/config.json"
# bad_config "what" "stderr must contain" DEVICE_PLUGIN_JSON
bad_config() {
	local out rc
	dp_config "$RN_TMP/bad.json" "$3"
	out=$(rn_in_node "$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/bad.json" --pin-dir "$RN_PIN" --once 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && grep -qF -- "$2" <<<"$out"; then
		tap_ok "$1"
	else
		tap_fail "$1: rc=$rc output=[$out] (want one line containing '$2')"
	fi
}
bad_config "unknown selector" 'device_plugin.configList[0].selectors: unknown key "vendorz"' \
	'{ "configList": [ { "resourceName": "a", "selectors": { "vendorz": ["15b3"] } } ] }'
bad_config "unknown device_plugin key" 'device_plugin: unknown key "kubeletDir"' \
	'{ "kubeletDir": "/x", "configList": [] }'
bad_config "resource name kubelet would reject" 'prefix "Spidernet.IO" is not a lowercase DNS subdomain' \
	'{ "configList": [ { "resourcePrefix": "Spidernet.IO", "resourceName": "a", "selectors": { "ifNames": ["x"] } } ] }'
bad_config "resourceName the shared plugin rejects" 'resourceName: "hca-a": only letters, digits and _' \
	'{ "configList": [ { "resourceName": "hca-a", "selectors": { "ifNames": ["x"] } } ] }'
bad_config "rdmaHcaMax < 0" 'rdmaHcaMax' \
	'{ "configList": [ { "resourceName": "a", "rdmaHcaMax": -1, "selectors": { "ifNames": ["x"] } } ] }'
bad_config "selectors and devices" '"selectors" and "devices" both given' \
	'{ "configList": [ { "resourceName": "a", "devices": ["x"], "selectors": { "ifNames": ["x"] } } ] }'
bad_config "no selector" 'neither "selectors" nor "devices"' \
	'{ "configList": [ { "resourceName": "a" } ] }'
bad_config "duplicate resource" 'already used by configList[0]' \
	'{ "configList": [ { "resourceName": "a", "devices": ["x"] }, { "resourceName": "a", "devices": ["y"] } ] }'
bad_config "bad vendor ID" 'expected 4 lowercase hex digits' \
	'{ "configList": [ { "resourceName": "a", "selectors": { "vendors": ["0x15b3"] } } ] }'
printf '{ "configList": [ { "resourceName": ' >"$RN_TMP/plugin.json"
bad_config "malformed configFile" "configFile $RN_TMP/plugin.json: line 1" \
	"{ \"configFile\": \"$RN_TMP/plugin.json\" }"
bad_config "missing configFile" "configFile $RN_TMP/nope.json" \
	"{ \"configFile\": \"$RN_TMP/nope.json\" }"
check "data path still attached after the refused configs" attached
check "agent still running" kill -0 "$RN_AGENT_PID"
tap_done
