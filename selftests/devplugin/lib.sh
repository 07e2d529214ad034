# shellcheck shell=bash
# The device plugin against the fake kubelet (fake_kubelet.py), on top of
# the netns node of selftests/lib/netns.sh (rdmanetd attached to roce0, so
# every test also sees that the data path keeps running).
#
#   dp_fixture NAME          copy a sysfs fixture tree to $RN_TMP/host (mutable)
#   dp_kubelet_start [ARGS]  start a fake kubelet on $DP_KUBELET (log $DP_LOG)
#   dp_kubelet_stop
#   dp_mark                  later dp_wait/dp_last look only at lines after now
#   dp_wait JQ_FILTER [SECONDS]   wait until the log has a line matching it
#   dp_last JQ_FILTER        the last log line matching it
#   dp_config FILE JSON      an agent config whose device_plugin is JSON
DP_PY=/usr/bin/python3	# Debian's python3-grpcio is visible to this one only
DP_KUBELET=$RN_TMP/kubelet
DP_LOG=$RN_TMP/kubelet.log
DP_KUBELET_PID=
DP_SINCE=0

# grpc_tools.protoc needs pkg_resources, which Debian ships apart
# (python3-pkg-resources): importing it is the test that the stubs can be made
dp_have_python_grpc() {
	$DP_PY -c 'import grpc, grpc_tools.protoc' 2>/dev/null
}

# make deps installs them: a missing one is a failure, not a skip
dp_require_python_grpc() {
	dp_have_python_grpc && return 0
	tap_fail "the fake kubelet's Python gRPC ($DP_PY: $($DP_PY -c 'import grpc, grpc_tools.protoc' 2>&1 | tail -n 1)); make deps installs python3-grpcio python3-grpc-tools python3-pkg-resources"
	tap_done
}

dp_fixture() {
	rm -rf "$RN_TMP/host"
	cp -a "$RN_SRC/selftests/fixtures/sysfs/$1" "$RN_TMP/host"
}

dp_kubelet_start() {
	mkdir -p "$DP_KUBELET/device-plugins"
	$DP_PY "$RN_SRC/selftests/devplugin/fake_kubelet.py" --kubelet-dir "$DP_KUBELET" \
		--log "$DP_LOG" "$@" >>"$RN_TMP/kubelet.out" 2>&1 &
	DP_KUBELET_PID=$!
}

dp_kubelet_stop() {
	[ -n "$DP_KUBELET_PID" ] || return 0
	kill "$DP_KUBELET_PID" 2>/dev/null
	wait "$DP_KUBELET_PID" 2>/dev/null
	DP_KUBELET_PID=
}

dp_mark() { DP_SINCE=$(wc -l <"$DP_LOG" 2>/dev/null || echo 0); }
dp_lines() { tail -n +$((DP_SINCE + 1)) "$DP_LOG" 2>/dev/null; }

dp_wait() {
	local filter=$1 secs=${2:-20} i
	for ((i = 0; i < secs * 10; i++)); do
		[ -n "$(dp_lines | jq -c "select($filter)" 2>/dev/null | head -1)" ] && return 0
		sleep 0.1
	done
	echo "# timed out waiting for: $filter"
	return 1
}

dp_last() { dp_lines | jq -c "select($1)" 2>/dev/null | tail -1; }
# dp_alloc_devices EVENT: an allocate event's device specs, "host=container:perm", sorted
dp_alloc_devices() { jq -c '[.containers[0].devices[] | "\(.host)=\(.container):\(.perm)"] | sort' <<<"$1"; }

# dp_config FILE DEVICE_PLUGIN_JSON
dp_config() {
	rn_agent_config "$1" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" }, \"device_plugin\": $2"
}
