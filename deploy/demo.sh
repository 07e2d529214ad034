#!/bin/bash
# make demo: a throwaway RoCE node in network namespaces. A veth pair stands
# in for the RoCE NIC ("roce0" on the node, "wire0" on a peer that plays the
# switch, the rail's gateway and the remote hosts); rdmanetd attaches its XDP
# and tc programs; two pods get their RoCE interface from the rdmanet CNI
# plugin, exec'd exactly as a container runtime execs it (CNI_* environment,
# the network config on stdin), with addresses from the pools of the node
# config; the pods send RoCEv2-shaped traffic (UDP 4791 with a valid BTH,
# data and CNP) and TCP; we show what rdmanet counted, the Prometheus
# textfile, and the DSCP/ECN marks the peer received. Everything is torn
# down at the end, the pods' interfaces through CNI DEL.
set -u
cd "$(dirname "$0")/.."
export RN_BUILD=$(realpath "${1:-build}")
export RN_PFX=rndemo$$
. selftests/lib/netns.sh
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
CNI=$RN_BUILD/bin/rdmanet
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "topology: node netns with roce0 (veth), peer netns with wire0 (10.77.0.100, fd77::100: the rail's gateway)"
rn_topo_up || { echo "cannot create network namespaces (run as root)"; exit 1; }
for p in a b; do
	ip netns add "$RN_PFX-$p" && RN_PODS+=("$RN_PFX-$p")
	ip -n "$RN_PFX-$p" link set lo up
done
echo "pods a and b: empty network namespaces, as a runtime creates them"

step "rdmanetd: attach to roce0 (policy enforce, DSCP 26 for RoCE, 48 for CNP, ECT(0)); IP pools in the same config"
rn_agent_config "$RN_TMP/config.json" enforce "" \
	"\"ipam\": { \"store\": \"sqlite\", \"path\": \"$RN_TMP/ipam.db\" },
  \"cni\": { \"state_dir\": \"$RN_TMP/cni-state\", \"allowed_dscp\": [26, 34] },
  \"pools\": [
    { \"name\": \"rail-v4\", \"subnet\": \"10.77.0.0/24\", \"ips\": [\"10.77.0.2-10.77.0.99\"],
      \"gateway\": \"10.77.0.100\", \"masters\": [\"roce0\"] },
    { \"name\": \"rail-v6\", \"subnet\": \"fd77::/64\", \"ips\": [\"fd77::2-fd77::99\"],
      \"gateway\": \"fd77::100\", \"masters\": [\"roce0\"] } ]"
cat "$RN_TMP/config.json"
rn_agent_start "$RN_TMP/config.json" || exit 1
sed 's/^/    /' "$RN_TMP/agent.log"

step "two networks (what a NetworkAttachmentDefinition carries): rail (IPv4+IPv6), rail-gold (IPv4, DSCP 34)"
netconf() { # NAME JSON: the config a runtime derives for the plugin
	jq -n --arg n "$1" --argjson x "$2" \
		'{cniVersion: "1.1.0", name: $n, type: "rdmanet", master: "roce0"} + $x' >"$RN_TMP/$1.json"
	jq -c . "$RN_TMP/$1.json"
}
netconf rail '{"ippools": {"ipv4": ["rail-v4"], "ipv6": ["rail-v6"]}}'
netconf rail-gold '{"ippools": {"ipv4": ["rail-v4"]}, "dscp": 34}'

# cni CMD NETWORK POD CONTAINER_ID [CONFIG]: exec the plugin in the node's
# netns (where a runtime runs it) with a runtime's environment, which names
# the node config (host paths never come from a network config)
cni() {
	rn_in_node env -i RDMANET_CONFIG="$RN_TMP/config.json" CNI_COMMAND="$1" CNI_CONTAINERID="$4" CNI_NETNS="/run/netns/$RN_PFX-$3" \
		CNI_IFNAME=eth1 CNI_PATH="$RN_BUILD/bin" \
		CNI_ARGS="IgnoreUnknown=1;K8S_POD_NAMESPACE=demo;K8S_POD_NAME=trainer-$3" \
		"$CNI" <"${5:-$RN_TMP/$2.json}"
}

step "CNI ADD: pod a on rail, pod b on rail-gold (conflict and gateway checks on)"
echo "\$ CNI_COMMAND=ADD CNI_CONTAINERID=c0ffee01 CNI_NETNS=/run/netns/$RN_PFX-a CNI_IFNAME=eth1 \\"
echo "  CNI_ARGS='IgnoreUnknown=1;K8S_POD_NAMESPACE=demo;K8S_POD_NAME=trainer-a' rdmanet < rail.json"
cni ADD rail a c0ffee01 >"$RN_TMP/a.result" || { cat "$RN_TMP/a.result"; exit 1; }
cat "$RN_TMP/a.result"
cni ADD rail-gold b c0ffee02 >"$RN_TMP/b.result" || { cat "$RN_TMP/b.result"; exit 1; }
A4=$(jq -r '.ips[0].address | sub("/.*"; "")' "$RN_TMP/a.result")
A6=$(jq -r '.ips[1].address | sub("/.*"; "")' "$RN_TMP/a.result")
B4=$(jq -r '.ips[0].address | sub("/.*"; "")' "$RN_TMP/b.result")
echo "pod a eth1 $(jq -r '.interfaces[0].mac' "$RN_TMP/a.result") $A4 $A6"
echo "pod b eth1 $(jq -r '.interfaces[0].mac' "$RN_TMP/b.result") $B4"
echo "pod a, inside: its addresses, its policy rule and its route table"
ip -n "$RN_PFX-a" -br addr show eth1 | sed 's/^/    /'
ip -n "$RN_PFX-a" rule show | grep -v 'lookup \(local\|main\|default\)' | sed 's/^/    /'
ip -n "$RN_PFX-a" route show table 100 | sed 's/^/    table 100: /'
for p in a b; do
	jq --slurpfile r "$RN_TMP/$p.result" '. + {prevResult: $r[0]}' \
		"$RN_TMP/$([ $p = a ] && echo rail || echo rail-gold).json" >"$RN_TMP/$p.prev.json"
done
cni CHECK rail a c0ffee01 "$RN_TMP/a.prev.json" && echo "CNI CHECK pod a: ok"

step "the plugin registered both interfaces in the data path (pod b with its network's DSCP 34)"
rn_ctl pod show

step "traffic: RoCEv2 data and CNP, IPv6, pod-to-pod, a spoofed source, TCP"
rn_capture_start "$RN_TMP/wire.pcap" "udp port 4791"
rn_in a "$GEN" --dst 10.77.0.100 --count 500 --size 1024 && echo "pod a: 500 RoCEv2 WRITEs to the peer"
rn_in b "$GEN" --dst 10.77.0.100 --count 200 --size 512 && echo "pod b: 200 RoCEv2 WRITEs to the peer"
rn_in b "$GEN" --dst 10.77.0.100 --count 50 --size 64 --opcode 0x81 && echo "pod b: 50 CNPs"
rn_in a "$GEN" --dst fd77::100 --count 100 --size 1024 && echo "pod a: 100 RoCEv2 over IPv6"
rn_in a "$GEN" --dst "$B4" --count 30 --size 256 && echo "pod a -> pod b: 30 RoCEv2 (macvlan bridge, never leaves the node)"
rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.166 --count 10 && echo "pod a: 10 packets from a spoofed source (enforce drops them)"
rn_in peer "$GEN" --dst "$A4" --count 40 --size 512 --tos 0x6b && echo "peer -> pod a: 40 RoCEv2 marked CE"
nsenter --net=/run/netns/"$RN_PEER" iperf3 -s -1 -B 10.77.0.100 >/dev/null 2>&1 &
sleep 0.3
rn_in a iperf3 -c 10.77.0.100 -t 1 | grep -E 'sender|receiver' | sed 's/^/iperf3 pod a -> peer: /'
rn_capture_stop

step "rdmanetctl stats"
rn_ctl stats
step "rdmanetctl stats --pod demo/trainer-b -j"
rn_ctl stats --pod demo/trainer-b -j --pretty | head -60

step "DSCP/ECN of the RoCEv2 packets the peer received (tshark)"
tshark -r "$RN_TMP/wire.pcap" -T fields -e ip.src -e ipv6.src -e udp.length \
	-e ip.dsfield.dscp -e ip.dsfield.ecn -e ipv6.tclass.dscp -e ipv6.tclass.ecn 2>/dev/null |
	awk -F'\t' '{ src = $1 $2; kind = ($3 == 72 ? "CNP " : "data");
		      dscp = $4 $6; ecn = $5 $7;
		      n[src " " kind " dscp=" dscp " ecn=" ecn]++ }
		    END { for (k in n) printf "    %6d packets from %s\n", n[k], k }' | sort -k4
echo "    (ecn=2 is ECT(0); pod b's network asked for DSCP 34; CNPs always leave with 48)"

step "Prometheus textfile (rdmanetctl export; rdmanetd also writes it every interval)"
rn_in_node "$RN_BUILD/bin/rdmanetctl" -c "$RN_TMP/config.json" export --textfile "$RN_TMP"
grep -E '^rdmanet_pod_packets_total.*(class="roce"|class="cnp")|^rdmanet_pod_(marked|dropped|ecn)|^rdmanet_master_info|^rdmanet_pods|^rdmanet_ipam_pool_(allocated|free)' \
	"$RN_TMP/rdmanet.prom" | grep -v ' 0$'
if command -v promtool >/dev/null; then
	promtool check metrics <"$RN_TMP/rdmanet.prom" && echo "promtool check metrics: clean"
fi

step "CNI DEL of both pods' interfaces (as the runtime does when the pods go)"
cni DEL rail a c0ffee01 "$RN_TMP/a.prev.json" && echo "CNI DEL pod a: ok"
cni DEL rail-gold b c0ffee02 "$RN_TMP/b.prev.json" && echo "CNI DEL pod b: ok"
echo "registered pod interfaces left: $(rn_ctl pod show -j | jq length); addresses held: $(
	"$RN_BUILD/bin/rdmanetctl" -c "$RN_TMP/config.json" -j pool show rail-v4 | jq .allocated)"

step "tear down (rdmanetd --uninstall, namespaces deleted)"
