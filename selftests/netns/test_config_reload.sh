#!/bin/bash
# rdmanetd follows its ConfigMap without a restart. The config lives in a
# directory laid out as kubelet lays out a ConfigMap volume (config.json ->
# ..data/config.json, ..data -> ..<version>) and is edited as kubelet edits
# it: a new version directory, then ..data renamed onto the old one. A
# master's policy changes live (enforce drops a spoofed source it passed
# before); a garbage edit is reported in one line and changes nothing; the
# data path is never touched (same programs, counters continue, the pod
# stays registered); each good config, and only good ones, is published to
# the host's copy the CNI plugin reads.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
SINK=$RN_BUILD/tools/rn_udpsink

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
rn_in_node ip addr add 10.77.0.1/24 dev roce0

CM=$RN_TMP/configmap
HOST=$RN_TMP/host-etc-rdmanet
mkdir -p "$CM" "$HOST"
VER=0
# kubelet's atomic writer: new ..<version> dir, ..data_tmp -> it, rename
# onto ..data, old version removed
cm_write() {	# cm_write FILE
	local old new
	old=$(readlink "$CM/..data")
	VER=$((VER + 1))
	new=..v$VER
	mkdir "$CM/$new"
	cp "$1" "$CM/$new/config.json"
	ln -s "$new" "$CM/..data_tmp"
	mv -T "$CM/..data_tmp" "$CM/..data"
	[ -n "$old" ] && rm -rf "${CM:?}/$old"
	[ -e "$CM/config.json" ] || ln -s ..data/config.json "$CM/config.json"
}
log_count() { grep -c -- "$1" "$RN_TMP/agent.log"; }
# wait_log PATTERN BEFORE: until the log has more lines matching than
# BEFORE (10 s at most)
wait_log() {
	for _ in $(seq 100); do
		[ "$(log_count "$1")" -gt "$2" ] && return 0
		sleep 0.1
	done
	echo "# waited 10 s for a log line matching \"$1\"; log:"
	sed 's/^/#   /' "$RN_TMP/agent.log"
	return 1
}
received() {	# received PORT CMD... : datagrams the peer got while CMD ran
	local port=$1
	shift
	rm -f "$RN_TMP/ready"
	nsenter --net=/run/netns/"$RN_PEER" "$SINK" --port "$port" --idle-ms 700 --max-s 5 \
		--ready "$RN_TMP/ready" >"$RN_TMP/sink.out" &
	local pid=$!
	for _ in $(seq 50); do [ -e "$RN_TMP/ready" ] && break; sleep 0.1; done
	"$@"
	wait $pid
	cat "$RN_TMP/sink.out"
}
progs() {
	echo "tc=$(rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].tc[]? | .prog_id] | sort')"
}

rn_agent_config "$RN_TMP/monitor.json" monitor
rn_agent_config "$RN_TMP/enforce.json" enforce "" '"qos": { "roce_dscp": 34, "ecn": "ect1" }'
rn_agent_config "$RN_TMP/off.json" off
cm_write "$RN_TMP/monitor.json"
check "agent starts on the ConfigMap-shaped dir" \
	rn_agent_start "$CM/config.json" --publish-config "$HOST/config.json"
check_eq "policy monitor" "$(rn_stat '.masters[0].policy')" monitor
check "started config published to the host copy" cmp -s "$RN_TMP/monitor.json" "$HOST/config.json"
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
rn_in a ping -c1 -W2 10.77.0.100 >/dev/null
PROGS=$(progs)
check_eq "monitor: spoofed source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 20)" 20

n=$(log_count "reloaded")
cm_write "$RN_TMP/enforce.json"
check "kubelet-style swap to enforce: reload logged" wait_log "reloaded" "$n"
check_eq "policy enforce without a restart" "$(rn_stat '.masters[0].policy')" enforce
check_eq "QoS the programs mark with changed too" "$(rn_stat '.masters[0].qos | "\(.roce_dscp) \(.ecn)"')" "34 ect1"
check_eq "enforce: spoofed source dropped" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 30)" 0
check_eq "enforce: own source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --count 40)" 40
check_eq "counters continued across the reload (20 + 40 sent)" \
	"$(rn_pod_stat t/a .tx.roce.packets)" 60
check_eq "drops counted" "$(rn_pod_stat t/a .drops.spoofed_source)" 30
check_eq "same programs attached" "$(progs)" "$PROGS"
check "new config published" cmp -s "$RN_TMP/enforce.json" "$HOST/config.json"

n=$(log_count "keeping the last good config")
echo '{ "masters": [ { "ifname": "roce0", "policy": ' >"$RN_TMP/garbage.json"
cm_write "$RN_TMP/garbage.json"
check "garbage edit reported" wait_log "keeping the last good config" "$n"
check_eq "in one line, naming the file" \
	"$(grep "keeping the last good config" "$RN_TMP/agent.log" | tail -1 | grep -c "$CM/config.json: config: line")" 1
grep "keeping the last good config" "$RN_TMP/agent.log" | tail -1 | sed 's/^/# /'
check "agent still running" kill -0 "$RN_AGENT_PID"
check_eq "policy still enforce" "$(rn_stat '.masters[0].policy')" enforce
check_eq "still dropping the spoofed source" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 10)" 0
check_eq "pod still registered" "$(rn_ctl pod show -j | jq length)" 1
check "host copy still the last good config" cmp -s "$RN_TMP/enforce.json" "$HOST/config.json"

n=$(log_count "keeping the last good config")
sed 's/"enforce"/"sometimes"/' "$RN_TMP/enforce.json" >"$RN_TMP/badvalue.json"
cm_write "$RN_TMP/badvalue.json"
check "bad value reported" wait_log "keeping the last good config" "$n"
check_eq "the bad key is named" \
	"$(grep "keeping the last good config" "$RN_TMP/agent.log" | tail -1 | grep -c "masters\[0\].policy")" 1
check_eq "policy still enforce after a bad value" "$(rn_stat '.masters[0].policy')" enforce

n=$(log_count "reloaded")
cm_write "$RN_TMP/off.json"
check "a good edit after garbage applies" wait_log "reloaded" "$n"
check_eq "policy off" "$(rn_stat '.masters[0].policy')" off
check_eq "off: spoofed source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 15)" 15
check_eq "same programs after three edits" "$(progs)" "$PROGS"
check_eq "tx counters never reset (20 + 40 + 15)" "$(rn_pod_stat t/a .tx.roce.packets)" 75
check "off config published" cmp -s "$RN_TMP/off.json" "$HOST/config.json"

# not kubelet's way: the file behind ..data rewritten in place (inotify on
# the top directory does not see it; the tick's look does)
n=$(log_count "reloaded")
cat "$RN_TMP/monitor.json" >"$CM/$(readlink "$CM/..data")/config.json"
check "an in-place edit behind the symlinks is picked up at the tick" wait_log "reloaded" "$n"
check_eq "policy monitor again" "$(rn_stat '.masters[0].policy')" monitor

n=$(log_count "takes effect at the next restart")
sed "s|\"pin_dir\": \"$RN_PIN\"|\"pin_dir\": \"$RN_PIN-other\"|" "$RN_TMP/off.json" >"$RN_TMP/pin.json"
cm_write "$RN_TMP/pin.json"
check "pin_dir change needs a restart: said" wait_log "takes effect at the next restart" "$n"
check_eq "maps still in the old pin dir" "$(rn_ctl pod show -j | jq length)" 1
check "no other pin dir made" test ! -e "$RN_PIN-other"
tap_done
