#!/bin/bash
# Source-address policy on real traffic: enforce drops a pod's spoofed
# packets (and counts them by reason), monitor counts and passes them, off
# ignores them; the pod's own addresses and host traffic always pass. The
# policy is changed by restarting the agent with a new config, live.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
SINK=$RN_BUILD/tools/rn_udpsink

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2 fd77::2)
rn_in_node ip addr add 10.77.0.1/24 dev roce0
rn_agent_config "$RN_TMP/enforce.json" enforce
check "agent attaches in enforce mode" rn_agent_start "$RN_TMP/enforce.json"
check_eq "policy shown" "$(rn_stat '.masters[0].policy')" enforce
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2 --ip fd77::2
rn_in a ping -c1 -W2 10.77.0.100 >/dev/null

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

check_eq "enforce: own source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --count 50)" 50
check_eq "enforce: spoofed source dropped" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 40)" 0
check_eq "enforce: drops counted by reason" "$(rn_pod_stat t/a .drops.spoofed_source)" 40
check_eq "enforce: violations counted" "$(rn_pod_stat t/a .policy_violations.spoofed_source)" 40
check_eq "enforce: dropped packets are not tx" "$(rn_pod_stat t/a .tx.roce.packets)" 50
check_eq "enforce: another pod's rail address is spoofing too" \
	"$(received 4792 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.3 --port 4792 --plain --count 5)" 0
check_eq "enforce: own IPv6 source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst fd77::100 --count 7)" 7
check_eq "enforce: spoofed IPv6 source dropped" \
	"$(received 4791 rn_in a "$GEN" --dst fd77::100 --src fd77::66 --count 9)" 0
check "enforce: IPv6 neighbour discovery still works" rn_in a ping -q -6 -c1 -W2 fd77::100
check_eq "enforce: host traffic from the master passes with any source" \
	"$(received 4791 rn_in_node "$GEN" --dst 10.77.0.100 --src 10.77.0.99 --count 11)" 11

rn_agent_stop
rn_agent_config "$RN_TMP/monitor.json" monitor
check "restart in monitor mode" rn_agent_start "$RN_TMP/monitor.json"
check_eq "policy switched" "$(rn_stat '.masters[0].policy')" monitor
v0=$(rn_pod_stat t/a .policy_violations.spoofed_source)
check_eq "monitor: spoofed source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 30)" 30
check_eq "monitor: violations counted" "$(( $(rn_pod_stat t/a .policy_violations.spoofed_source) - v0 ))" 30
check_eq "monitor: nothing more dropped (40 + 5 + 9 from enforce)" "$(rn_pod_stat t/a .drops.spoofed_source)" 54

rn_agent_stop
rn_agent_config "$RN_TMP/off.json" off
rn_agent_start "$RN_TMP/off.json"
v0=$(rn_pod_stat t/a .policy_violations.spoofed_source)
check_eq "off: spoofed source delivered" \
	"$(received 4791 rn_in a "$GEN" --dst 10.77.0.100 --src 10.77.0.66 --count 20)" 20
check_eq "off: nothing counted as a violation" \
	"$(( $(rn_pod_stat t/a .policy_violations.spoofed_source) - v0 ))" 0
tap_done
