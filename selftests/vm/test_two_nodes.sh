#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Two RoCE nodes end to end: the shared-mode walkthrough an operator runs,
# on two VMs (node-a, node-b) joined by the testbed wire (eth0, the rail,
# with Soft-RoCE rxe0 on it), each running rdmanetd with the DaemonSet's own
# command line (read from deploy/base/rdmanetd-daemonset.yaml) and one node
# config (the DaemonSet's ConfigMap, with the etcd store and the rail's
# pools), the CNI plugin installed where the init container puts it.
#
#   1. rdma link (rxe0/1 ACTIVE on eth0), rdma system (netns shared),
#      rdmanetctl doctor without a failure, on both nodes;
#   2. IP pools in etcd with per-node blocks, as the rails-8 overlay runs
#      them; pods on both nodes get their addresses through the rdmanet CNI
#      driven as a runtime drives it (CNI_* environment, the network config
#      on stdin), both nodes allocating at the same moment, several pods at
#      once on each; never one address twice: each node's own store
#      (ipam.path) holds exactly its pods' addresses, all inside blocks etcd
#      says that node holds, no address in both stores, no per-allocation
#      record in etcd, and what each node's agent published (P/used) names
#      the same addresses;
#   3. pod-to-pod RoCEv2 traffic across the nodes over the rail: counted
#      for the sending pod on node-a and the receiving pod on node-b, equal
#      to what was sent and received, and DSCP 26 / ECT(0) on the wire
#      (tcpdump on node-b, tshark on the host);
#   4. rdmanetctl env in each pod: the NCCL/UCX variables for that pod's own
#      GID (the index sysfs gives for the pod's address);
#   5. ib_write_bw, ib_read_lat and an RDMA-CM connection (rping) between
#      the nodes while the pods run; the agent's textfile on both nodes
#      carries rxe0's hardware counters equal to `rdma statistic`;
#   6. mid-run, node-a's agent restarted under a pod-to-pod stream and the
#      etcd leader SIGKILLed while both nodes attach more pods inside the
#      blocks they hold: every ADD succeeds on its first try (an ADD asks
#      etcd nothing while its blocks have room; a failed one would be torn
#      down and retried with a new sandbox, as kubelet does); the stream is
#      counted whole on both nodes; at the end step 2's store checks again
#      (nothing lost, nothing left by a failed try), rdmanetctl ip show on
#      each node names each of its pods' addresses, and etcdctl on the host
#      finds no per-allocation key and every pod's address in a block of
#      its own node. No ADD across the kill asked etcd anything: the
#      plugin reports no request count (and etcd's own counters also count
#      both agents' ticks), so the ADDs run under the loader's trace
#      (LD_DEBUG=files), where none loads libcurl, which the etcd client
#      loads at its first request.
#
# Both rail styles of the field's setups: net1 draws from one pool for the
# rail shared by every node, on the nodes' own subnet (192.168.77.0/24);
# net2 from a pool of the rail's own subnet (172.16.11.0/24), which the
# nodes do not use for themselves. The pools' gateways (.254) are answered
# by both nodes, as a rail's anycast gateway on the ToR would be.
#
# etcd topology: a 3-member cluster on the host, reached by both VMs over a
# management NIC (eth1, qemu user network; 10.0.2.2 is the host), not over
# the rail. That is how a real cluster has it: etcd runs on the control
# plane, not on the GPU workers, and reaches them over the node network,
# never over the RoCE rails; a worker rebooting does not take a member with
# it. It also lets the host kill the leader without stopping a node.
#
# Nothing here waits a fixed time for something to happen: every wait is a
# bounded wait for a condition; the figures (durations, rates) are printed.

POD_NS=team
NP=3			# pods per node in step 2 (net1 + net2 each)
NQ=3			# pods per node attached while the leader is killed (net1)
STREAM=3000		# packets of the step 6 stream

# --- guest side -----------------------------------------------------------------

textfile=/var/lib/node_exporter/textfile_collector/rdmanet.prom

agent_start() {
	# the node's Kubernetes name, which the DaemonSet gives from
	# spec.nodeName: here the VM's hostname, as the pools' "nodes" name it
	RDMANET_NODE_NAME=$(hostname) "${AGENT_CMD[@]}" 2>>"$VM_OUT/agent.log" &
	AGENT_PID=$!
}

# The index of the RoCE v2 GID of an IPv4 address on rxe0/1, from sysfs:
# vm_gid_index's answer, with one grep over the table (rxe's has 1024
# entries; a read per entry costs seconds under TCG).
gid_index() {
	local a b c d want f i
	IFS=. read -r a b c d <<<"$1"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d")
	for f in $(grep -lx "$want" /sys/class/infiniband/rxe0/ports/1/gids/*); do
		i=${f##*/}
		[ "$(cat "/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i")" = "RoCE v2" ] &&
			{ echo "$i"; return 0; }
	done
	return 1
}

pod_addr() { ip -n "$1" -j -4 addr show "$2" | jq -r '.[0].addr_info[0].local'; }

# With LD_TRACE_DIR set, an ADD runs under the loader's trace (LD_DEBUG=files,
# one file per process there): the static rdmanet has no loader, the
# rdmanet-etcd it hands the request to does, and its etcd client loads
# libcurl at its first request only (user/lib/ipam/etcd_client.c).
cni() {	# cni COMMAND NETCONF CONTAINER_ID IFNAME POD
	local trace=()
	[ -n "${LD_TRACE_DIR:-}" ] && [ "$1" = ADD ] &&
		trace=(LD_DEBUG=files "LD_DEBUG_OUTPUT=$LD_TRACE_DIR/$5.$4.$3")
	env -i PATH="$PATH" "${trace[@]}" CNI_COMMAND="$1" CNI_CONTAINERID="$3" CNI_NETNS="/run/netns/$5" \
		CNI_IFNAME="$4" CNI_PATH=/opt/cni/bin \
		"CNI_ARGS=IgnoreUnknown=1;K8S_POD_NAMESPACE=$POD_NS;K8S_POD_NAME=$5" \
		/opt/cni/bin/rdmanet <"$2"
}

# attach POD NETCONF IFNAME: ADD as a runtime does; a failed ADD is torn
# down (DEL, retried until it succeeds) and the pod's sandbox created again
# under a new container id. Appends "pod cid ifname address attempts ms"
# to /tmp/adds.POD; returns 1 if no attempt succeeded.
attach() {
	local pod=$1 conf=$2 ifname=$3 try cid out rc t0 t1 d
	for try in 1 2 3 4 5 6 7 8; do
		cid="c-$pod-$try"
		t0=$EPOCHREALTIME
		out=$(cni ADD "$conf" "$cid" "$ifname" "$pod" 2>>"/tmp/cni.$pod.err")
		rc=$?
		t1=$EPOCHREALTIME
		if [ $rc = 0 ]; then
			echo "$pod $cid $ifname $(jq -r '.ips[0].address' <<<"$out") $try $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%d", (b - a) * 1000 }')" >>"/tmp/adds.$pod"
			return 0
		fi
		echo "ADD $pod/$ifname attempt $try: exit $rc $(jq -c '{code, msg}' <<<"$out" 2>/dev/null)" >>"/tmp/cni.$pod.err"
		for d in 1 2 3 4 5 6 7 8 9 10; do
			cni DEL "$conf" "$cid" "$ifname" "$pod" >/dev/null 2>>"/tmp/cni.$pod.err" && break
			sleep 1
		done
		sleep 1
	done
	return 1
}

# one pod: its netns, then its interfaces one after the other
pod_up() {	# pod_up POD IFNAME:NETCONF...
	local pod=$1 i
	shift
	ip netns add "$pod" && ip -n "$pod" link set lo up
	# Both rails of a pod are on one L2 here (one wire): without these, the
	# pod answers ARP for net1's address on net2 too (Linux's weak host
	# model, "ARP flux") and the peer sends net1's traffic to net2's MAC.
	# Multi-rail RoCE pods on a shared L2 set them (pod sysctls).
	ip netns exec "$pod" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2
	for i in "$@"; do
		attach "$pod" "${i#*:}" "${i%%:*}" || return 1
	done
}

stat_pod() {	# stat_pod POD IFNAME JQ_PATH
	"$CTL" stats -j --pod "$POD_NS/$1" | jq -r --arg i "$2" ".pods[] | select(.ifname == \$i) | $3"
}

hw_equal() {	# the textfile's rxe0 counters are rdma statistic's, counter by counter
	grep '^rdmanet_rdma_hw_stats_total{device="rxe0",port="1"' "$textfile" |
		sed 's/.*counter="\([^"]*\)"} \(.*\)/\1 \2/' | sort >/tmp/hw.ours
	rdma -j statistic show link rxe0/1 | jq -r '.[0] | del(.ifname, .port) | to_entries[] |
		"\(.key) \(.value)"' | sort >/tmp/hw.theirs
	[ -s /tmp/hw.ours ] && cmp -s /tmp/hw.ours /tmp/hw.theirs
}

# --- the blocks (user/README.md "Per-node blocks") ------------------------------

# The lines of ADDRS (each starting with an IPv4 address) whose address no
# block of BLOCKS ("CIDR NODE" lines) held by NODE contains: nothing when
# every address lies in that node's blocks. Host and guest (plain awk).
outside_blocks() {	# outside_blocks NODE BLOCKS ADDRS
	awk -v me="$1" -v blocks="$2" '
		function n(a, o) { split(a, o, "[./]"); return ((o[1] * 256 + o[2]) * 256 + o[3]) * 256 + o[4] }
		FILENAME == blocks { if ($2 == me) { lo[++k] = n($1); split($1, c, "/"); hi[k] = lo[k] + 2 ^ (32 - c[2]) - 1 }; next }
		{ for (i = 1; i <= k; i++) if (n($1) >= lo[i] && n($1) <= hi[i]) next; print }' "$2" "$3"
}

POOLS="rail1 rail1-net"

# "IP CONTAINER IFNAME" of what this node's own store holds, both pools
store_held() {
	local p
	for p in $POOLS; do
		"$CTL" -c /tmp/local.json pool show "$p" -j | jq -r '.allocations[] | "\(.ip) \(.container_id) \(.ifname)"'
	done | sort
}

# "IP CONTAINER IFNAME" of what this node published in etcd (P/used/...), both pools
published_mine() {
	local p
	for p in $POOLS; do
		"$CTL" pool show "$p" -j | jq -r --arg n "$VM_NODE" \
			'.published[] | select(.node == $n) | "\(.ip) \(.container_id) \(.ifname)"'
	done | sort
}
published_is() { [ "$(published_mine)" = "$(cat "$1")" ]; }

# store_check WHEN ADDS...: this node's store, its blocks in etcd and what
# it published, against what its pods got (ADDS: attach's lines). Leaves
# store.WHEN ("IP CONTAINER IFNAME") and blocks.WHEN ("CIDR NODE", etcd's
# blocks of both pools) in the node's output for the cross-node checks.
store_check() {
	local when=$1 f=${1// /} t0 p
	shift
	awk '{ sub("/.*", "", $4); print $4, $2, $3 }' "$@" | sort >/tmp/pods.addrs
	store_held >"$VM_OUT/store.$f"
	check_eq "$when: $VM_NODE's own store (ipam.path) holds exactly its pods' addresses, each under its container (nothing left by a failed try)" \
		"$(cat "$VM_OUT/store.$f")" "$(cat /tmp/pods.addrs)"
	for p in $POOLS; do "$CTL" pool show "$p" -j; done >/tmp/pools.json
	jq -r '.blocks[] | "\(.block) \(.node)"' /tmp/pools.json >"$VM_OUT/blocks.$f"
	check_eq "$when: each of them inside a block etcd says $VM_NODE holds (pool show's blocks)" \
		"$(outside_blocks "$VM_NODE" "$VM_OUT/blocks.$f" "$VM_OUT/store.$f")" ""
	check_eq "$when: no block listed twice" "$(awk '{ print $1 }' "$VM_OUT/blocks.$f" | sort | uniq -d)" ""
	check_eq "$when: etcd holds no per-allocation record of either pool (pool show's allocations)" \
		"$(jq -s '[.[].allocations[]] | length' /tmp/pools.json)" 0
	tap_diag "$when: $VM_NODE holds $(awk -v n="$VM_NODE" '$2 == n { print $1 }' "$VM_OUT/blocks.$f" | xargs)"
	# the agent's tick publishes at most every 10 s, with textfile.interval_s 2 here
	t0=$SECONDS
	check "$when: what $VM_NODE published in etcd (P/used, pool show's published) names the same addresses and containers (waits for the agent's tick)" \
		vm_wait_until 60 published_is "$VM_OUT/store.$f"
	tap_diag "$when: published after $((SECONDS - t0)) s of waiting"
	published_mine >"$VM_OUT/published.$f"
}

# The operator's look on the node, once at the end (an rdmanetctl run with
# the etcd config costs seconds under TCG): ip show of each of the pods
# store_check last compared, which it finds in the node's own store.
ip_show_check() {
	check_eq "the end: rdmanetctl ip show --container-id on $VM_NODE names each of its pods' addresses" \
		"$(while read -r _ cid ifname; do
			"$CTL" ip show --container-id "$cid" --ifname "$ifname" -j </dev/null |
				jq -r --arg c "$cid" '.allocations[] | "\(.ip) \($c) \(.ifname)"'
		done </tmp/pods.addrs | sort)" "$(cat /tmp/pods.addrs)"
}

# node-a, once both nodes ran store_check WHEN: no address in two stores
stores_apart() {
	local when=$1 f=${1// /}
	check_eq "$when: no address in both nodes' stores" \
		"$(cat "$VM_RUN"/node-*/store."$f" | awk '{ print $1 }' | sort | uniq -d)" ""
	check_eq "$when: node-b's addresses inside blocks etcd says node-b holds, as node-a reads etcd" \
		"$(outside_blocks node-b "$VM_OUT/blocks.$f" "$VM_RUN/node-b/store.$f")" ""
}

cm_listening() { rdma resource show cm_id 2>/dev/null | grep LISTEN | grep -q ":$1 "; }

# ROLE server|client NAME CMD...: one RDMA run between the nodes, the server
# on node-a; under a loaded TCG host a connection setup can stall, so a run
# that fails is tried again (both nodes agreeing through the run directory)
rdma_run() {
	local name=$1 attempt rc peer
	shift
	for attempt in 1 2 3; do
		vm_barrier "$name-$attempt" 120 || return 1
		"$@" "$attempt" >"$VM_OUT/$name.$attempt.out" 2>&1
		rc=$?
		vm_put "$name-$attempt-$VM_NODE" "$rc"
		peer=$(vm_get "$name-$attempt-$VM_PEER" 180)
		[ "$rc" = 0 ] && [ "$peer" = 0 ] && { cp "$VM_OUT/$name.$attempt.out" "$VM_OUT/$name.out"; return 0; }
		tap_diag "$name attempt $attempt: $VM_NODE exit $rc, $VM_PEER exit ${peer:-none}"
	done
	return 1
}

perf_server() {	# perf_server TOOL PORT_BASE ARGS... ATTEMPT
	local tool=$1 port=$(($2 + ${!#})) pid
	timeout 60 "$tool" -d rxe0 -p "$port" "${@:3:$(($# - 3))}" &
	pid=$!
	vm_wait_listen "$port" 30 && vm_put "$tool-$port-up" 1
	wait $pid
}
perf_client() {
	local tool=$1 port=$(($2 + ${!#}))
	vm_get "$tool-$port-up" 60 >/dev/null || return 1
	timeout 60 "$tool" -d rxe0 -p "$port" "${@:3:$(($# - 3))}" "$VM_PEER_IP"
}
rping_server() {
	local port=$((7174 + $1)) pid
	timeout 60 rping -s -a "$VM_IP" -p "$port" -C 20 -S 4096 -v &
	pid=$!
	vm_wait_until 30 cm_listening "$port" && vm_put "rping-$port-up" 1
	wait $pid
}
rping_client() {
	local port=$((7174 + $1))
	vm_get "rping-$port-up" 60 >/dev/null || return 1
	timeout 60 rping -c -a "$VM_PEER_IP" -p "$port" -C 20 -S 4096 -v
}

node_setup() {
	local dsy=$RN_SRC/deploy/base/rdmanetd-daemonset.yaml
	# the DaemonSet's command line and ConfigMap, as the manifest has them
	# (no process substitution: the VM's /dev has no /dev/fd)
	# (the command array may span lines: from its "command: [" to its "]")
	mapfile -t AGENT_CMD <<<"$(awk '/^ *command: \[.*rdmanetd/ { on = 1 } on { sub(/^ *command: /, ""); printf "%s", $0 } on && /\] *$/ { exit }' \
		"$dsy" | jq -r '.[]')"
	check_eq "the DaemonSet runs rdmanetd --config /etc/rdmanet/config.json --publish-config /host/etc/rdmanet/config.json --health-file /run/rdmanet/health.json --cluster" \
		"${AGENT_CMD[*]}" "/usr/local/sbin/rdmanetd --config /etc/rdmanet/config.json --publish-config /host/etc/rdmanet/config.json --health-file /run/rdmanet/health.json --cluster"
	# the host's /etc/rdmanet as the DaemonSet mounts it (/host/etc/rdmanet):
	# here a directory of the VM's own, where the published copy is checked
	mkdir -p /host/etc/rdmanet
	install -D -m 0755 "$RN_BUILD/bin/rdmanetd" /usr/local/sbin/rdmanetd
	install -D -m 0755 "$RN_BUILD/bin/rdmanetctl" /usr/local/bin/rdmanetctl
	# the init container's job: the plugin in /opt/cni/bin, the config in /etc/rdmanet
	install -D -m 0755 "$RN_BUILD/bin/rdmanet-etcd" /opt/cni/bin/rdmanet-etcd
	install -D -m 0755 "$RN_BUILD/bin/rdmanet" /opt/cni/bin/rdmanet
	mkdir -p /etc/rdmanet
	# one node config for both nodes (the node name is the hostname): the
	# hca-shared overlay's, its masters discovered, without the device plugin;
	# the IP pools as the rails-8 overlay runs them, per-node blocks in etcd
	# ("block", ipam.path, ipam.block_lease_s). Blocks of 8 (/29, not the
	# overlay's /28 of 16) so that a node needs more than one: the agent
	# claims one per pool at start (its reserve, with no block free), step
	# 2's 3 addresses per pool fit in it with more than half a block left,
	# step 6's 3 more on rail1 still fit (6 of 8) without a claim on the ADD
	# path while the leader is killed, and leave less than half free, so
	# the agent's tick claims rail1's second block. The ranges are 64
	# addresses on /29 boundaries (widened from 50: 8 whole blocks, where
	# 50 from .100 left two blocks cut short, which fill sooner): 2 nodes x
	# 2 blocks at most take half of each pool.
	jq 'del(.device_plugin) | .masters = []' "$RN_SRC/deploy/overlays/hca-shared/config.json" | jq \
		--argjson eps "$(printf '"http://10.0.2.2:%s"\n' "$@" | jq -s -c .)" '
		.ipam = { store: "etcd", endpoints: $eps, prefix: "/rdmanet", timeout_s: 5,
			  path: "/var/lib/rdmanet/ipam.db", block_lease_s: 900 }
		| .textfile.interval_s = 2
		| .pools = [
		    { name: "rail1", subnet: "192.168.77.0/24", ips: ["192.168.77.96-192.168.77.159"],
		      gateway: "192.168.77.254", masters: ["eth0"], block: 29 },
		    { name: "rail1-net", subnet: "172.16.11.0/24", ips: ["172.16.11.8-172.16.11.71"],
		      gateway: "172.16.11.254", masters: ["eth0"], block: 29 } ]' >/etc/rdmanet/config.json
	cp /etc/rdmanet/config.json "$VM_OUT/config.json"
	# the node's own store read as a SQLite store ("store" left to its
	# default on the same ipam.path): what this node handed out of its blocks
	jq -n --arg n "$VM_NODE" '{ node: $n, ipam: { path: "/var/lib/rdmanet/ipam.db" } }' >/tmp/local.json
	# the NetworkAttachmentDefinitions: deploy/examples/nad-macvlan.yaml's, one per rail style,
	# as Multus hands them to the plugin (cniVersion and name from the list)
	local nad
	nad=$(sed -n '/config: |/,$p' "$RN_SRC/deploy/examples/nad-macvlan.yaml" | sed 1d)
	jq '.plugins[0] + {cniVersion, name} | .master = "eth0" | .ippools.ipv4 = ["rail1"]' \
		<<<"$nad" >/tmp/net1.json
	jq '.plugins[0] + {cniVersion, name: "rail1-net"} | .master = "eth0" | .ippools.ipv4 = ["rail1-net"]' \
		<<<"$nad" >/tmp/net2.json
	# the rails' anycast gateways
	ip addr add 192.168.77.254/32 dev eth0
	ip addr add 172.16.11.254/24 dev eth0
	CTL=/usr/local/bin/rdmanetctl
}

# what rdmanetctl pool list says: the store and the pools it names
pools_synced() {
	"$CTL" pool list -j 2>>"$VM_OUT/pool.err" |
		jq -r '"\(.store) \([.pools[].name] | sort | join(","))"' >/tmp/pools.synced 2>>"$VM_OUT/pool.err"
	[ "$(cat /tmp/pools.synced)" = "etcd rail1,rail1-net" ]
}

step1() {
	local j
	j=$(rdma -j link show rxe0/1)
	{ rdma link show; rdma system show; } >"$VM_OUT/rdma.txt" 2>&1
	check_eq "rdma link: rxe0/1 ACTIVE, LINK_UP, on eth0" \
		"$(jq -r '.[0] | "\(.state) \(.physical_state) \(.netdev)"' <<<"$j")" "ACTIVE LINK_UP eth0"
	check "rdma system: netns shared" sh -c "rdma system show | grep -q 'netns shared'"
	agent_start
	check "rdmanetd (the DaemonSet's command line) writes its textfile" \
		vm_wait_until 60 test -s "$textfile"
	# the ConfigMap's config, with the node's name added (the plugin on the
	# host has no other way to learn it)
	check "... and publishes its config where the CNI plugin on the host reads it, naming the node" \
		vm_wait_until 30 jq -e --slurpfile c /etc/rdmanet/config.json --arg n "$(hostname)" \
		'. == ($c[0] + { node: $n })' /host/etc/rdmanet/config.json
	check_eq "it attached to eth0, the netdev of rxe0 (masters: [] discovers it)" \
		"$("$CTL" stats -j | jq -r '[.masters[].ifname] | join(",")')" eth0
	# waited for: the agent syncs the pools into etcd after it attaches, and
	# one request may time out (timeout_s 5) while both TCG guests are busy
	vm_wait_until 60 pools_synced
	check_eq "etcd reached over the management network: pools synced" \
		"$(cat /tmp/pools.synced)" "etcd rail1,rail1-net"
	[ -s "$VM_OUT/pool.err" ] && tap_diag "pool list's last error: $(tail -1 "$VM_OUT/pool.err")"
	"$CTL" doctor >"$VM_OUT/doctor.1" 2>&1
	check_eq "rdmanetctl doctor exits 0" $? 0
	check_eq "doctor: no failure, no warning but XDP's" \
		"$(grep -v '^pass' "$VM_OUT/doctor.1" | grep -v '^warn datapath ')" ""
	tap_diag "doctor: $(grep -c '^pass' "$VM_OUT/doctor.1") checks pass; $(grep '^warn' "$VM_OUT/doctor.1")"
}

step2() {
	local p pids=() t0 t1 n all dup
	vm_barrier pools-ready 120
	t0=$EPOCHREALTIME
	for p in $(seq 1 $NP); do
		pod_up "${VM_NODE#node-}$p" net1:/tmp/net1.json net2:/tmp/net2.json &
		pids+=($!)
	done
	n=0
	for p in "${pids[@]}"; do wait "$p" || n=$((n + 1)); done
	t1=$EPOCHREALTIME
	check_eq "$NP pods attached at once, net1 and net2 each, while $VM_PEER does the same" "$n" 0
	cat /tmp/adds.* >"$VM_OUT/adds.1" 2>/dev/null
	tap_diag "$((NP * 2)) ADDs in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s;" \
		"per ADD ms: $(awk '{ print $6 }' "$VM_OUT/adds.1" | sort -n | tr '\n' ' ')"
	# a retried ADD is no error (a gateway slow to answer under a loaded host)
	tap_diag "attempts per ADD: $(awk '{ print $1 "/" $3 "=" $5 }' "$VM_OUT/adds.1" | tr '\n' ' ')"
	check "net1 addresses in rail1's range" awk '$3 == "net1" && $4 !~ /^192\.168\.77\.(9[6-9]|1[0-5][0-9])\/24$/ { exit 1 }' "$VM_OUT/adds.1"
	check "net2 addresses in rail1-net's range" awk '$3 == "net2" && $4 !~ /^172\.16\.11\.([89]|[1-6][0-9]|7[01])\/24$/ { exit 1 }' "$VM_OUT/adds.1"
	vm_barrier attached 240
	all=$(cat "$VM_RUN"/node-*/adds.1)
	check_eq "both nodes: $((NP * 4)) attachments" "$(wc -l <<<"$all")" $((NP * 4))
	dup=$(awk '{ print $4 }' <<<"$all" | sort | uniq -d)
	check_eq "no address handed out twice across the nodes" "$dup" ""
	# the stores' view: each node's addresses in its own store, inside its blocks
	store_check "step 2" "$VM_OUT/adds.1"
	vm_barrier stores-1 120
	[ "$VM_NODE" = node-a ] || return 0
	stores_apart "step 2"
	check_eq "both nodes hold blocks of the one rail1 pool" \
		"$(awk '$1 ~ /^192\.168\.77\./ { print $2 }' "$VM_OUT/blocks.step2" | sort -u | xargs)" "node-a node-b"
}

step3_a() {	# node-a: pod a1 sends to pod b1 over both rails
	local b1 b2 t1 t2 r1 r2
	read -r b1 b2 <<<"$(vm_get b1-addrs 120)"
	# resolve the neighbours first: a burst into an unresolved neighbour
	# overflows the kernel's queue of packets waiting for ARP (unres_qlen)
	check "pod a1 reaches pod b1 on both rails (ping)" \
		ip netns exec a1 sh -c "{ busybox ping -c 1 -W 10 $b1 && busybox ping -c 1 -W 10 $b2; } >/dev/null"
	t1=$(stat_pod a1 net1 .tx.roce.packets)
	t2=$(stat_pod a1 net2 .tx.roce.packets)
	vm_get sink-ready 60 >/dev/null
	ip netns exec a1 "$RN_BUILD/tools/rn_udpgen" --dst "$b1" --count 200 --size 512
	ip netns exec a1 "$RN_BUILD/tools/rn_udpgen" --dst "$b2" --count 200 --size 512
	r1=$(stat_pod a1 net1 .tx.roce.packets)
	r2=$(stat_pod a1 net2 .tx.roce.packets)
	check_eq "node-a counted pod a1's 200 RoCEv2 packets on net1 (rail1 pool)" $((r1 - t1)) 200
	check_eq "node-a counted pod a1's 200 RoCEv2 packets on net2 (rail1-net)" $((r2 - t2)) 200
	check_eq "... and marked them (tx.marked_packets)" \
		"$(stat_pod a1 net1 .tx.marked_packets) $(stat_pod a1 net2 .tx.marked_packets)" "200 200"
	vm_put a1-sent 400
	vm_barrier traffic-done 120
}

step3_b() {	# node-b: pod b1 receives; the wire is captured here
	local n1 n2 got sent
	n1=$(pod_addr b1 net1)
	n2=$(pod_addr b1 net2)
	vm_capture_start /tmp/pods.pcap udp dst port 4791
	ip netns exec b1 "$RN_BUILD/tools/rn_udpsink" --idle-ms 8000 --max-s 180 --ready /tmp/sink.ready \
		>/tmp/sink.count &
	local sink=$!
	vm_wait_until 30 test -f /tmp/sink.ready
	vm_put b1-addrs "$n1 $n2"
	vm_put sink-ready 1
	wait $sink
	got=$(cat /tmp/sink.count)
	sent=$(vm_get a1-sent 120)
	check "capture holds the $sent datagrams pod a1 sent, no drop" vm_capture_stop /tmp/pods.pcap "$sent"
	check_eq "pod b1 received all 400 datagrams (both rails)" "$got" 400
	check_eq "node-b counted 200 RoCEv2 packets into pod b1's net1" "$(stat_pod b1 net1 .rx.roce.packets)" 200
	check_eq "node-b counted 200 RoCEv2 packets into pod b1's net2" "$(stat_pod b1 net2 .rx.roce.packets)" 200
	echo "$n1 $n2" >"$VM_OUT/b1.addrs"
	vm_barrier traffic-done 120
}

step4() {	# env in each pod: its own GID
	local p j want1 want2
	for p in $(seq 1 $NP); do
		p=${VM_NODE#node-}$p
		want1=$(gid_index "$(pod_addr "$p" net1)")
		want2=$(gid_index "$(pod_addr "$p" net2)")
		j=$(ip netns exec "$p" "$CTL" env -j 2>>"$VM_OUT/env.err")
		echo "$j" >"$VM_OUT/env.$p.json"
		check_eq "env in pod $p: net1 and net2 with their own RoCE v2 GID indexes on rxe0/1" \
			"$(jq -r '[.interfaces[] | "\(.ifname)=\(.device):\(.port)/\(.gid_index)"] | sort | join(" ")' <<<"$j")" \
			"net1=rxe0:1/$want1 net2=rxe0:1/$want2"
		j=$(ip netns exec "$p" "$CTL" env --netdev net1)
		echo "$j" >"$VM_OUT/env.$p.net1"
		check_eq "env --netdev net1 in pod $p: NCCL_IB_GID_INDEX, NCCL_IB_HCA, NCCL_SOCKET_IFNAME, UCX_NET_DEVICES" \
			"$(grep -E 'NCCL_IB_GID_INDEX|NCCL_IB_HCA|NCCL_SOCKET_IFNAME|UCX_NET_DEVICES' <<<"$j" | sort | tr '\n' ' ')" \
			"export NCCL_IB_GID_INDEX='$want1' export NCCL_IB_HCA='=rxe0:1' export NCCL_SOCKET_IFNAME='=net1' export UCX_NET_DEVICES='rxe0:1' "
	done
	"$CTL" doctor >"$VM_OUT/doctor.2" 2>&1
	check_eq "doctor with the pods attached: exit 0, pod-gids pass" \
		"$?:$(awk '$2 == "pod-gids" { print $1 }' "$VM_OUT/doctor.2")" "0:pass"
}

step5() {
	local gid s0 s1
	gid=$(gid_index "$VM_IP")
	s0=$(rdma -j statistic show link rxe0/1 | jq '.[0].sent_pkts + .[0].rcvd_pkts')
	if [ "$VM_NODE" = node-a ]; then
		rdma_run bw perf_server ib_write_bw 18500 -x "$gid" -s 65536 -n 200 --report_gbits
		check_eq "ib_write_bw between the nodes (server)" $? 0
		rdma_run lat perf_server ib_read_lat 18600 -x "$gid" -n 200
		check_eq "ib_read_lat between the nodes (server)" $? 0
		rdma_run cm rping_server
		check_eq "rping over RDMA-CM, 20 x 4 KiB, verified (server)" $? 0
	else
		rdma_run bw perf_client ib_write_bw 18500 -x "$gid" -s 65536 -n 200 --report_gbits
		check_eq "ib_write_bw between the nodes (client)" $? 0
		tap_diag "ib_write_bw 64 KiB x 200: $(awk '$1 == 65536 { print $4 " Gbit/s average" }' "$VM_OUT/bw.out")"
		rdma_run lat perf_client ib_read_lat 18600 -x "$gid" -n 200
		check_eq "ib_read_lat between the nodes (client)" $? 0
		tap_diag "ib_read_lat 2 B: $(awk '$1 == 2 { print "typical " $5 " us, t_min " $3 " us" }' "$VM_OUT/lat.out")"
		rdma_run cm rping_client
		check_eq "rping over RDMA-CM, 20 x 4 KiB, verified (client)" $? 0
		check_eq "rping client saw its 20 pings come back" "$(grep -c '^ping data' "$VM_OUT/cm.out")" 20
	fi
	s1=$(rdma -j statistic show link rxe0/1 | jq '.[0].sent_pkts + .[0].rcvd_pkts')
	check_range "rxe0 moved the RDMA traffic (sent + received packets)" $((s1 - s0)) 10000 100000000
	check "the agent's textfile has rxe0's counters equal to rdma statistic's (waits for an export)" \
		vm_wait_until 60 hw_equal
	cp /tmp/hw.ours "$VM_OUT/hw.textfile"
	check "pods still attached while it ran: pod show lists $((NP * 2)) interfaces" \
		test "$("$CTL" pod show -j | jq length)" = $((NP * 2))
}

step6_a() {
	local b2 tx0 tx1 ids0 ids1 old p pids=() n
	b2=$(vm_get b2-addr 120)
	ip netns exec a2 busybox ping -c 1 -W 10 "$b2" >/dev/null
	tx0=$(stat_pod a2 net1 .tx.roce.packets)
	ids0=$(bpftool -j net show dev eth0 | jq -c '[.[0].tc[]?.id] + [.[0].xdp[]?.id]')
	vm_barrier s6-start 120
	attach_start
	ip netns exec a2 "$RN_BUILD/tools/rn_udpgen" --dst "$b2" --count $STREAM --size 256 \
		--interval-us 1000 &
	local gen=$!
	vm_put kill-leader 1			# the host kills the etcd leader now
	old=$AGENT_PID
	touch /tmp/agent.restarted
	kill -TERM "$AGENT_PID"
	wait "$AGENT_PID"
	check_eq "node-a's rdmanetd stops on SIGTERM with exit 0 mid-stream" $? 0
	agent_start
	check "... and starts again with the same command line: a fresh textfile export" \
		vm_wait_until 60 test "$textfile" -nt /tmp/agent.restarted
	attach_wait
	wait $gen
	check_eq "the stream's sender finished" $? 0
	tx1=$(stat_pod a2 net1 .tx.roce.packets)
	check_eq "node-a counted all $STREAM packets of pod a2 across its agent's restart" $((tx1 - tx0)) $STREAM
	ids1=$(bpftool -j net show dev eth0 | jq -c '[.[0].tc[]?.id] + [.[0].xdp[]?.id]')
	check_eq "the restarted agent reattached nothing (same program ids on eth0)" "$ids1" "$ids0"
	check "the new agent is running ($old -> $AGENT_PID)" kill -0 "$AGENT_PID"
	vm_put a2-done 1
}

step6_b() {
	local rx0 got
	ip netns exec b2 "$RN_BUILD/tools/rn_udpsink" --idle-ms 8000 --max-s 300 --ready /tmp/sink2.ready \
		>/tmp/sink2.count &
	local sink=$!
	vm_wait_until 30 test -f /tmp/sink2.ready
	rx0=$(stat_pod b2 net1 .rx.roce.packets)
	vm_put b2-addr "$(pod_addr b2 net1)"
	vm_barrier s6-start 120
	attach_start
	attach_wait
	vm_get a2-done 300 >/dev/null
	wait $sink
	got=$(cat /tmp/sink2.count)
	check_eq "pod b2 received the whole stream" "$got" $STREAM
	check_eq "node-b counted it whole into pod b2" $(($(stat_pod b2 net1 .rx.roce.packets) - rx0)) $STREAM
}

# both nodes: NQ more pods attached, started just before node-a asks the
# host to kill the etcd leader, so the kill lands while the ADDs run
attach_start() {
	local p
	rm -f /tmp/adds.*
	LD_TRACE_DIR=/tmp/ld
	mkdir -p "$LD_TRACE_DIR"
	ATTACH_T0=$EPOCHREALTIME
	ATTACH_PIDS=()
	for p in $(seq $((NP + 1)) $((NP + NQ))); do
		pod_up "${VM_NODE#node-}$p" net1:/tmp/net1.json &
		ATTACH_PIDS+=($!)
	done
}

attach_wait() {
	local killed p n t1 during=no
	n=0
	for p in "${ATTACH_PIDS[@]}"; do wait "$p" || n=$((n + 1)); done
	t1=$EPOCHREALTIME
	[ -f "$VM_SHARED/leader-killed" ] && during=yes
	killed=$(vm_get leader-killed 120)
	check "the host killed the etcd leader (member $killed)" test -n "$killed"
	check_eq "$NQ pods attached across the leader kill (torn down and retried where a try failed)" "$n" 0
	cat /tmp/adds.* >"$VM_OUT/adds.2" 2>/dev/null
	cat /tmp/cni.*.err >"$VM_OUT/cni.err" 2>/dev/null
	tap_diag "ADDs across the kill: $(awk -v a="$ATTACH_T0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s;" \
		"the leader was dead before the last one ended: $during;" \
		"attempts per pod: $(awk '{ print $1 "=" $5 }' "$VM_OUT/adds.2" | tr '\n' ' ')"
	# the node's blocks have room for them (the agent's reserve, see
	# node_setup): an ADD asks etcd nothing, so losing the leader fails none
	check_eq "every ADD across the leader kill succeeded on its first try (inside the node's blocks)" \
		"$(awk '$5 != 1 { print $1 "=" $5 }' "$VM_OUT/adds.2" | xargs)" ""
	LD_TRACE_DIR=
	cp -r /tmp/ld "$VM_OUT/ld-trace"
	check_eq "the loader traced rdmanet-etcd serving each of the $NQ ADDs" \
		"$(grep -l 'needed by /opt/cni/bin/rdmanet-etcd' /tmp/ld/* | wc -l)" $NQ
	check_eq "... and none of them loaded libcurl: no ADD sent etcd a request" \
		"$(grep -l 'file=libcurl' /tmp/ld/* | xargs -r -n1 basename)" ""
	# the pattern is right: a request to etcd loads it (pool list reads the pools)
	check "... (rdmanetctl pool list, which asks etcd, does load it under the same trace)" \
		sh -c "LD_DEBUG=files '$CTL' pool list -j 2>&1 >/dev/null | grep -q 'file=libcurl'"
}

final_check() {	# node-a, once both nodes are done: what the pods got, across the nodes
	local all
	all=$(cat "$VM_RUN"/node-*/adds.1 "$VM_RUN"/node-*/adds.2)
	check_eq "$((NP * 4 + NQ * 2)) attachments in all" "$(wc -l <<<"$all")" $((NP * 4 + NQ * 2))
	check_eq "no address handed out twice, leader kill included" \
		"$(awk '{ print $4 }' <<<"$all" | sort | uniq -d)" ""
	stores_apart "the end"
	"$CTL" doctor >"$VM_OUT/doctor.3" 2>&1
	check_eq "doctor at the end: exit 0" $? 0
}

guest_main() {
	vm_wait_peer 60
	node_setup "$@"
	step1
	step2
	if [ "$VM_NODE" = node-a ]; then step3_a; else step3_b; fi
	step4
	step5
	if [ "$VM_NODE" = node-a ]; then step6_a; else step6_b; fi
	store_check "the end" "$VM_OUT/adds.1" "$VM_OUT/adds.2"
	ip_show_check
	vm_barrier s6-done 300
	[ "$VM_NODE" = node-a ] && final_check
	grep 'ipam: blocks' "$VM_OUT/agent.log" >"$VM_OUT/agent.blocks"
	tap_diag "agent: $(grep -c 'claimed or given back' "$VM_OUT/agent.blocks") ticks claimed or gave back blocks, $(grep -vc 'claimed or given back' "$VM_OUT/agent.blocks") block warnings"
	"$CTL" stats >"$VM_OUT/stats.txt" 2>&1
	cp "$textfile" "$VM_OUT/rdmanet.prom"
	vm_barrier done 300
}

if [ -n "${VM_NODE:-}" ]; then
	. "$VM_LIB/guest.sh"
	guest_main "$@"
	tap_done
fi

# --- host side -------------------------------------------------------------------

. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/vm/lib/vm.sh"
. "$RN_SRC/selftests/ipam/lib/etcd_cluster.sh"
command -v etcd >/dev/null || tap_skip_all "etcd not installed (make deps installs etcd-server)"
vm_require "${VM_SERIES:-6.12}"
ETCD_TMP=$(mktemp -d /tmp/rn-two-nodes.XXXXXX)
CP_PID=
cleanup() {
	[ -n "$CP_PID" ] && kill "$CP_PID" 2>/dev/null
	etcd_cluster_stop
	rm -rf "$ETCD_TMP"
}
trap cleanup EXIT
if ! etcd_cluster_start "$ETCD_TMP/etcd" 3; then
	tap_fail "start a 3-member etcd cluster on the host"
	tap_done
fi
tap_ok "3-member etcd cluster on the host (client ports ${ETCD_CLIENT_PORTS[*]})"

# The control plane's side of step 6: when node-a asks, SIGKILL the leader
# and tell both nodes. The run directory is the one vm_run_pair makes next.
RUN_DIR_NEXT=$VM_LOGS/$(basename "${0%.sh}").$((VM_RUN_SEQ + 1)).$$
(
	deadline=$((SECONDS + 900))
	until [ -f "$RUN_DIR_NEXT/shared/kill-leader" ]; do
		[ $SECONDS -lt $deadline ] || exit 1
		sleep 0.2
	done
	l=$(etcd_leader)
	kill -KILL "${ETCD_PIDS[$((l - 1))]}"
	echo "$l" >"$RUN_DIR_NEXT/shared/.leader-killed" &&
		mv "$RUN_DIR_NEXT/shared/.leader-killed" "$RUN_DIR_NEXT/shared/leader-killed"
) &
CP_PID=$!

T0=$SECONDS
# not repeated after an rxe panic: the etcd cluster above lost its leader
VM_RXE_PANIC_RETRIES=0 VM_MGMT=1 VM_SCRIPT_ARGS="${ETCD_CLIENT_PORTS[*]}" vm_run_pair "$0" "$0" 840
tap_diag "two-node walkthrough: $((SECONDS - T0)) s from boot to power-off"

# what the nodes left behind, checked with the standard tools here
killed=$(cat "$VM_RUN_DIR/shared/leader-killed" 2>/dev/null)
check "the leader was killed mid-run (member ${killed:-none})" test -n "$killed"
if [ -n "$killed" ]; then
	ETCD_PIDS[$((killed - 1))]=
	live=()
	for i in 0 1 2; do [ -n "${ETCD_PIDS[$i]}" ] && live+=("http://127.0.0.1:${ETCD_CLIENT_PORTS[$i]}"); done
	nl=$(etcd_leader)
	check "the two members left elected a new leader (member ${nl:-none})" \
		test -n "$nl" -a "$nl" != "$killed"
	ectl() { ETCDCTL_API=3 etcdctl --endpoints="$(IFS=,; echo "${live[*]}")" "$@" 2>/dev/null; }
	check_eq "etcdctl: no per-allocation key (/rdmanet/ips/): every address the pods hold is in a block" \
		"$(ectl get --prefix /rdmanet/ips/ --keys-only | grep -c .)" 0
	# the blocks as etcd has them, "CIDR NODE": P/blocks/<pool>/<hex base>
	# and its value's holder and prefix length (one holder per key)
	ectl get --prefix /rdmanet/blocks/ | while read -r k && read -r v; do
		h=${k##*/}
		printf '%d.%d.%d.%d/%s %s\n' "0x${h:0:2}" "0x${h:2:2}" "0x${h:4:2}" "0x${h:6:2}" \
			"$(jq -r .len <<<"$v")" "$(jq -r .node <<<"$v")"
	done >"$VM_RUN_DIR/blocks.etcd"
	tap_diag "etcd's blocks: $(tr ' ' '=' <"$VM_RUN_DIR/blocks.etcd" | xargs)"
	check_eq "etcdctl: every block held by node-a or node-b, none listed twice" \
		"$(awk '$2 != "node-a" && $2 != "node-b" { print }' "$VM_RUN_DIR/blocks.etcd"; awk '{ print $1 }' "$VM_RUN_DIR/blocks.etcd" | sort | uniq -d)" ""
	for n in a b; do
		cat "$VM_RUN_DIR/node-$n"/adds.[12] 2>/dev/null | awk '{ sub("/.*", "", $4); print $4, $1 }' >"$VM_RUN_DIR/pods.node-$n"
		check_eq "etcdctl: each address node-$n's pods got lies in a block etcd gives node-$n" \
			"$( [ -s "$VM_RUN_DIR/pods.node-$n" ] || echo none; outside_blocks "node-$n" "$VM_RUN_DIR/blocks.etcd" "$VM_RUN_DIR/pods.node-$n")" ""
	done
fi
pcap=$VM_RUN_DIR/node-b/pods.pcap
if [ -s "$pcap" ] && [ -s "$VM_RUN_DIR/node-b/b1.addrs" ]; then
	read -r b1 b2 <"$VM_RUN_DIR/node-b/b1.addrs"
	m=$(tshark -r "$pcap" -Y "ip.dst == $b1 || ip.dst == $b2" -T fields -e ip.dst -e ip.dsfield.dscp \
		-e ip.dsfield.ecn -e infiniband.bth.opcode 2>/dev/null | sort | uniq -c | awk '{ print $1, $2, $3, $4, $5 }')
	echo "$m" >"$VM_RUN_DIR/node-b/pods.markings"
	check_eq "tshark on node-b's capture: 200 RoCEv2 packets to each of pod b1's addresses, all DSCP 26 ECT(0)" \
		"$m" "$(printf '200 %s 26 2 4\n200 %s 26 2 4' "$b1" "$b2" | sort -k2)"
else
	tap_fail "node-b left its pod capture"
fi
tap_done
