#!/bin/bash
# The registry at its limits: a re-registration that cannot be published
# (the data path's IP map is full) puts the old registration back, so a
# failed update changes nothing; slots run out with a clear error; freed
# slots are reused with zeroed counters.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
# 16 pod slots, 32 IP-keyed addresses
RN_MAX_PODS=16 rn_agent_config "$RN_TMP/config.json" monitor '"xdp_mode": "native"'
check "agent attaches with 16 pod slots" rn_agent_start "$RN_TMP/config.json"
check_eq "every program loaded against the resized maps (xdp)" "$(rn_stat '.masters[0].xdp')" native
ipk() {	# ipk N IP... : register IP-keyed (ipvlan) interface N
	local n=$1 args=()
	shift
	for ip in "$@"; do args+=(--ip "$ip"); done
	rn_ctl pod add --namespace t --pod "p$n" --container-id "c$n" --ifname eth1 --master roce0 \
		--ip-keyed "${args[@]}"
}
eight() { echo "10.$1.0.1 10.$1.0.2 10.$1.0.3 10.$1.0.4 fd$1::1 fd$1::2 fd$1::3 fd$1::4"; }
# shellcheck disable=SC2046
for n in 1 2 3; do check "p$n with 8 addresses" ipk $n $(eight $n); done
check "a fourth with 4" ipk 4 10.4.0.1 10.4.0.2 fd4::1 fd4::2
check "a fifth with 4: the IP map is full (32)" ipk 5 10.5.0.1 10.5.0.2 fd5::1 fd5::2
entries() { bpftool -j map dump pinned "$RN_PIN/rn_pod_ips_v1" | jq length; }
check_eq "32 IP keys published" "$(entries)" 32
before=$(rn_ctl pod show -j | jq -c '.[] | select(.pod == "p4") | .ips')
# shellcheck disable=SC2046
out=$(ipk 4 $(eight 9) 2>&1)
rc=$?
check "re-registering p4 with 8 addresses fails (map full)" test $rc -ne 0
check "and says why in one line" test "$(wc -l <<<"$out")" = 1
tap_diag "$out"
check_eq "p4 still has its old addresses" \
	"$(rn_ctl pod show -j | jq -c '.[] | select(.pod == "p4") | .ips')" "$before"
check_eq "and its old keys are back in the data path" "$(entries)" 32
check_eq "none of the new addresses leaked in" \
	"$(bpftool -j map dump pinned "$RN_PIN/rn_pod_ips_v1" | jq '[.[] | select(.key[4] == 10 and .key[5] == 9)] | length')" 0

# slots: 16 in all, 5 used; p7 is a real pod that sends, so the slot it
# leaves behind has counters to clear
MAC_A=$(rn_pod_up a 10.77.0.7)
for n in $(seq 6 16); do
	printf -v mac '02:bb:00:00:00:%02x' "$n"
	ip=10.20.0.$n
	[ "$n" = 7 ] && mac=$MAC_A ip=10.77.0.7
	rn_ctl pod add --namespace t --pod "p$n" --container-id "c$n" --ifname eth1 --master roce0 \
		--mac "$mac" --ip "$ip" || tap_fail "register p$n"
done
rn_in a "$RN_BUILD/tools/rn_udpgen" --dst 10.77.0.100 --count 20 --size 120
rn_in peer "$RN_BUILD/tools/rn_udpgen" --dst 10.77.0.7 --count 20 --size 120
all_counts='[.pods[0] | (.tx, .rx, .drops) | .. | numbers] | add'
for _ in $(seq 50); do	# rx is counted in softirq: wait, bounded
	[ "$(rn_pod_stat t/p7 .rx.roce.packets)" -ge 20 ] 2>/dev/null && break
	sleep 0.1
done
check_eq "the slot's previous owner sent and received (tx, rx roce packets)" \
	"$(rn_pod_stat t/p7 .tx.roce.packets) $(rn_pod_stat t/p7 .rx.roce.packets)" "20 20"
check_eq "16 interfaces registered" "$(rn_ctl pod show -j | jq length)" 16
out=$(rn_ctl pod add --namespace t --pod p17 --container-id c17 --ifname eth1 --master roce0 \
	--mac 02:bb:00:00:00:17 --ip 10.20.0.17 2>&1)
check "the 17th interface is refused: all slots in use" grep -q "all 16 pod slots are in use" <<<"$out"
check "delete one" rn_ctl pod del --container-id c7 --ifname eth1
# all 16 slots were in use: p7's is the only one p17 can get
check "its slot is reused" rn_ctl pod add --namespace t --pod p17 --container-id c17 --ifname eth1 \
	--master roce0 --mac 02:bb:00:00:00:17 --ip 10.20.0.17
check_eq "with zeroed counters (every counter of the pod)" "$(rn_ctl stats -j --pod t/p17 | jq "$all_counts")" 0
tap_done
