# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# A RoCE node with two rails in network namespaces, and the CNI plugin driven
# the way a container runtime drives it (CNI_* environment, config on stdin,
# a clean environment otherwise, run in the node's netns).
#
#   node netns ($CNI_NODE):   ra0, rb0 — the rails' masters (veth ends); rdmanetd
#   fabric netns ($CNI_FABRIC): wa0 10.81.0.254/24 fd81::254/64 (rail A's gateway),
#                             wb0 10.82.0.254/24 fd82::254/64 (rail B's gateway),
#                             10.90.0.1 and fd90::1 on lo: a host behind both rails;
#                             forwards between the rails
#   pod netns ($CNI_PFX-NAME): eth0 (a veth to the node, 192.168.200.2/24, the
#                             pod's default route), plus what the plugin adds
#
#   cni_topo_up                      build node + fabric (sets CNI_NODE CNI_FABRIC CNI_PIN)
#   cni_node_config FILE [POLICY] [EXTRA_POOLS_JSON] [IPAM_JSON]   the node config
#                                     (agent and plugin read the same file)
#   cni_pod_up NAME                  a pod netns with its primary eth0; prints its path
#   cni_netconf FILE VERSION NAME JSON   a network config: {cniVersion, name, type} + JSON
#   cni_run CMD CONF CID IFNAME NETNS [CNI_ARGS]  exec the plugin: CNI_RC, $CNI_OUT, $CNI_ERR
#                                     (under the command in $CNI_WRAP if set)
#   cni_ok / cni_code                exit status 0 / the error object's code
#   cni_check_ok WHAT, cni_check_error CODE WHAT   TAP checks that show the answer on failure
#   cni_in NAME CMD...               run in a pod (or "node", "fabric") netns
#   cni_ctl ARGS...                  rdmanetctl on this run's config and pin dir
#   cni_agent_start CONFIG / cni_agent_stop
#   cni_held CID IFNAME              addresses the IPAM store holds for an attachment
#   cni_registered CID IFNAME        1 if the data path has it, else 0
#   cni_etcd_start DIR / cni_etcd_stop  a one-member etcd in the node netns
#   cni_topo_down                    everything away (trap it)

RN_BUILD=${RN_BUILD:-$(pwd)/build}
CNI_PFX=${CNI_PFX:-rncni$$}
CNI_NODE=$CNI_PFX-node
CNI_FABRIC=$CNI_PFX-fabric
CNI_PIN=/sys/fs/bpf/$CNI_PFX
CNI_TMP=${CNI_TMP:-$(mktemp -d "/tmp/$CNI_PFX.XXXXXX")}
CNI_BIN=$RN_BUILD/bin/rdmanet
CNI_OUT=$CNI_TMP/out.json
CNI_ERR=$CNI_TMP/err.log
CNI_STATE=$CNI_TMP/state
CNI_CONFIG=$CNI_TMP/node.json
CNI_NS_LIST=()
CNI_AGENT_PID=
CNI_RC=

cni_in() {
	case $1 in
	node) nsenter --net=/run/netns/"$CNI_NODE" "${@:2}" ;;
	fabric) nsenter --net=/run/netns/"$CNI_FABRIC" "${@:2}" ;;
	*) nsenter --net=/run/netns/"$CNI_PFX-$1" "${@:2}" ;;
	esac
}

cni_ctl() { cni_in node "$RN_BUILD/bin/rdmanetctl" -c "$CNI_CONFIG" --pin-dir "$CNI_PIN" "$@"; }

cni_topo_up() {
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	ip netns add "$CNI_NODE" && ip netns add "$CNI_FABRIC" || return 1
	CNI_NS_LIST+=("$CNI_NODE" "$CNI_FABRIC")
	ip -n "$CNI_NODE" link set lo up
	ip -n "$CNI_FABRIC" link set lo up
	local r
	for r in a b; do
		ip -n "$CNI_NODE" link add name r${r}0 type veth peer name w${r}0 netns "$CNI_FABRIC" ||
			return 1
		ip -n "$CNI_NODE" link set r${r}0 up
		ip -n "$CNI_FABRIC" link set w${r}0 up
	done
	ip -n "$CNI_FABRIC" addr add 10.81.0.254/24 dev wa0
	ip -n "$CNI_FABRIC" addr add fd81::254/64 dev wa0 nodad
	ip -n "$CNI_FABRIC" addr add 10.82.0.254/24 dev wb0
	ip -n "$CNI_FABRIC" addr add fd82::254/64 dev wb0 nodad
	ip -n "$CNI_FABRIC" addr add 10.90.0.1/32 dev lo
	ip -n "$CNI_FABRIC" addr add fd90::1/128 dev lo
	cni_in fabric sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
	mkdir -p "$CNI_STATE"
}

# cni_node_config FILE [POLICY] [EXTRA_POOLS_JSON] [IPAM_JSON]
cni_node_config() {
	local file=$1 policy=${2:-monitor} extra=${3:-} ipam=${4:-}
	[ -n "$ipam" ] || ipam="{ \"store\": \"sqlite\", \"path\": \"$CNI_TMP/ipam.db\" }"
	cat >"$file" <<JSON
{
  "node": "$CNI_PFX",
  "masters": [ { "ifname": "ra0", "policy": "$policy" }, { "ifname": "rb0", "policy": "$policy" } ],
  "textfile": { "dir": "$CNI_TMP/textfile", "interval_s": 0 },
  "bpf": { "pin_dir": "$CNI_PIN" },
  "cni": { "state_dir": "$CNI_STATE", "allowed_dscp": [26, 34] },
  "ipam": $ipam,
  "pools": [
    { "name": "railA-v4", "subnet": "10.81.0.0/24", "ips": ["10.81.0.10-10.81.0.39"],
      "gateway": "10.81.0.254", "masters": ["ra0"] },
    { "name": "railA-v6", "subnet": "fd81::/64", "ips": ["fd81::10-fd81::39"],
      "gateway": "fd81::254", "masters": ["ra0"] },
    { "name": "railB-v4", "subnet": "10.82.0.0/24", "ips": ["10.82.0.10-10.82.0.39"],
      "gateway": "10.82.0.254", "routes": [ { "dst": "10.90.0.0/24" } ], "masters": ["rb0"] }${extra:+,
    $extra}
  ]
}
JSON
}

# cni_pod_up NAME: prints the netns path
cni_pod_up() {
	local ns=$CNI_PFX-$1
	ip netns add "$ns" || return 1
	# a file, not CNI_NS_LIST: callers take the path from $(cni_pod_up ...),
	# a subshell whose variables die with it
	echo "$ns" >>"$CNI_TMP/pods.list"
	ip -n "$ns" link set lo up
	# the pod's primary interface: a veth whose other end idles in the node
	ip -n "$ns" link add eth0 type veth peer name "h-$1" netns "$CNI_NODE" || return 1
	ip -n "$CNI_NODE" link set "h-$1" up
	ip -n "$ns" link set eth0 up
	ip -n "$ns" addr add 192.168.200.2/24 dev eth0
	ip -n "$ns" route add default via 192.168.200.1 dev eth0
	echo "/run/netns/$ns"
}

# cni_netconf FILE VERSION NAME JSON: the plugin config a runtime derives
# from a NetworkAttachmentDefinition (host paths are the node's: RDMANET_CONFIG
# in the runtime's environment, cni.state_dir in the node config)
cni_netconf() {
	jq -n --arg v "$2" --arg n "$3" --argjson x "$4" \
		'{cniVersion: $v, name: $n, type: "rdmanet"} + $x' >"$1"
}

# cni_run CMD CONF CID IFNAME NETNS [CNI_ARGS]: empty CID/IFNAME/NETNS are
# left out of the environment; RDMANET_CONFIG is the runtime's ($CNI_RUN_CONFIG,
# else $CNI_CONFIG); RDMANET_CNI_FAULT passes through; the words of CNI_WRAP
# (e.g. strace and its options) run the plugin if set
cni_run() {
	local env=(CNI_COMMAND="$1" CNI_PATH=/usr/lib/cni RDMANET_CONFIG="${CNI_RUN_CONFIG:-$CNI_CONFIG}")
	[ -n "$3" ] && env+=(CNI_CONTAINERID="$3")
	[ -n "$4" ] && env+=(CNI_IFNAME="$4")
	[ -n "$5" ] && env+=(CNI_NETNS="$5")
	env+=(CNI_ARGS="${6-IgnoreUnknown=1;K8S_POD_NAMESPACE=t;K8S_POD_NAME=$3}")
	[ -n "${RDMANET_CNI_FAULT:-}" ] && env+=(RDMANET_CNI_FAULT="$RDMANET_CNI_FAULT")
	[ -n "${RDMANET_CNI_LOG:-}" ] && env+=(RDMANET_CNI_LOG="$RDMANET_CNI_LOG")
	# shellcheck disable=SC2086
	cni_in node env -i "${env[@]}" ${CNI_WRAP:-} "$CNI_BIN" <"$2" >"$CNI_OUT" 2>"$CNI_ERR"
	CNI_RC=$?
	return $CNI_RC
}

cni_ok() { [ "$CNI_RC" = 0 ]; }
cni_code() { jq -r '.code // "none"' "$CNI_OUT" 2>/dev/null; }
# an error: non-zero exit and one error object with the wanted code
cni_error_is() {
	[ "$CNI_RC" != 0 ] && [ "$(cni_code)" = "$1" ] &&
		jq -e '(.cniVersion | type == "string") and (.msg | length > 0)' "$CNI_OUT" >/dev/null
}

# cni_with_prev CONF RESULT OUT: the config as DEL/CHECK get it
cni_with_prev() { jq --slurpfile r "$2" '. + {prevResult: $r[0]}' "$1" >"$3"; }

cni_held() {
	cni_ctl -j ip show --container-id "$1" --ifname "$2" 2>/dev/null |
		jq -r '[.allocations[].ip] | sort | join(",")'
}

cni_registered() {
	[ -d "$CNI_PIN" ] || { echo 0; return; }
	cni_ctl -j pod show 2>/dev/null |
		jq --arg c "$1" --arg i "$2" '[.[] | select(.container_id == $c and .ifname == $i)] | length'
}

# cni_wait PID CMD...: CMD every 0.1 s, for 30 s at most, while PID lives
# (an agent's start on a loaded 2-core machine has taken over 15 s)
cni_wait() {
	local pid=$1
	shift
	for _ in $(seq 300); do
		"$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# cni_stop PID SIGNAL: a background daemon of ours
cni_stop() {
	[ -n "$1" ] || return 0
	kill "-$2" "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# every master the node config lists (two rails unless a test adds more)
cni_agent_attached() {
	local want
	want=$(jq '.masters | length' "$CNI_CONFIG" 2>/dev/null)
	[ "$(cni_ctl stats -j 2>/dev/null | jq '[.masters[] | select(.tc != "none")] | length' 2>/dev/null)" = "${want:-2}" ]
}

cni_agent_start() {	# CNI_AGENT_WRAP: a command the agent runs under (setpriv ...)
	# shellcheck disable=SC2086
	nsenter --net=/run/netns/"$CNI_NODE" ${CNI_AGENT_WRAP:-} "$RN_BUILD/bin/rdmanetd" --config "$1" \
		>>"$CNI_TMP/agent.log" 2>&1 &
	CNI_AGENT_PID=$!
	cni_wait "$CNI_AGENT_PID" cni_agent_attached && return 0
	echo "# agent did not attach to every rail; log:" && sed 's/^/# /' "$CNI_TMP/agent.log"
	return 1
}

cni_agent_stop() {
	cni_stop "$CNI_AGENT_PID" TERM
	CNI_AGENT_PID=
}

cni_topo_down() {
	cni_etcd_stop
	cni_agent_stop
	[ -d "$CNI_PIN" ] && cni_in node "$RN_BUILD/bin/rdmanetd" --pin-dir "$CNI_PIN" --uninstall -q
	local ns
	[ -f "$CNI_TMP/pods.list" ] && mapfile -t -O ${#CNI_NS_LIST[@]} CNI_NS_LIST <"$CNI_TMP/pods.list"
	for ns in "${CNI_NS_LIST[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$CNI_PIN" 2>/dev/null
	[ -n "${RN_KEEP:-}" ] || rm -rf "$CNI_TMP"
}

# links, rules and routes of a pod that are not its own eth0/lo setup
cni_pod_leftovers() {
	local ns=$CNI_PFX-$1
	{
		ip -n "$ns" -o link show | awk -F': ' '$2 !~ /^(lo|eth0)(@|$)/ { print "link " $2 }'
		ip -n "$ns" -4 rule show | grep -v -E 'lookup (local|main|default)$' | sed 's/^/rule4 /'
		ip -n "$ns" -6 rule show | grep -v -E 'lookup (local|main|default)$' | sed 's/^/rule6 /'
		ip -n "$ns" route show table all | grep -v -E 'dev (lo|eth0)( |$)' | sed 's/^/route /'
	} 2>/dev/null
}

# TAP checks on the last cni_run that show the plugin's answer when they fail
cni_check_ok() {
	if cni_ok; then
		tap_ok "$1"
	else
		tap_fail "$1: exit $CNI_RC: $(tr -s '\n ' ' ' <"$CNI_OUT") $(tail -n 3 "$CNI_ERR" | tr '\n' ' ')"
	fi
}
cni_check_error() {
	if cni_error_is "$1"; then
		tap_ok "$2"
	else
		tap_fail "$2: exit $CNI_RC: $(tr -s '\n ' ' ' <"$CNI_OUT") $(tail -n 3 "$CNI_ERR" | tr '\n' ' ')"
	fi
}

# A one-member etcd inside the node netns (the plugin runs there, so that is
# where its store must be reachable): cni_etcd_start DIR, cni_etcd_stop.
CNI_ETCD_PID=
CNI_ETCD_URL=http://127.0.0.1:2379
cni_etcd_healthy() {
	cni_in node curl -s --max-time 1 "$CNI_ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"'
}

cni_etcd_start() {
	mkdir -p "$1"
	nsenter --net=/run/netns/"$CNI_NODE" etcd --name m1 --data-dir "$1/m1" \
		--listen-client-urls "$CNI_ETCD_URL" --advertise-client-urls "$CNI_ETCD_URL" \
		--listen-peer-urls http://127.0.0.1:2380 \
		--initial-advertise-peer-urls http://127.0.0.1:2380 \
		--initial-cluster m1=http://127.0.0.1:2380 --initial-cluster-state new \
		--heartbeat-interval 50 --election-timeout 500 \
		--logger zap --log-level warn --log-outputs stderr >>"$1/etcd.log" 2>&1 &
	CNI_ETCD_PID=$!
	cni_wait "$CNI_ETCD_PID" cni_etcd_healthy && return 0
	echo "# etcd did not become healthy:" && tail -n 5 "$1/etcd.log" | sed 's/^/# /'
	return 1
}

cni_etcd_stop() {
	cni_stop "$CNI_ETCD_PID" KILL
	CNI_ETCD_PID=
}
