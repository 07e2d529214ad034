# shellcheck shell=bash
# A throwaway RoCE node in network namespaces, for tests and the demo:
#
#   node netns:  roce0 (the "RoCE master", a veth end) + rdmanetd
#   peer netns:  wire0 (the other end), 10.77.0.100/24, fd77::100/64
#   pod netns:   eth1, a macvlan (bridge) child of roce0
#
# Names carry a per-run prefix so parallel runs do not collide. The agent
# runs under `nsenter --net` (not `ip netns exec`, which remounts /sys and
# would hide the host bpffs where the maps are pinned).
#
#   rn_topo_up               create node + peer, set RN_NODE RN_PEER RN_PIN
#   rn_pod_up NAME IPv4 [IPv6] [MODE]  create a pod netns with eth1; prints its MAC
#   rn_in_node CMD...        run in the node netns
#   rn_in NAME CMD...        run in a pod (or peer) netns
#   rn_ctl ARGS...           rdmanetctl on this run's pin dir, in the node netns
#   rn_agent_config FILE [POLICY] [extra master JSON]  write an agent config
#                            (RN_MAX_PODS sets bpf.max_pods)
#   rn_agent_start CONFIG [ARGS...]  start rdmanetd in the background (RN_AGENT_PID),
#                            wait attach; ARGS go to rdmanetd; RN_AGENT_BIN
#                            picks another build's agent
#   rn_agent_stop            SIGTERM the agent and wait
#   rn_topo_down             agent --uninstall, delete netns, remove pins (trap this)
#   rn_map_u64s PINNED_MAP   the values of a pinned __u64 array, in key order

RN_BUILD=${RN_BUILD:-$(pwd)/build}
RN_PFX=${RN_PFX:-rn$$}
RN_NODE=${RN_PFX}-node
RN_PEER=${RN_PFX}-peer
RN_PIN=/sys/fs/bpf/${RN_PFX}
RN_TMP=${RN_TMP:-$(mktemp -d /tmp/${RN_PFX}.XXXXXX)}
RN_PODS=()
RN_AGENT_PID=

rn_in_node() { nsenter --net=/run/netns/"$RN_NODE" "$@"; }
rn_in() { nsenter --net=/run/netns/"$RN_PFX-$1" "${@:2}"; }
rn_ctl() { rn_in_node "$RN_BUILD/bin/rdmanetctl" --pin-dir "$RN_PIN" "$@"; }

rn_topo_up() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	ip netns add "$RN_NODE" && ip netns add "$RN_PEER" || return 1
	ip -n "$RN_NODE" link add name roce0 type veth peer name wire0 netns "$RN_PEER" || return 1
	ip -n "$RN_NODE" link set lo up
	ip -n "$RN_PEER" link set lo up
	ip -n "$RN_NODE" link set roce0 up
	ip -n "$RN_PEER" link set wire0 up
	ip -n "$RN_PEER" addr add 10.77.0.100/24 dev wire0
	ip -n "$RN_PEER" addr add fd77::100/64 dev wire0 nodad
}

# rn_pod_up NAME IPV4 [IPV6] [MACVLAN_MODE]
rn_pod_up() {
	local name=$1 ip4=$2 ip6=${3:-} mode=${4:-bridge} ns=$RN_PFX-$1 tmp=mv$RANDOM
	ip netns add "$ns" || return 1
	echo "$ns" >>"$RN_TMP/pods.list"	# callers run us in $(...): a subshell
	ip -n "$RN_NODE" link add link roce0 name "$tmp" type macvlan mode "$mode" || return 1
	ip -n "$RN_NODE" link set "$tmp" netns "$ns"
	ip -n "$ns" link set "$tmp" name eth1
	ip -n "$ns" link set lo up
	ip -n "$ns" addr add "$ip4/24" dev eth1
	[ -n "$ip6" ] && ip -n "$ns" addr add "$ip6/64" dev eth1 nodad
	ip -n "$ns" link set eth1 up
	ip -n "$ns" -br link show eth1 | awk '{print $3}'
}

# rn_agent_config FILE [POLICY] [MASTER_EXTRA_JSON] [TOP_EXTRA_JSON]
rn_agent_config() {
	cat >"$1" <<JSON
{
  "node": "$RN_PFX",
  "masters": [ { "ifname": "roce0", "policy": "${2:-monitor}"${3:+, $3} } ],
  "textfile": { "dir": "$RN_TMP/textfile", "interval_s": 1 },
  "bpf": { "pin_dir": "$RN_PIN"${RN_MAX_PODS:+, \"max_pods\": $RN_MAX_PODS} }${4:+, $4}
}
JSON
}

rn_agent_start() {
	local n before
	# a restarted agent finds its maps (and their attach state) from before:
	# wait for this one's own "attached" log line
	before=$(grep -c "master(s) attached" "$RN_TMP/agent.log" 2>/dev/null)
	# nsenter execs the agent: $! is the agent itself, so signals reach it
	nsenter --net=/run/netns/"$RN_NODE" "${RN_AGENT_BIN:-$RN_BUILD/bin/rdmanetd}" --config "$1" "${@:2}" \
		>>"$RN_TMP/agent.log" 2>&1 &
	RN_AGENT_PID=$!
	for _ in $(seq 300); do	# 30 s: a first start on a loaded machine
		n=$(grep -c "master(s) attached" "$RN_TMP/agent.log" 2>/dev/null)
		if [ "${n:-0}" -gt "${before:-0}" ]; then
			# (jq 1.6 -e exits 0 on empty input, so count instead)
			n=$(rn_ctl stats -j 2>/dev/null |
			    jq '[.masters[] | select(.ifname == "roce0" and .tc != "none")] | length' 2>/dev/null)
			[ "$n" = 1 ] && return 0
		fi
		kill -0 "$RN_AGENT_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "# agent did not attach; log:" && sed 's/^/# /' "$RN_TMP/agent.log"
	return 1
}

rn_agent_stop() {
	[ -n "$RN_AGENT_PID" ] || return 0
	kill -TERM "$RN_AGENT_PID" 2>/dev/null
	wait "$RN_AGENT_PID" 2>/dev/null
	local rc=$?
	RN_AGENT_PID=
	return $rc
}

rn_topo_down() {
	rn_agent_stop
	[ -d "$RN_PIN" ] && rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
	[ -f "$RN_TMP/pods.list" ] && mapfile -t -O ${#RN_PODS[@]} RN_PODS <"$RN_TMP/pods.list"
	for ns in "${RN_PODS[@]}" "$RN_PEER" "$RN_NODE"; do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$RN_PIN" 2>/dev/null
	[ -n "${RN_KEEP:-}" ] || rm -rf "$RN_TMP"
}

# rn_stat JQ_FILTER: one value from `rdmanetctl stats -j`
rn_stat() { rn_ctl stats -j | jq -r "$1"; }
# rn_pod_stat NS/NAME JQ_PATH (e.g. .tx.roce.packets)
rn_pod_stat() { rn_ctl stats -j --pod "$1" | jq -r ".pods[0]$2"; }

# rn_map_u64s PINNED_MAP: the __u64 values of a pinned BPF array, in key
# order, space-separated (bpftool prints keys and values of maps without BTF
# as little-endian hex bytes)
rn_map_u64s() {
	bpftool -j map dump pinned "$1" | jq -r '
		def hex: ltrimstr("0x") | explode | reduce .[] as $c (0; . * 16 +
			(if $c >= 97 then $c - 87 elif $c >= 65 then $c - 55 else $c - 48 end));
		def le: reverse | map(hex) | reduce .[] as $b (0; . * 256 + $b);
		sort_by(.key | le) | map(.value | le | tostring) | join(" ")'
}

# rn_capture_start FILE FILTER: tcpdump on the peer's wire0 (RN_CAP_PID)
rn_capture_start() {
	# -Z root: the capture file lives in a root-only temp dir
	nsenter --net=/run/netns/"$RN_PEER" tcpdump -Z root --immediate-mode -s 160 -B 16384 -Q in -i wire0 -n -U -w "$1" "$2" \
		>"$RN_TMP/tcpdump.log" 2>&1 &
	RN_CAP_PID=$!
	for _ in $(seq 50); do
		grep -q "listening on" "$RN_TMP/tcpdump.log" && return 0
		sleep 0.1
	done
	return 1
}
rn_capture_stop() { sleep 0.3; kill -INT "$RN_CAP_PID" 2>/dev/null; wait "$RN_CAP_PID" 2>/dev/null; }
# rn_capture_marked PCAP N: "ok" when the capture holds N packets and every
# one carries DSCP 26 / ECT(0), or fewer only because tcpdump says the kernel
# dropped the rest for it (a loaded machine); else what it holds
rn_capture_marked() {
	local all marked dropped
	all=$(tshark -r "$1" 2>/dev/null | wc -l)
	marked=$(tshark -r "$1" -Y 'ip.dsfield.dscp==26 && ip.dsfield.ecn==2' 2>/dev/null | wc -l)
	dropped=$(awk '/dropped by kernel/ { print $1 }' "$RN_TMP/tcpdump.log")
	if [ "$marked" = "$all" ] && [ $((all + ${dropped:-0})) = "$2" ]; then
		echo ok
	else
		echo "$all captured, $marked marked, ${dropped:-?} dropped by the kernel, of $2"
	fi
}
