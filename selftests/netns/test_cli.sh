#!/bin/bash
# rdmanetctl and rdmanetd on bad input: one clear line on stderr, a
# non-zero exit, and nothing changed. And the good paths of pod add/del/show.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
rn_agent_config "$RN_TMP/config.json" monitor
check "agent attaches" rn_agent_start "$RN_TMP/config.json"

# fails "what" "stderr must contain" CMD... : non-zero, exactly one stderr line
fails() {
	local what=$1 want=$2 err rc
	shift 2
	err=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && grep -qF -- "$want" <<<"$err"; then
		tap_ok "$what"
	else
		tap_fail "$what: rc=$rc stderr=[$err] (want one line containing '$want')"
	fi
}
pods() { rn_ctl pod show -j | jq -c '[.[] | {pod, ifname, mac, ips, dscp}]'; }
add() { rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 "$@"; }

check "register pod a" add --mac "$MAC_A" --ip 10.77.0.2
state=$(pods)
fails "unknown object" 'unknown object "frob"' rn_ctl frob
fails "unknown pod verb" 'unknown verb "bump"' rn_ctl pod bump
fails "bad MAC" '--mac: "zz:00" is not a MAC address' add --mac zz:00 --ip 10.77.0.2
fails "bad IP" '--ip: "10.77.0.300" is not an IP address' add --mac "$MAC_A" --ip 10.77.0.300
fails "DSCP out of range" '--dscp: "64" is not a DSCP value' add --mac "$MAC_A" --dscp 64
fails "unknown master" 'master eth9 is not attached by rdmanetd' \
	rn_ctl pod add --namespace t --pod x --container-id cx --ifname eth1 --master eth9 \
	--mac 02:11:22:33:44:55
fails "missing namespace" '--namespace and --pod are required' \
	rn_ctl pod add --pod x --container-id cx --ifname eth1 --master roce0 --mac 02:11:22:33:44:55
fails "too many IPv4 addresses" 'at most 4 IPv4' rn_ctl pod add --namespace t --pod x \
	--container-id cx --ifname eth1 --master roce0 --mac 02:11:22:33:44:55 --ip 10.1.0.1 \
	--ip 10.1.0.2 --ip 10.1.0.3 --ip 10.1.0.4 --ip 10.1.0.5
fails "MAC of another pod" "MAC already registered on roce0 by t/a" rn_ctl pod add --namespace t \
	--pod x --container-id cx --ifname eth1 --master roce0 --mac "$MAC_A"
fails "unknown option" 'unexpected argument "--frob"' rn_ctl stats --frob
fails "stats of an unknown master" 'master eth9 is not attached' rn_ctl stats --master eth9
fails "stats of a pod that is not registered" 'pod nope/nope is not registered' \
	rn_ctl stats --pod nope/nope
rn_ctl pod bump 2>/dev/null
check_eq "a usage error exits 2" "$?" 2
rn_ctl stats --master eth9 2>/dev/null
check_eq "a runtime failure exits 1" "$?" 1

# the human stats: both rows of a pod carry its name, the headers say
# packets or bytes, ECN CE (rx) and marking (tx) in their own columns
check_eq "stats: the pod's rx and tx rows both name it" \
	"$(rn_ctl stats --pod t/a | awk '$1 == "t/a" { printf "%s,", $4 }')" "rx,tx,"
check_eq "stats: packet headers" "$(rn_ctl stats | head -1 | grep -o 'ROCE_[A-Z]*')" ROCE_PKTS
check_eq "stats -b: byte headers, -b after or before the object" \
	"$(rn_ctl stats -b | head -1 | grep -o 'ROCE_[A-Z]*'),$(rn_ctl -b stats | head -1 | grep -o 'ROCE_[A-Z]*')" \
	"ROCE_BYTES,ROCE_BYTES"
check_eq "stats: ECN_CE on rx, MARKED and DROPS on tx" \
	"$(rn_ctl stats --pod t/a | awk 'NR == 1 { print $(NF-2), $(NF-1), $NF } $1 == "t/a" && $4 == "rx" { print $(NF-1), $NF } $1 == "t/a" && $4 == "tx" { print $(NF-2) }' | tr '\n' ' ')" \
	"ECN_CE MARKED DROPS - - - "
check_eq "stats: the master's rows both name it" \
	"$(rn_ctl stats | awk '$1 == "roce0" { printf "%s,", $6 }')" "rx,tx,"
check_eq "bad input changed nothing" "$(pods)" "$state"

check "re-register the same interface with new IPs and DSCP" add --mac "$MAC_A" --ip 10.77.0.2 \
	--ip 10.77.0.20 --dscp 12
check_eq "still one registration, updated" "$(pods)" \
	'[{"pod":"a","ifname":"eth1","mac":"'"$MAC_A"'","ips":["10.77.0.2","10.77.0.20"],"dscp":12}]'
check "pod del" rn_ctl pod del --container-id ca --ifname eth1
check "pod del again is fine (idempotent)" rn_ctl pod del --container-id ca --ifname eth1
check_eq "no pods left" "$(pods)" "[]"
fails "pod del without an ifname" '--container-id and --ifname are required' \
	rn_ctl pod del --container-id ca

# config errors name the key and change nothing
echo '{"masters":[{"ifname":"roce0","polcy":"enforce"}]}' >"$RN_TMP/bad1.json"
echo '{"masters":[{"ifname":"roce0","policy":"strict"}]}' >"$RN_TMP/bad2.json"
echo '{"qos":{"roce_dscp":99}}' >"$RN_TMP/bad3.json"
echo '{"masters":[' >"$RN_TMP/bad4.json"
fails "config: unknown key named" 'masters[0]: unknown key "polcy"' \
	rn_in_node "$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/bad1.json" --pin-dir "$RN_PIN-x" --once
fails "config: bad enum named" 'masters[0].policy: expected one of off|monitor|enforce' \
	rn_in_node "$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/bad2.json" --pin-dir "$RN_PIN-x" --once
fails "config: out of range" 'qos.roce_dscp: 99 is outside 0..63' \
	rn_ctl -c "$RN_TMP/bad3.json" stats
fails "config: syntax error with position" 'line 2 column 0' rn_ctl -c "$RN_TMP/bad4.json" stats
fails "config: missing file" "$RN_TMP/nope.json" rn_ctl -c "$RN_TMP/nope.json" stats
check "a rejected agent start left no pin dir" test ! -e "$RN_PIN-x"
check_eq "policy unchanged by the rejected configs" "$(rn_stat '.masters[0].policy')" monitor
tap_done
