#!/bin/bash
# The Prometheus textfile: what rdmanetd writes periodically and
# `rdmanetctl export` writes once passes `promtool check metrics`, carries
# no timestamps, agrees with `rdmanetctl stats`, and a real node_exporter
# with the textfile collector serves it without a scrape error.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
NE_PID=
cleanup() { [ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null; rn_topo_down; }
trap cleanup EXIT
command -v promtool >/dev/null || { echo "not ok 1 - promtool missing (make deps)"; exit 1; }

rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
MAC_B=$(rn_pod_up b 10.77.0.3)
rn_agent_config "$RN_TMP/config.json" monitor
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
rn_ctl pod add --namespace team-1 --pod trainer-0 --container-id ca --ifname net1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2
# label values must be escaped, whatever a hand-registered name holds
rn_ctl pod add --namespace 'odd"ns' --pod 'back\slash' --container-id cb --ifname net1 \
	--master roce0 --mac "$MAC_B" --ip 10.77.0.3
rn_in a "$RN_BUILD/tools/rn_udpgen" --dst 10.77.0.100 --count 123 --size 300
rn_in a "$RN_BUILD/tools/rn_udpgen" --dst 10.77.0.100 --count 45 --size 64 --opcode 0x81

DIR=$RN_TMP/export
mkdir -p "$DIR"
check "rdmanetctl export --textfile" rn_ctl export --textfile "$DIR"
F=$DIR/rdmanet.prom
check "promtool check metrics: clean" sh -c "promtool check metrics < '$F' > '$RN_TMP/promtool.out' 2>&1"
sed 's/^/# promtool: /' "$RN_TMP/promtool.out"
check_eq "no temporary file left behind" "$(ls -A "$DIR" | grep -vc '^rdmanet.prom$')" 0
# what a writer killed mid-write leaves: swept by the next write once old,
# left while it may still be another writer's (and other names alone)
for f in .rdmanet.prom.old123 .rdmanet.prom.new456 .other.prom.old789; do : >"$DIR/$f"; done
touch -d '-2 minutes' "$DIR/.rdmanet.prom.old123" "$DIR/.other.prom.old789"
rn_ctl export --textfile "$DIR"
check_eq "a killed writer's temporary file is swept once a minute old, a young one and other names left" \
	"$(ls -A "$DIR" | sort | xargs)" ".other.prom.old789 .rdmanet.prom.new456 rdmanet.prom"
rm -f "$DIR"/.rdmanet.prom.new456 "$DIR"/.other.prom.old789
check_eq "no sample carries a timestamp" \
	"$(grep -v '^#' "$F" | awk '{ sub(/^[^{ ]+(\{.*\})?/, ""); if (NF != 1) n++ } END { print n + 0 }')" 0
sample() { grep -F "$1" "$F" | grep -F "$2" | awk '{print $NF}'; }
VERSION=$(make -s -C "$RN_SRC" print-version)
check_eq "rdmanet_build_info names this build's version and commit" \
	"$(grep -c "^rdmanet_build_info{version=\"$VERSION\",commit=\"$("$RN_BUILD/bin/rdmanetd" --version | sed -n 's/.*(commit \(.*\))$/\1/p')\"} 1$" "$F")" 1
check_eq "pod tx roce packets agree with stats" \
	"$(sample 'rdmanet_pod_packets_total{namespace="team-1",pod="trainer-0",interface="net1",master="roce0",container_id="ca",direction="tx",class="roce"}' '')" \
	"$(rn_pod_stat team-1/trainer-0 .tx.roce.packets)"
check_eq "pod tx cnp bytes agree with stats" \
	"$(sample 'rdmanet_pod_bytes_total{namespace="team-1",pod="trainer-0",interface="net1",master="roce0",container_id="ca",direction="tx",class="cnp"}' '')" \
	"$(rn_pod_stat team-1/trainer-0 .tx.cnp.bytes)"
check_eq "marked packets" "$(sample 'rdmanet_pod_marked_packets_total{namespace="team-1"' '')" 168
check "label values escaped" grep -qF 'namespace="odd\"ns",pod="back\\slash"' "$F"
check_eq "master info" "$(sample "rdmanet_master_info{master=\"roce0\",xdp=\"$(rn_stat '.masters[0].xdp')\",tc=\"tcx\",policy=\"monitor\"}" '')" 1
check_eq "pods registered" "$(awk '/^rdmanet_pods_registered /{print $2}' "$F")" 2

# the agent's own periodic export
for _ in $(seq 50); do
	grep -q 'rdmanet_pods_registered 2' "$RN_TMP/textfile/rdmanet.prom" 2>/dev/null && break
	sleep 0.1
done
check "agent writes the textfile periodically" grep -q 'rdmanet_pods_registered 2' \
	"$RN_TMP/textfile/rdmanet.prom"
check "agent's textfile is promtool-clean" sh -c "promtool check metrics < '$RN_TMP/textfile/rdmanet.prom'"

# a real node_exporter with the textfile collector
NE=$(command -v prometheus-node-exporter || command -v node_exporter)
PORT=$(( 20000 + RANDOM % 20000 ))
"$NE" --web.listen-address=127.0.0.1:$PORT --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$DIR" >"$RN_TMP/ne.log" 2>&1 &
NE_PID=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$RN_TMP/scrape.txt" && break
	sleep 0.1
done
check_eq "node_exporter: no textfile scrape error" \
	"$(awk '/^node_textfile_scrape_error /{print $2}' "$RN_TMP/scrape.txt")" 0
check "node_exporter serves rdmanet pod counters" grep -qF \
	'rdmanet_pod_packets_total{class="roce",container_id="ca",direction="tx",interface="net1",master="roce0",namespace="team-1",pod="trainer-0"} 123' \
	"$RN_TMP/scrape.txt"
check "node_exporter serves the escaped labels" grep -qF 'namespace="odd\"ns"' "$RN_TMP/scrape.txt"
# two sandboxes of one pod (the old one not yet deleted) stay two series
rn_ctl pod add --namespace team-1 --pod trainer-0 --container-id cc --ifname net1 --master roce0 \
	--mac 02:cc:00:00:00:01 --ip 10.77.0.9
rn_ctl export --textfile "$DIR"
sleep 0.2
curl -sf "http://127.0.0.1:$PORT/metrics" >"$RN_TMP/scrape2.txt"
check_eq "two sandboxes of one pod: still no scrape error" \
	"$(awk '/^node_textfile_scrape_error /{print $2}' "$RN_TMP/scrape2.txt")" 0
check_eq "two sandboxes of one pod: two series" \
	"$(grep -c '^rdmanet_pod_marked_packets_total{.*pod="trainer-0"' "$RN_TMP/scrape2.txt")" 2
tap_done
