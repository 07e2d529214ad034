#!/bin/bash
# Registration churn under traffic: pod A is re-registered over and over
# (each time its index entry is zeroed and written again) while A and B
# send, and other interfaces come and go. A packet of A that races the
# rewrite may count as unknown, never as another pod's: B's counters are
# exactly what B sent, the silent pod S in slot 0 (where a torn, zeroed slot
# field would point) counts nothing, and A's count plus the master's
# unknown RoCE count is exactly what A sent.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
N=${RN_CHURN_PACKETS:-20000}

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
MAC_B=$(rn_pod_up b 10.77.0.3)
rn_agent_config "$RN_TMP/config.json" monitor '"xdp_mode": "native"'
check "agent attaches" rn_agent_start "$RN_TMP/config.json" || tap_done
# S first: slot 0
check "register S (silent, slot 0)" rn_ctl pod add --namespace t --pod s --container-id cs \
	--ifname eth1 --master roce0 --mac 02:cc:00:00:00:01 --ip 10.77.0.9
reg_a() { rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2 "$@"; }
check "register A" reg_a
check "register B" rn_ctl pod add --namespace t --pod b --container-id cb --ifname eth1 \
	--master roce0 --mac "$MAC_B" --ip 10.77.0.3
rn_in a ping -c1 -W2 10.77.0.100 >/dev/null
rn_in b ping -c1 -W2 10.77.0.100 >/dev/null
unknown0=$(rn_stat '.masters[0].unknown_by_class.tx.roce.packets // 0')

rn_in a "$GEN" --dst 10.77.0.100 --count "$N" --size 120 --interval-us 50 &
GA=$!
rn_in b "$GEN" --dst 10.77.0.100 --count "$N" --size 120 --interval-us 50 &
GB=$!
rounds=0
while kill -0 $GA 2>/dev/null || kill -0 $GB 2>/dev/null; do
	# A's keys withdrawn and published again (same slot, counters continue)
	reg_a --dscp $((rounds % 2 ? 26 : 34)) >/dev/null
	# another interface takes a slot and leaves
	rn_ctl pod add --namespace t --pod x --container-id "cx$rounds" --ifname eth1 \
		--master roce0 --mac 02:cc:00:00:01:01 --ip 10.77.0.50 >/dev/null
	rn_ctl pod del --container-id "cx$rounds" --ifname eth1
	rounds=$((rounds + 1))
done
wait $GA $GB
tap_diag "$rounds churn rounds during the stream"
check "A was re-registered under traffic ($rounds times)" test "$rounds" -ge 1
tx() { rn_pod_stat "$1" .tx.roce.packets; }
check_eq "B counted exactly what B sent" "$(tx t/b)" "$N"
check_eq "S (slot 0) counted nothing" \
	"$(rn_ctl stats -j --pod t/s | jq '[.pods[0] | (.tx, .rx, .drops) | .. | numbers] | add')" 0
unknown1=$(rn_stat '.masters[0].unknown_by_class.tx.roce.packets // 0')
tap_diag "A: $(tx t/a) counted, $((unknown1 - unknown0)) as unknown while its keys were withdrawn"
check_eq "A counted plus unknown is exactly what A sent" "$(( $(tx t/a) + unknown1 - unknown0 ))" "$N"
tap_done
