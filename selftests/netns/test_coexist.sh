#!/bin/bash
# rdmanet shares the master's tc hooks with other tc users (Cilium, Calico):
# their programs keep running while rdmanet is attached, wherever they sit
# in the chain. Foreign programs that count and continue are attached as
# tcx programs (before and after rdmanet's) and as clsact filters (a pref
# below and above rdmanet's), on ingress and egress; with rdmanet off, in
# tcx mode, in clsact mode, and after --uninstall, every one of them counts
# every datagram sent through the master.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
FPIN=/sys/fs/bpf/${RN_PFX}-foreign
cleanup() { rn_topo_down; rm -rf "$FPIN"; }
trap cleanup EXIT
GEN=$RN_BUILD/tools/rn_udpgen
OBJ=$RN_BUILD/selftests/netns/bpf/foreign_count.bpf.o
N=40
PLACES=(tcx_first_in tcx_first_eg tcx_last_in tcx_last_eg cls_first_in cls_first_eg cls_last_in cls_last_eg)

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
check "load the foreign programs" bpftool prog loadall "$OBJ" "$FPIN" pinmaps "$FPIN/maps"

counts() { rn_map_u64s "$FPIN/maps/foreign_counts"; }
tcx_attach() { rn_in_node bpftool net attach "tcx_$2" pinned "$FPIN/$1" dev roce0; }
cls_attach() {	# cls_attach PROG DIR PREF
	rn_in_node tc filter add dev roce0 "$2" pref "$3" handle 0x1 bpf \
		object-pinned "$FPIN/$1" direct-action
}
# send N datagrams pod -> peer (master egress) and peer -> pod (master ingress)
traffic() {
	rn_in a "$GEN" --dst 10.77.0.100 --count $N --size 120 --interval-us 200 &&
		rn_in peer "$GEN" --dst 10.77.0.2 --count $N --size 120 --interval-us 200
}
# phase NAME ATTACHED...: send, then every attached counter moved by exactly N
phase() {
	local name=$1 before after want i got ok
	shift
	before=($(counts))
	[ ${#before[@]} = ${#PLACES[@]} ] || { tap_fail "$name: read the foreign counters"; return; }
	traffic || { tap_fail "$name: send traffic"; return; }
	for _ in $(seq 50); do	# ingress is counted in softirq: wait, bounded
		after=($(counts))
		ok=1
		for p in "$@"; do
			for i in "${!PLACES[@]}"; do
				[ "${PLACES[$i]}" = "$p" ] && [ $((after[i] - before[i])) -lt $N ] && ok=0
			done
		done
		[ $ok = 1 ] && break
		sleep 0.1
	done
	for p in "$@"; do
		for i in "${!PLACES[@]}"; do
			[ "${PLACES[$i]}" = "$p" ] || continue
			got=$((after[i] - before[i]))
			check_eq "$name: foreign $p counted every datagram" "$got" $N
		done
	done
}
rn_in a ping -c1 -W2 10.77.0.100 >/dev/null	# neighbours resolved before counting

# --- before rdmanet: the foreign programs alone -----------------------------
rn_in_node tc qdisc add dev roce0 clsact
for d in in eg; do
	dir=$([ $d = in ] && echo ingress || echo egress)
	check "attach foreign tcx_first_$d" tcx_attach "tcx_first_$d" "$dir"
	check "attach foreign cls_first_$d (pref 10)" cls_attach "cls_first_$d" "$dir" 10
	check "attach foreign cls_last_$d (pref 30000)" cls_attach "cls_last_$d" "$dir" 30000
done
phase "no rdmanet" tcx_first_in tcx_first_eg cls_first_in cls_first_eg cls_last_in cls_last_eg

# --- rdmanet in tcx mode: a tcx program attached after ours still runs, and
#     so do the clsact filters, which run only when the tcx chain continues
rn_agent_config "$RN_TMP/tcx.json" enforce '"tc_mode": "tcx"'
check "rdmanet attaches (tcx)" rn_agent_start "$RN_TMP/tcx.json"
check_eq "tc state tcx" "$(rn_stat '.masters[0].tc')" tcx
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
for d in in eg; do
	dir=$([ $d = in ] && echo ingress || echo egress)
	check "attach foreign tcx_last_$d after rdmanet" tcx_attach "tcx_last_$d" "$dir"
done
order=$(rn_in_node bpftool -j net show dev roce0 | jq -r '[.[0].tc[] | select(.kind == "tcx/egress") | .name] | join(",")')
check_eq "tcx egress order: foreign, rdmanet, foreign" "$order" "tcx_first_eg,rn_tc_egress,tcx_last_eg"
phase "rdmanet tcx" "${PLACES[@]}"
check_eq "rdmanet tcx: pod tx counted" "$(rn_pod_stat t/a .tx.roce.packets)" $N
check_eq "rdmanet tcx: pod rx counted" "$(rn_pod_stat t/a .rx.roce.packets)" $N
rn_agent_stop
check "rdmanet uninstall (tcx)" rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
phase "after rdmanet tcx" "${PLACES[@]}"

# --- rdmanet in clsact mode: its filter sits between pref 10 and 30000 ------
rn_agent_config "$RN_TMP/clsact.json" enforce '"tc_mode": "clsact"'
check "rdmanet attaches (clsact)" rn_agent_start "$RN_TMP/clsact.json"
check_eq "tc state clsact" "$(rn_stat '.masters[0].tc')" clsact
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
prefs=$(rn_in_node tc -j filter show dev roce0 egress | jq -r '[.[] | select(.options.handle != null) | .pref] | unique | join(",")')
check_eq "clsact egress prefs: foreign, rdmanet, foreign" "$prefs" "10,20050,30000"
phase "rdmanet clsact" "${PLACES[@]}"
check_eq "rdmanet clsact: pod tx counted" "$(rn_pod_stat t/a .tx.roce.packets)" $N
check_eq "rdmanet clsact: pod rx counted" "$(rn_pod_stat t/a .rx.roce.packets)" $N
rn_agent_stop
check "rdmanet uninstall (clsact)" rn_in_node "$RN_BUILD/bin/rdmanetd" --pin-dir "$RN_PIN" --uninstall -q
check_eq "foreign filters kept" \
	"$(rn_in_node tc -j filter show dev roce0 egress | jq '[.[] | select(.options.handle != null)] | length')" 2
phase "after rdmanet clsact" "${PLACES[@]}"
tap_done
