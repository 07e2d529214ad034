#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# deploy/monitoring: the Prometheus alert rules pass `promtool check rules`,
# the Grafana dashboard is JSON with panels whose every query is valid
# PromQL, and every metric the rules and the dashboard name is one that
# really exists: in the textfile rdmanetd and `rdmanetctl export` write on a
# netns node with pods, IP pools, an RDMA device (the ConnectX-5 SR-IOV
# fixture) and VF resources, or in what node_exporter's textfile collector
# adds to it. A rule naming a metric nobody exports is shown to be caught.
# Also: the per-pod series count deploy/metrics.md states.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
NE_PID=
cleanup() { [ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null; rn_topo_down; }
trap cleanup EXIT
command -v promtool >/dev/null || { echo "not ok 1 - promtool missing (make deps)"; exit 1; }
command -v jq >/dev/null || { echo "not ok 1 - jq missing (make deps)"; exit 1; }

MON=$RN_SRC/deploy/monitoring
RULES=$MON/rdmanet-alerts.yaml
DASH=$MON/rdmanet-dashboard.json

# --- the rules -------------------------------------------------------------
check "promtool check rules: $(basename "$RULES")" \
	sh -c "promtool check rules '$RULES' >'$RN_TMP/rules.out' 2>&1"
sed 's/^/# promtool: /' "$RN_TMP/rules.out"
# the metric names are read from the expr: lines, so every rule must have
# its expr on one line: as many expr: lines as promtool found rules
n_rules=$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$RN_TMP/rules.out")
sed -n 's/^ *expr: *//p' "$RULES" >"$RN_TMP/rule-exprs"
check_eq "every rule's expr on one line (expr: lines = rules)" "$(wc -l <"$RN_TMP/rule-exprs")" "${n_rules:-none}"

# --- the dashboard ---------------------------------------------------------
check "dashboard is JSON" sh -c "jq -e . '$DASH' >/dev/null"
check_eq "dashboard has panels" "$(jq '[.panels[] | select(.type != "row")] | length > 0' "$DASH")" true
check_eq "every panel has a query" \
	"$(jq '[.panels[] | select(.type != "row") | select(([.targets[]?.expr] | length) == 0)] | length' "$DASH")" 0
# Grafana's variables, as Grafana would substitute them
jq -r '.. | objects | .expr? // empty' "$DASH" |
	sed 's/\$__rate_interval/5m/g; s/\$instance/.*/g' >"$RN_TMP/dash-exprs"
{
	echo "groups:"
	echo "  - name: dashboard"
	echo "    rules:"
	n=0
	while IFS= read -r e; do
		n=$((n + 1))
		printf '      - record: rdmanet_dashboard:panel_query_%d\n        expr: %s\n' "$n" \
			"$(jq -Rn --arg e "$e" '$e')"
	done <"$RN_TMP/dash-exprs"
} >"$RN_TMP/dash-rules.yaml"
check "every dashboard query is valid PromQL ($(wc -l <"$RN_TMP/dash-exprs") queries, promtool)" \
	sh -c "promtool check rules '$RN_TMP/dash-rules.yaml' >'$RN_TMP/dash.out' 2>&1"
sed 's/^/# promtool: /' "$RN_TMP/dash.out"

# --- a real export ---------------------------------------------------------
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
MAC_A=$(rn_pod_up a 10.77.0.2)
FX=$RN_TMP/fixture
cp -a "$RN_SRC/selftests/fixtures/sysfs/cx5_sriov" "$FX"	# the agent writes QoS into it
mkdir -p "$RN_TMP/state/sriov"
export RDMANET_SYSFS_ROOT=$FX/sys RDMANET_CNI_STATE_DIR=$RN_TMP/state
IPAM="\"ipam\": { \"store\": \"sqlite\", \"path\": \"$RN_TMP/ipam.db\" },
  \"pools\": [ { \"name\": \"rail1\", \"subnet\": \"10.77.0.0/24\", \"masters\": [\"roce0\"] } ],
  \"rdma\": { \"sysfs_root\": \"$FX/sys\" }"
rn_agent_config "$RN_TMP/config.json" enforce "" "$IPAM"
check "agent attaches" rn_agent_start "$RN_TMP/config.json"
rn_ctl pod add --namespace team-1 --pod trainer-0 --container-id ca --ifname net1 --master roce0 \
	--mac "$MAC_A" --ip 10.77.0.2 >/dev/null
AGENT_TF=$RN_TMP/textfile/rdmanet.prom
for _ in $(seq 100); do	# the agent's own families (the GID watch) after a tick with the pod
	grep -q '^rdmanet_pods_registered 1' "$AGENT_TF" 2>/dev/null &&
		grep -q '^# TYPE rdmanet_rdma_gid_index_moves_total' "$AGENT_TF" && break
	sleep 0.1
done
check "agent's textfile has the pod and its GID watch" \
	sh -c "grep -q '^rdmanet_pods_registered 1' '$AGENT_TF' && grep -q 'rdmanet_rdma_gid_index_moves_total' '$AGENT_TF'"
# the VF resource families: the same node with an "sriov" section (the
# agent would provision the fixture's PF; the CLI's export only reads it)
rn_agent_config "$RN_TMP/config-sriov.json" enforce "" "$IPAM,
  \"sriov\": [ { \"pf\": \"ens1f0np0\", \"numVfs\": 12, \"isRdma\": true, \"resourceName\": \"mellanoxroce\" } ]"
mkdir -p "$RN_TMP/export"
check "rdmanetctl export with VF resources" \
	rn_ctl -c "$RN_TMP/config-sriov.json" export --textfile "$RN_TMP/export"
cp "$AGENT_TF" "$RN_TMP/export/rdmanet-agent.prom"

NE=$(command -v prometheus-node-exporter || command -v node_exporter)
PORT=$(( 20000 + RANDOM % 20000 ))
"$NE" --web.listen-address=127.0.0.1:$PORT --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$RN_TMP/export" >"$RN_TMP/ne.log" 2>&1 &
NE_PID=$!
for _ in $(seq 50); do
	curl -sf "http://127.0.0.1:$PORT/metrics" >"$RN_TMP/scrape.txt" && break
	sleep 0.1
done
check_eq "node_exporter reads both textfiles without error" \
	"$(awk '/^node_textfile_scrape_error /{print $2}' "$RN_TMP/scrape.txt")" 0

# what exists: every family the textfiles declare (with or without samples)
# and every name node_exporter serves
{
	sed -n 's/^# TYPE \([^ ]*\) .*/\1/p' "$RN_TMP"/export/*.prom
	grep -v '^#' "$RN_TMP/scrape.txt" | grep -oE '^[a-zA-Z_:][a-zA-Z0-9_:]*'
} | sort -u >"$RN_TMP/exported"
tap_diag "$(grep -c '^rdmanet_' "$RN_TMP/exported") rdmanet families exported"

# metric_names FILE: the metric names in PromQL expressions, one per line of
# FILE: strings, ranges, label matchers, grouping clauses and function
# calls taken out, what is left that looks like a name is a metric
metric_names() {
	sed -E 's/"([^"\\]|\\.)*"//g; s/\[[^]]*\]//g; s/\{[^}]*\}//g;
		s/\b(by|without|on|ignoring|group_left|group_right) *\([^)]*\)//g;
		s/\b[a-zA-Z_][a-zA-Z0-9_]* *\(/(/g' "$1" |
		grep -oE '\b[a-zA-Z_:][a-zA-Z0-9_:]*\b' |
		grep -vxE 'and|or|unless|bool|offset|inf|nan' | sort -u
}
# unexported FILE: the names FILE's expressions use that nothing exports
unexported() { metric_names "$1" | comm -23 - "$RN_TMP/exported"; }

metric_names "$RN_TMP/rule-exprs" >"$RN_TMP/rule-names"
tap_diag "rules use: $(tr '\n' ' ' <"$RN_TMP/rule-names")"
check_eq "every metric the rules name is exported" "$(unexported "$RN_TMP/rule-exprs" | tr '\n' ' ')" ""
check_eq "every metric the dashboard names is exported" "$(unexported "$RN_TMP/dash-exprs" | tr '\n' ' ')" ""
check "the rules name metrics at all ($(wc -l <"$RN_TMP/rule-names"))" test "$(wc -l <"$RN_TMP/rule-names")" -ge 10
# the check catches a rule naming what nobody exports
sed 's/rdmanet_ipam_store_up/rdmanet_ipam_store_reachable/' "$RN_TMP/rule-exprs" >"$RN_TMP/bad-exprs"
check_eq "a rule naming an unexported metric is caught" "$(unexported "$RN_TMP/bad-exprs")" \
	"rdmanet_ipam_store_reachable"

# --- label cardinality as deploy/metrics.md states it ----------------------
per_pod=$(grep -v '^#' "$RN_TMP/export/rdmanet.prom" | grep -c 'container_id="ca"')
stated=$(sed -n 's/.*<!-- series-per-sandbox: \([0-9]*\) -->.*/\1/p' "$RN_SRC/deploy/metrics.md")
check_eq "series per pod sandbox (container_id) as deploy/metrics.md states" "$per_pod" "${stated:-unstated}"
[ -n "${RN_MON_KEEP:-}" ] && cp -a "$RN_TMP/export" "$RN_MON_KEEP"
tap_done
