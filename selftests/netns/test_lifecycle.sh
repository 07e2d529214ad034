#!/bin/bash
# The agent's life: restarts under continuous traffic (with XDP through
# libxdp, and without) lose no packet and no count and reattach nothing; a second agent is refused; SIGTERM leaves the
# data path running; --uninstall leaves nothing behind; the clsact fallback
# never deletes a qdisc or filter it did not create.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
SINK=$RN_BUILD/tools/rn_udpsink
N=20000

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)

attach_ids() {
	echo "xdp=$(rn_in_node ip -j link show roce0 | jq -c '.[0].xdp // "none" | if type == "object" then [.mode, .prog.id, ([.attached[]?.prog.id] | sort)] else . end')" \
	     "tc=$(rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].tc[]? | .prog_id] | sort')" \
	     "links=$(for l in "$RN_PIN"/links/*; do bpftool -j link show pinned "$l" | jq .id; done | sort | tr '\n' ,)"
}

# restarts XDP_MODE: two agent restarts in the middle of a continuous stream.
# "auto" leaves XDP off on a veth master (tc ingress counts rx); "native"
# attaches XDP through libxdp, whose dispatcher must be found, not replaced.
restarts() {
	local mode=$1 ids_before
	rn_agent_config "$RN_TMP/config.json" monitor "\"xdp_mode\": \"$mode\""
	check "$mode: agent attaches" rn_agent_start "$RN_TMP/config.json"
	rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
		--mac "$MAC_A" --ip 10.77.0.2
	rn_in a ping -c1 -W2 10.77.0.100 >/dev/null
	ids_before=$(attach_ids)
	tap_diag "$mode: attachments: $ids_before"
	if [ "$mode" = native ]; then
		check_eq "$mode: XDP attached" "$(rn_stat '.masters[0].xdp')" native
		check "$mode: an XDP program is on roce0" test "$(rn_in_node ip -j link show roce0 | jq -r '.[0].xdp.prog.id // .[0].xdp.attached[0].prog.id // 0')" -gt 0
	fi
	nsenter --net=/run/netns/"$RN_PEER" "$SINK" --port 4791 --idle-ms 2500 --max-s 60 \
		--ready "$RN_TMP/ready.$mode" >"$RN_TMP/sink.out" &
	SINK_PID=$!
	for _ in $(seq 50); do [ -e "$RN_TMP/ready.$mode" ] && break; sleep 0.1; done
	rn_capture_start "$RN_TMP/restart.pcap" "udp port 4791"
	rn_in a "$GEN" --dst 10.77.0.100 --count $N --size 200 --interval-us 150 &
	GEN_PID=$!
	sleep 0.5
	check "$mode: SIGTERM: agent exits cleanly" rn_agent_stop
	tx1=$(rn_pod_stat t/a .tx.roce.packets); sleep 0.3; tx2=$(rn_pod_stat t/a .tx.roce.packets)
	check "$mode: agent down: counting goes on ($tx1 -> $tx2)" test "$tx2" -gt "$tx1"
	check "$mode: restart 1" rn_agent_start "$RN_TMP/config.json"
	sleep 0.5
	rn_agent_stop
	check "$mode: restart 2" rn_agent_start "$RN_TMP/config.json"
	wait $GEN_PID
	wait $SINK_PID
	rn_capture_stop
	check_eq "$mode: zero loss across restarts: datagrams received" "$(cat "$RN_TMP/sink.out")" $N
	check_eq "$mode: no count lost or reset: pod tx roce packets" "$(rn_pod_stat t/a .tx.roce.packets)" $N
	check_eq "$mode: every packet marked across restarts (capture)" \
		"$(rn_capture_marked "$RN_TMP/restart.pcap" $N)" ok
	check_eq "$mode: restarts reattached nothing (same program and link ids)" "$(attach_ids)" "$ids_before"
}

restarts native
rn_agent_stop
check "native: uninstall" rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
check_eq "native: no XDP program left on roce0" "$(rn_in_node ip -j link show roce0 | jq -r '.[0].xdp // "none"')" none
restarts auto

# --- one agent per pin dir --------------------------------------------------------
out=$(rn_in_node "$RN_BUILD/bin/rdmanetd" --config "$RN_TMP/config.json" --once 2>&1)
rc=$?
check "second agent refused (exit $rc)" test $rc -ne 0
check "second agent says why" grep -q "another rdmanetd is running" <<<"$out"

# --- uninstall leaves nothing -----------------------------------------------------
rn_agent_stop
# pins an older build would have left: another layout version of a map
bpftool map create "$RN_PIN/rn_pods_v0" type array key 4 value 4 entries 1 name rn_pods_v0
check "uninstall" rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
check "pin dir removed" test ! -e "$RN_PIN"
check_eq "no XDP program on roce0" "$(rn_in_node ip -j link show roce0 | jq -r '.[0].xdp // "none"')" none
check_eq "no tcx link on roce0" "$(rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].tc[]?] | length')" 0
check_eq "no qdisc added" "$(rn_in_node tc -j qdisc show dev roce0 | jq '[.[] | select(.kind == "clsact")] | length')" 0
out=$(rn_ctl stats 2>&1); rc=$?
check "stats after uninstall fails with one clear line" test $rc -ne 0 -a "$(wc -l <<<"$out")" = 1

# --- clsact fallback: someone else's qdisc and filter survive us ------------------
rn_in_node tc qdisc add dev roce0 clsact
rn_in_node tc filter add dev roce0 egress prio 10 bpf bytecode '1,6 0 0 0,'
rn_agent_config "$RN_TMP/clsact.json" monitor '"tc_mode": "clsact"'
check "agent attaches with clsact" rn_agent_start "$RN_TMP/clsact.json"
check_eq "tc state clsact" "$(rn_stat '.masters[0].tc')" clsact
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
rn_in a "$GEN" --dst 10.77.0.100 --count 100 --size 200
check_eq "clsact: traffic counted" "$(rn_pod_stat t/a .tx.roce.packets)" 100
rn_agent_stop
rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
check_eq "clsact: foreign filter kept" \
	"$(rn_in_node tc -j filter show dev roce0 egress | jq '[.[] | select(.pref == 10 and .options.bytecode != null)] | length')" 1
check_eq "clsact: only our filters removed" \
	"$(rn_in_node tc -j filter show dev roce0 egress | jq '[.[] | select(.pref != 10)] | length')" 0
check_eq "clsact: foreign qdisc kept" "$(rn_in_node tc -j qdisc show dev roce0 | jq '[.[] | select(.kind == "clsact")] | length')" 1
rn_in_node tc qdisc del dev roce0 clsact
check "agent attaches with a clsact it creates" rn_agent_start "$RN_TMP/clsact.json"
rn_agent_stop
rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
check_eq "clsact: our own qdisc removed" "$(rn_in_node tc -j qdisc show dev roce0 | jq '[.[] | select(.kind == "clsact")] | length')" 0
tap_done
