#!/bin/bash
# make demo: a throwaway RoCE node in network namespaces. A veth pair stands
# in for the RoCE NIC ("roce0" on the node, "wire0" on a peer that plays the
# switch and the remote hosts); two pods get macvlan interfaces on roce0;
# rdmanetd attaches its XDP and tc programs; the pods send RoCEv2-shaped
# traffic (UDP 4791 with a valid BTH, data and CNP) and TCP; we show what
# rdmanet counted, the Prometheus textfile, and the DSCP/ECN marks the peer
# received. Everything is torn down at the end.
set -u
cd "$(dirname "$0")/.."
export RN_BUILD=$(realpath "${1:-build}")
export RN_PFX=rndemo$$
. selftests/lib/netns.sh
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "topology: node netns with roce0 (veth), peer netns with wire0, pods a and b (macvlan on roce0)"
rn_topo_up || { echo "cannot create network namespaces (run as root)"; exit 1; }
MAC_A=$(rn_pod_up a 10.77.0.2 fd77::2)
MAC_B=$(rn_pod_up b 10.77.0.3)
echo "pod a eth1 $MAC_A 10.77.0.2 fd77::2"
echo "pod b eth1 $MAC_B 10.77.0.3"

step "rdmanetd: attach to roce0 (policy enforce, DSCP 26 for RoCE, 48 for CNP, ECT(0))"
rn_agent_config "$RN_TMP/config.json" enforce
cat "$RN_TMP/config.json"
rn_agent_start "$RN_TMP/config.json" || exit 1
sed 's/^/    /' "$RN_TMP/agent.log"

step "register the pods' interfaces in the data path (pod b asks for DSCP 34)"
rn_ctl pod add --namespace demo --pod trainer-a --container-id c0ffee01 --ifname eth1 \
	--master roce0 --mac "$MAC_A" --ip 10.77.0.2 --ip fd77::2
rn_ctl pod add --namespace demo --pod trainer-b --container-id c0ffee02 --ifname eth1 \
	--master roce0 --mac "$MAC_B" --ip 10.77.0.3 --dscp 34
rn_ctl pod show

step "traffic: RoCEv2 data and CNP, IPv6, pod-to-pod, a spoofed source, TCP"
rn_capture_start "$RN_TMP/wire.pcap" "udp port 4791"
rn_in a "$GEN" --dst 10.77.0.100 --count 500 --size 1024 && echo "pod a: 500 RoCEv2 WRITEs to the peer"
rn_in b "$GEN" --dst 10.77.0.100 --count 200 --size 512 && echo "pod b: 200 RoCEv2 WRITEs to the peer"
rn_in b "$GEN" --dst 10.77.0.100 --count 50 --size 64 --opcode 0x81 && echo "pod b: 50 CNPs"
rn_in a "$GEN" --dst fd77::100 --count 100 --size 1024 && echo "pod a: 100 RoCEv2 over IPv6"
rn_in a "$GEN" --dst 10.77.0.3 --count 30 --size 256 && echo "pod a -> pod b: 30 RoCEv2 (macvlan bridge, never leaves the node)"
rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 10 && echo "pod a: 10 packets from a spoofed source (enforce drops them)"
rn_in peer "$GEN" --dst 10.77.0.2 --count 40 --size 512 --tos 0x6b && echo "peer -> pod a: 40 RoCEv2 marked CE"
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
echo "    (ecn=2 is ECT(0); pod b asked for DSCP 34; CNPs always leave with 48)"

step "Prometheus textfile (rdmanetctl export; rdmanetd also writes it every interval)"
rn_ctl export --textfile "$RN_TMP"
grep -E '^rdmanet_pod_packets_total.*(class="roce"|class="cnp")|^rdmanet_pod_(marked|dropped|ecn)|^rdmanet_master_info|^rdmanet_pods' \
	"$RN_TMP/rdmanet.prom" | grep -v ' 0$'
if command -v promtool >/dev/null; then
	promtool check metrics <"$RN_TMP/rdmanet.prom" && echo "promtool check metrics: clean"
fi

step "tear down (rdmanetd --uninstall, namespaces deleted)"
