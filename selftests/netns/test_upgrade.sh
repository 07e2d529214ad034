#!/bin/bash
# Upgrades: a new rdmanetd (build/variant: the same sources with programs
# whose code, hence kernel tag, differs) starts where the old one stopped,
# under traffic both ways, and replaces every program in place: tcx by link
# update, clsact by filter replace, XDP in the libxdp dispatcher. Zero
# loss, counters carried on exactly (no packet counted twice or missed),
# every packet of a registered pod marked, the new build's programs
# attached (new ids and tags, same tcx links), one XDP program left. The
# same build restarted replaces nothing; the old build started again
# downgrades the same way. A pin of another map layout makes the agent
# refuse to start, with one line, touching nothing.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
GEN=$RN_BUILD/tools/rn_udpgen
SINK=$RN_BUILD/tools/rn_udpsink
OLD=$RN_BUILD/bin/rdmanetd
NEW=$RN_BUILD/variant/bin/rdmanetd
N=20000

[ -x "$NEW" ] || { tap_fail "$NEW is built (make)"; tap_done; }
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
MAC_B=$(rn_pod_up b 10.77.0.3)

# the programs on roce0 as "name:id:tag" (tc hooks, and XDP inside the
# libxdp dispatcher), and the pinned tcx link ids
progs() {
	local ids
	ids="$(rn_in_node bpftool -j net show dev roce0 | jq -r '[.[0].tc[]? | .prog_id // .id] | .[]')"
	ids+=" $(rn_in_node xdp-loader status roce0 2>/dev/null | awk '$2 == "rn_xdp_rx" { print $4 }')"
	for id in $ids; do
		bpftool -j prog show id "$id" | jq -r '"\(.name):\(.id):\(.tag)"'
	done | sort | tr '\n' ' '
}
tags() { tr ' ' '\n' <<<"$1" | awk -F: 'NF { print $1 ":" $3 }' | sort | tr '\n' ' '; }
links() { for l in "$RN_PIN"/links/*; do [ -e "$l" ] && bpftool -j link show pinned "$l" | jq .id; done | sort | tr '\n' ,; }
upgraded_lines() { grep -c "upgraded in place" "$RN_TMP/agent.log"; }

# swap LABEL FROM TO CONFIG: the agent FROM is running; replace it by TO
# under a stream from pod a to the peer (tx, marking) and one from the
# peer to pod b (rx)
swap() {
	local label=$1 from=$2 to=$3 cfg=$4 before_tx before_rx pcap
	pcap=$RN_TMP/$(tr -c 'a-z0-9\n' _ <<<"$label").pcap
	before_tx=$(rn_pod_stat t/a .tx.roce.packets)
	before_rx=$(rn_pod_stat t/b .rx.roce.packets)
	rm -f "$RN_TMP"/ready.*
	nsenter --net=/run/netns/"$RN_PEER" "$SINK" --port 4791 --idle-ms 2500 --max-s 60 \
		--ready "$RN_TMP/ready.peer" >"$RN_TMP/sink.peer" &
	local sp=$!
	rn_in b "$SINK" --port 4791 --idle-ms 2500 --max-s 60 --ready "$RN_TMP/ready.b" \
		>"$RN_TMP/sink.b" &
	local sb=$!
	for _ in $(seq 50); do [ -e "$RN_TMP/ready.peer" ] && [ -e "$RN_TMP/ready.b" ] && break; sleep 0.1; done
	rn_capture_start "$pcap" "udp port 4791 and src host 10.77.0.2"
	rn_in a "$GEN" --dst 10.77.0.100 --count $N --size 200 --interval-us 500 &
	local ga=$!
	nsenter --net=/run/netns/"$RN_PEER" "$GEN" --dst 10.77.0.3 --count $N --size 200 \
		--interval-us 500 &
	local gb=$!
	sleep 0.5
	check "$label: old agent stops" rn_agent_stop
	local n0 n1
	n0=$(upgraded_lines)
	RN_AGENT_BIN=$to check "$label: new agent starts" rn_agent_start "$cfg"
	n1=$(upgraded_lines)
	local mid
	mid=$(rn_pod_stat t/a .tx.roce.packets)
	check "$label: replaced mid-stream ($((mid - before_tx)) of $N sent)" \
		test "$mid" -lt $((before_tx + N))
	tap_diag "$label: $((n1 - n0)) program(s) upgraded in place:"
	grep "upgraded in place" "$RN_TMP/agent.log" | tail -n $((n1 - n0)) | sed 's/^/#   /'

	wait $ga $gb $sp $sb
	rn_capture_stop
	check_eq "$label: zero loss pod a -> peer" "$(cat "$RN_TMP/sink.peer")" $N
	check_eq "$label: zero loss peer -> pod b" "$(cat "$RN_TMP/sink.b")" $N
	check_eq "$label: pod a tx counted exactly across the swap" \
		"$(rn_pod_stat t/a .tx.roce.packets)" $((before_tx + N))
	check_eq "$label: pod b rx counted exactly across the swap" \
		"$(rn_pod_stat t/b .rx.roce.packets)" $((before_rx + N))
	check_eq "$label: every packet of pod a marked (capture)" "$(rn_capture_marked "$pcap" $N)" ok
	UPGRADED=$((n1 - n0))
}

# run TC_MODE XDP_MODE NPROGS: old build -> new -> new again -> old
run() {
	local tcm=$1 xdpm=$2 nprogs=$3 cfg=$RN_TMP/$1-$2.json p_old p_new l_old
	rn_agent_config "$cfg" monitor "\"tc_mode\": \"$tcm\", \"xdp_mode\": \"$xdpm\""
	RN_AGENT_BIN=$OLD check "$tcm/$xdpm: old build attaches" rn_agent_start "$cfg"
	rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
		--mac "$MAC_A" --ip 10.77.0.2
	rn_ctl pod add --namespace t --pod b --container-id cb --ifname eth1 --master roce0 \
		--mac "$MAC_B" --ip 10.77.0.3
	rn_in a ping -c1 -W2 10.77.0.100 >/dev/null
	rn_in b ping -c1 -W2 10.77.0.100 >/dev/null
	check_eq "$tcm/$xdpm: tc $tcm" "$(rn_stat '.masters[0].tc')" "$tcm"
	p_old=$(progs) l_old=$(links)
	tap_diag "$tcm/$xdpm: old build: $p_old links $l_old"
	check_eq "$tcm/$xdpm: $nprogs programs attached" "$(wc -w <<<"$p_old")" "$nprogs"

	swap "$tcm/$xdpm: upgrade" "$OLD" "$NEW" "$cfg"
	check_eq "$tcm/$xdpm: upgrade: every program replaced" "$UPGRADED" "$nprogs"
	p_new=$(progs)
	tap_diag "$tcm/$xdpm: new build: $p_new links $(links)"
	check_eq "$tcm/$xdpm: upgrade: still $nprogs programs (no old one left)" \
		"$(wc -w <<<"$p_new")" "$nprogs"
	check "$tcm/$xdpm: upgrade: every tag changed" \
		test -z "$(comm -12 <(tags "$p_old" | tr ' ' '\n') <(tags "$p_new" | tr ' ' '\n') | grep .)"
	check_eq "$tcm/$xdpm: upgrade: the same tcx links, updated" "$(links)" "$l_old"

	rn_agent_stop
	RN_AGENT_BIN=$NEW check "$tcm/$xdpm: new build restarted" rn_agent_start "$cfg"
	check_eq "$tcm/$xdpm: same build: nothing replaced" "$(progs)" "$p_new"

	swap "$tcm/$xdpm: downgrade" "$NEW" "$OLD" "$cfg"
	check_eq "$tcm/$xdpm: downgrade: every program replaced" "$UPGRADED" "$nprogs"
	check_eq "$tcm/$xdpm: downgrade: the old build's tags again" "$(tags "$(progs)")" "$(tags "$p_old")"
	rn_agent_stop
	check "$tcm/$xdpm: uninstall" rn_in_node "$OLD" --pin-dir "$RN_PIN" --uninstall -q
	check_eq "$tcm/$xdpm: nothing left on roce0" \
		"$(rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].xdp[]?, .[0].tc[]?] | length')" 0
}

# tcx + XDP (native and generic: in libxdp's dispatcher where the kernel
# allows freplace, else alone, replaced with XDP_FLAGS_REPLACE); clsact
# with rx counted in tc ingress (auto leaves XDP off on a veth)
run tcx native 3
run clsact auto 2
run clsact skb 3

# --- another map layout: refused, nothing touched ---------------------------------
cfg=$RN_TMP/layout.json
rn_agent_config "$cfg" monitor '"tc_mode": "tcx"'
RN_AGENT_BIN=$OLD rn_agent_start "$cfg"
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
rn_agent_stop
before=$(progs)
# refused WHICH MAP_RE: this build's agent meets a pin dir of another
# layout (WHICH: newer or older): one line naming the map and what to do, a
# non-zero exit, no program touched
refused() {
	local out rc
	out=$(rn_in_node "$NEW" --config "$cfg" --once 2>&1); rc=$?
	check "$1 layout: agent refuses (exit $rc)" test $rc -ne 0
	check_eq "$1 layout: one line" "$(wc -l <<<"$out")" 1
	check "$1 layout: it names the map and what to do" \
		grep -q "$2 is a map of another layout.*--uninstall" <<<"$out"
	check_eq "$1 layout: programs untouched" "$(progs)" "$before"
}
# what an agent of the next layout version would have pinned beside ours
bpftool map create "$RN_PIN/rn_pods_v2" type hash key 8 value 4 entries 1 name rn_pods_v2
refused newer "rn_pods_v2"
rn_in a "$GEN" --dst 10.77.0.100 --count 100 --size 200
check_eq "newer layout: the data path still counts" "$(rn_pod_stat t/a .tx.roce.packets)" 100
rm -f "$RN_PIN/rn_pods_v2"

# an older layout's agent attached everything: its pins are all _v0 (what
# this build's pins were called before a bump), its programs use them
for f in "$RN_PIN"/rn_*_v1; do mv "$f" "${f%_v1}_v0"; done
refused older "rn_[a-z_]*_v0"
out=$(rn_ctl stats 2>&1); rc=$?
check "older layout: the CLI (and CNI) of this build say the same in one line" \
	test $rc -ne 0 -a "$(wc -l <<<"$out")" = 1 -a -n "$(grep "_v0 is a map of another layout" <<<"$out")"
check "older layout: this build's --uninstall" rn_in_node "$NEW" --pin-dir "$RN_PIN" --uninstall -q
check_eq "older layout: its programs are gone from roce0" \
	"$(rn_in_node bpftool -j net show dev roce0 | jq -c '[.[0].xdp[]?, .[0].tc[]?] | length')" 0
check "older layout: pin dir removed" test ! -e "$RN_PIN"
RN_AGENT_BIN=$NEW check "then the new build starts" rn_agent_start "$cfg"
rn_ctl pod add --namespace t --pod a --container-id ca --ifname eth1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
rn_in a "$GEN" --dst 10.77.0.100 --count 100 --size 200
check_eq "the pod registered again is counted from zero" "$(rn_pod_stat t/a .tx.roce.packets)" 100
rn_agent_stop
tap_done
