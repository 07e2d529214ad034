#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# RDMA against TCP/IP between two nodes (make bench, VM part): the two VMs
# of the testbed (selftests/vm), joined by their wire, Soft-RoCE (rxe0) on
# it. For each path: throughput, latency, CPU time per byte moved, and the
# time of a connect+close.
#
#   host TCP        node to node, the kernel's TCP on eth0
#   host RoCEv2     node to node, verbs on rxe0 (RC queue pairs)
#   host rsockets   node to node, the same socket program over RDMA
#                   (rsocket's librspreload.so from librdmacm, both ends)
#   pod TCP         pod to pod across the nodes, each pod a macvlan on eth0
#                   attached by the rdmanet CNI, rdmanetd's data path on eth0
#
# Tools: qperf (tcp_bw, tcp_lat, rc_bw, rc_lat with their CPU use; rc_* over
# RDMA-CM, -cm1) and rn_sockbench (selftests/tools), one plain socket
# program for bandwidth, ping-pong latency and connect+close, run as it is
# over TCP and under LD_PRELOAD=librspreload.so over rsockets.
#
# Everything runs under qemu TCG on a shared 2-core machine: the figures
# are the testbed's, not hardware's; see README "Two nodes" for what they
# can and cannot say. Writes $RN_BENCH_OUT/rdma_tcp.json.

T=${BENCH_QPERF_S:-3}			# seconds per qperf test
BW_BYTES=${BENCH_SOCK_BYTES:-67108864}	# rn_sockbench bw
LAT_N=${BENCH_SOCK_LAT:-2000}		# rn_sockbench ping-pongs over TCP
LAT_N_RS=${BENCH_SOCK_LAT_RS:-200}	# ... over rsockets (tens of ms each under TCG)
CONN_N=${BENCH_SOCK_CONN:-200}		# rn_sockbench connect+close
RSPRELOAD=/usr/lib/x86_64-linux-gnu/rsocket/librspreload.so
SB_PORT=19875

# --- guest ------------------------------------------------------------------------

# qperf -v -uu output to one JSON object per test
qperf_json() {	# qperf_json PATH <OUTPUT
	awk -v path="$1" '
	/^[a-z_]+:$/ { if (t != "") print out "}"; t = substr($1, 1, length($1) - 1);
		out = "{\"path\": \"" path "\", \"tool\": \"qperf\", \"test\": \"" t "\""; next }
	NF >= 3 && $2 == "=" { out = out ", \"" $1 "\": " $3 }
	END { if (t != "") print out "}" }'
}

pod_attach() {	# node-local pool and store; the pod "p" gets a macvlan on eth0
	cat >/tmp/node.json <<JSON
{ "masters": [ { "ifname": "eth0", "policy": "monitor" } ],
  "textfile": { "dir": "/tmp/prom", "interval_s": 0 },
  "ipam": { "store": "sqlite", "path": "/tmp/ipam.db" },
  "pools": [ { "name": "bench", "subnet": "$VM_SUBNET", "ips": ["$1"], "gateway": "$VM_PEER_IP",
               "masters": ["eth0"] } ] }
JSON
	# (its stdout away from the caller's $(...), which would wait for it)
	"$RN_BUILD/bin/rdmanetd" --config /tmp/node.json >/dev/null 2>"$VM_OUT/agent.log" &
	vm_wait_until 60 grep -q 'master(s) attached' "$VM_OUT/agent.log" || return 1
	ip netns add p
	ip -n p link set lo up
	echo '{ "cniVersion": "1.1.0", "name": "bench", "type": "rdmanet", "master": "eth0",
	  "ippools": { "ipv4": ["bench"] }, "configFile": "/tmp/node.json" }' >/tmp/net.json
	env -i PATH="$PATH" RDMANET_CONFIG=/tmp/node.json CNI_COMMAND=ADD CNI_CONTAINERID=c-bench CNI_IFNAME=net1 CNI_NETNS=/run/netns/p \
		CNI_PATH=/opt/cni/bin "CNI_ARGS=K8S_POD_NAMESPACE=bench;K8S_POD_NAME=$VM_NODE" \
		"$RN_BUILD/bin/rdmanet" </tmp/net.json >/tmp/add.json 2>"$VM_OUT/add.err" || return 1
	jq -r '.ips[0].address | sub("/.*"; "")' /tmp/add.json
}

server_node() {
	local pod
	pod=$(pod_attach 192.168.77.200-192.168.77.204) || { echo "pod attach failed" >&2; return 1; }
	vm_put pod-a "$pod"
	qperf >/dev/null 2>&1 &
	ip netns exec p qperf >/dev/null 2>&1 &
	"$RN_BUILD/tools/rn_sockbench" server --port $SB_PORT 2>/dev/null &
	LD_PRELOAD=$RSPRELOAD "$RN_BUILD/tools/rn_sockbench" server --port $((SB_PORT + 1)) \
		2>"$VM_OUT/rs-server.err" &
	ip netns exec p "$RN_BUILD/tools/rn_sockbench" server --port $SB_PORT 2>/dev/null &
	vm_wait_listen 19765 30
	vm_wait_listen $SB_PORT 30
	vm_put servers-up 1
	vm_get client-done 900 >/dev/null
}

sb() {	# sb PATH [PRELOAD] -- ARGS...: one rn_sockbench client run, JSON with its path
	local path=$1 pre=$2 out
	shift 3
	if [ -n "$pre" ]; then
		out=$(LD_PRELOAD=$pre timeout 300 "$RN_BUILD/tools/rn_sockbench" client "$@" 2>>"$VM_OUT/sb.err")
	else
		out=$(timeout 300 "$RN_BUILD/tools/rn_sockbench" client "$@" 2>>"$VM_OUT/sb.err")
	fi || { echo "rn_sockbench $path $*: failed" >>"$VM_OUT/sb.err"; return 1; }
	jq -c --arg p "$path" '{path: $p, tool: "rn_sockbench"} + .' <<<"$out"
}

client_node() {
	local a pod_a pod
	pod=$(pod_attach 192.168.77.205-192.168.77.209) || { echo "pod attach failed" >&2; return 1; }
	a=$VM_PEER_IP
	vm_get servers-up 300 >/dev/null
	pod_a=$(vm_get pod-a 60)
	{
		qperf -t "$T" -v -uu "$a" tcp_bw tcp_lat 2>>"$VM_OUT/qperf.err" | qperf_json "host TCP"
		qperf -t "$T" -v -uu -cm1 "$a" rc_bw rc_lat 2>>"$VM_OUT/qperf.err" | qperf_json "host RoCEv2"
		ip netns exec p qperf -t "$T" -v -uu "$pod_a" tcp_bw tcp_lat 2>>"$VM_OUT/qperf.err" |
			qperf_json "pod TCP"
		for m in "host TCP:$a:$SB_PORT:" "host rsockets:$a:$((SB_PORT + 1)):$RSPRELOAD"; do
			IFS=: read -r path host port pre <<<"$m"
			sb "$path" "$pre" -- "$host" --port "$port" --mode bw --bytes "$BW_BYTES"
			sb "$path" "$pre" -- "$host" --port "$port" --mode lat \
				--count "$([ -n "$pre" ] && echo "$LAT_N_RS" || echo "$LAT_N")" --size 64
			sb "$path" "$pre" -- "$host" --port "$port" --mode conn --count "$CONN_N"
		done
		ip netns exec p bash -c "$(declare -f sb); RN_BUILD=$RN_BUILD VM_OUT=$VM_OUT;
			sb 'pod TCP' '' -- $pod_a --port $SB_PORT --mode bw --bytes $BW_BYTES
			sb 'pod TCP' '' -- $pod_a --port $SB_PORT --mode lat --count $LAT_N --size 64
			sb 'pod TCP' '' -- $pod_a --port $SB_PORT --mode conn --count $CONN_N"
	} >"$VM_OUT/results.jsonl"
	"$RN_BUILD/bin/rdmanetctl" -c /tmp/node.json stats -j >"$VM_OUT/stats.json"
	vm_put client-done 1
}

if [ -n "${VM_NODE:-}" ]; then
	. "$VM_LIB/guest.sh"
	vm_wait_peer 60
	if [ "$VM_NODE" = node-a ]; then server_node; else client_node; fi
	vm_barrier done 300
	exit 0
fi

# --- host -------------------------------------------------------------------------

set -u
cd "$(dirname "$0")/../.." || exit 1
RN_BUILD=${RN_BUILD:-$(realpath build)}
RN_SRC=${RN_SRC:-$(pwd)}
RN_BENCH_OUT=${RN_BENCH_OUT:-$RN_BUILD/bench-results}
export RN_BUILD RN_SRC
mkdir -p "$RN_BENCH_OUT"
. selftests/vm/lib/vm.sh
vm_prepare "${VM_SERIES:-6.12}"
case $? in
0) ;;
77) echo "bench_rdma_tcp: skipped: $VM_SKIP_REASON"; exit 0 ;;
*) echo "bench_rdma_tcp: cannot prepare the VM kernel" >&2; exit 1 ;;
esac
t0=$SECONDS
vm_run_pair "$0" "$0" 900 >/dev/null || echo "bench_rdma_tcp: a node failed (logs: $VM_RUN_DIR)" >&2
R=$VM_RUN_DIR/node-b/results.jsonl
if [ ! -s "$R" ]; then
	echo "bench_rdma_tcp: no results (logs: $VM_RUN_DIR)" >&2
	exit 1
fi
wall=$((SECONDS - t0))

# one row per path: throughput, latency, CPU per byte, connect+close
# what rdmanetd's data path counted for the client pod: the pod TCP path
# really went through it
stats=$(jq -c '{master: (.masters[0] | {ifname, xdp, tc}), pod: (.pods[0] | {ifname, tx_tcp: .tx.tcp, rx_tcp: .rx.tcp})}' \
	"$VM_RUN_DIR/node-b/stats.json" 2>/dev/null || echo null)
jq -s --argjson wall "$wall" --arg kernel "$VM_KVER" --argjson stats "$stats" '
	def q(p; t; f): [.[] | select(.path == p and .tool == "qperf" and .test == t) | .[f]] | first;
	def s(p; m; f): [.[] | select(.path == p and .tool == "rn_sockbench" and .mode == m) | .[f]] | first;
	def r2: if . == null then null else (. * 100 | round) / 100 end;
	def r3: if . == null then null else (. * 1000 | round) / 1000 end;
	. as $all |
	{ rdma_tcp: {
		testbed: "two qemu TCG VMs (1 vCPU each) on a shared 2-core host, Debian kernel \($kernel), Soft-RoCE rxe0 on virtio-net",
		wall_s: $wall,
		paths: [ "host TCP", "host RoCEv2", "host rsockets", "pod TCP" ] | map(. as $p | {
			path: $p,
			qperf_bw_gbit_s: (if $p == "host RoCEv2" then $all | q($p; "rc_bw"; "bw")
				else $all | q($p; "tcp_bw"; "bw") end | if . == null then null else . * 8 / 1e9 | r3 end),
			qperf_lat_us: (if $p == "host RoCEv2" then $all | q($p; "rc_lat"; "latency")
				else $all | q($p; "tcp_lat"; "latency") end | if . == null then null else . / 1000 | r2 end),
			qperf_cpu_ns_per_byte: (if $p == "host RoCEv2" then [($all | q($p; "rc_bw"; "send_cost")), ($all | q($p; "rc_bw"; "recv_cost"))]
				else [($all | q($p; "tcp_bw"; "send_cost")), ($all | q($p; "tcp_bw"; "recv_cost"))] end
				| if any(. == null) then null else add / 1e9 | r2 end),
			sock_bw_gbit_s: ($all | s($p; "bw"; "gbit_s") | r3),
			sock_cpu_ns_per_byte: ($all | s($p; "bw"; "cpu_ns_per_byte") | r2),
			sock_lat_us: ($all | s($p; "lat"; "lat_us") | r2),
			connect_close_us: ($all | s($p; "conn"; "conn_us") | r2)
		}),
		pod_datapath: $stats,
		raw: $all } }' "$R" >"$RN_BENCH_OUT/rdma_tcp.json"

printf '\nRDMA vs TCP between the two VM nodes (TCG, Soft-RoCE; %s s in all)\n' "$wall"
printf '%-14s %12s %10s %12s | %12s %10s %12s %14s\n' path "qperf Gb/s" "lat us" "CPU ns/B" \
	"socket Gb/s" "lat us" "CPU ns/B" "connect+close"
jq -r '.rdma_tcp.paths[] | [.path, .qperf_bw_gbit_s, .qperf_lat_us, .qperf_cpu_ns_per_byte,
	.sock_bw_gbit_s, .sock_lat_us, .sock_cpu_ns_per_byte, .connect_close_us] |
	map(if . == null then "-" else tostring end) | @tsv' "$RN_BENCH_OUT/rdma_tcp.json" |
	while IFS=$'\t' read -r p a b c d e f g; do
		printf '%-14s %12s %10s %12s | %12s %10s %12s %11s us\n' "$p" "$a" "$b" "$c" "$d" "$e" "$f" "$g"
	done
echo "(host RoCEv2 qperf: rc_bw/rc_lat over RDMA-CM; socket columns: rn_sockbench, host rsockets = the same program under librspreload.so)"
jq -r '.rdma_tcp.pod_datapath | select(. != null) |
	"(pod TCP: through rdmanetd on \(.master.ifname), xdp \(.master.xdp), tc \(.master.tc); it counted the client pod: tx \(.pod.tx_tcp.packets) TCP packets, \(.pod.tx_tcp.bytes) bytes)"' \
	"$RN_BENCH_OUT/rdma_tcp.json"
