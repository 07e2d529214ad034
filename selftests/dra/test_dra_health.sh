#!/bin/bash
# The DRA driver as the operator sees it: the agent's health file (what
# `rdmanetctl health`, the DaemonSet's probes, reads) and its Prometheus
# textfile. A node whose config turns DRA on is not ready until kubelet
# (the stand-in, kubelet_dra.py) registers the driver, and not again after
# a restarting kubelet deleted the registration socket (or one refused the
# registration) until it registers it anew; the prepared claims, the
# claims answered and the ResourceSlice publisher (to the API-server
# stand-in, then with it down) are reported in both; the textfile's DRA
# families are promtool-clean and documented, and its counters survive a
# reload that restarts the driver. No real kubelet or API server runs.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
trap 'standin_stop; rn_topo_down' EXIT

command -v openssl >/dev/null || tap_skip_all "openssl is not installed"
command -v promtool >/dev/null || { tap_fail "promtool missing (make deps)"; tap_done; }
dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
mkdir -p "$RN_TMP/api"
rn_in_node ip link set lo up
STANDIN_RUN="nsenter --net=/run/netns/$RN_NODE"	# the agent's loopback
standin_start "$RN_TMP/api" || { tap_fail "the API-server stand-in starts"; tap_done; }
standin_kubeconfig "$RN_TMP/api" "$RN_TMP/kubeconfig"

H=$RN_TMP/health.json
TF=$RN_TMP/textfile/rdmanet.prom
health() { rn_in_node "$RN_BUILD/bin/rdmanetctl" health --health-file "$H" "$@" 2>&1; }
# hj FILTER: the health file's JSON through jq
hj() { health -j 2>/dev/null | jq -c "$1" 2>/dev/null; }
# metric 'NAME{LABELS}': its value in the agent's textfile
metric() { awk -v m="$1" '$1 == m { print $2 }' "$TF" 2>/dev/null; }
# wait_for CMD...: until it succeeds (20 s at most; the agent rewrites both
# files every second here)
wait_for() { for _ in $(seq 100); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done; return 1; }
hj_is() { [ "$(hj "$1")" = "$2" ]; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }

dra_config "$RN_TMP/config.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\", \"resync_s\": 600 }"
check "agent starts with a dra section and --health-file" \
	rn_agent_start "$RN_TMP/config.json" --health-file "$H"

# --- before kubelet registered the driver: alive, not ready ----------------------
NOT_REG="DRA driver $DRA_DRIVER: not registered with kubelet"
check "before registration: not ready, the DRA driver the one reason" \
	wait_for hj_is .not_ready_because "[\"$NOT_REG\"]"
out=$(health --ready)
check_eq "health --ready: exit 1, says so ($out)" "$?:$out" "1:rdmanetctl: health: alive, not ready: $NOT_REG"
check "... and alive" eval 'health >/dev/null'
check_eq "health -j: the dra object (driver, not registered, nothing prepared, the thread beats)" \
	"$(hj '.dra | [.driver, .registered, .prepared_claims, (.beat_age_ms >= 0 and .beat_age_ms < 5000)]')" \
	"[\"$DRA_DRIVER\",false,0,true]"
check "textfile: rdmanet_dra_registered 0" wait_for metric_is rdmanet_dra_registered 0

# --- registered: ready ------------------------------------------------------------
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "kubelet registers the driver" "$(jq -r .error <<<"$reg")" null
check "registered: ready" wait_for health --ready
check_eq "... health -j: registered, no reason left" \
	"$(hj '[.dra.registered, .ready, .not_ready_because]')" '[true,true,[]]'
check "textfile: rdmanet_dra_registered 1" wait_for metric_is rdmanet_dra_registered 1

# --- the slice publisher ------------------------------------------------------------
devices=$("$RN_BUILD/tools/dra_slices" --sysfs "$RN_TMP/host/sys" --node x --print | jq '.[0].spec.devices | length')
check "slices published: enabled, one slice of every device, no failure, no error" \
	wait_for hj_is '.dra.slices | [.enabled, .slices, .devices, .failures, .last_error, .publishes >= 1, .since_ok_s >= 0]' \
	"[true,1,$devices,0,\"\",true,true]"
check "textfile: rdmanet_dra_slices 1, rdmanet_dra_devices $devices" \
	wait_for eval 'metric_is rdmanet_dra_slices 1 && metric_is rdmanet_dra_devices '"$devices"

# --- prepared claims follow prepare and unprepare -----------------------------------------
U1=11111111-1111-4111-8111-111111111111
U2=22222222-2222-4222-8222-222222222222
U6=66666666-6666-4666-8666-666666666666
dra_claim default shared1 $U1 "[$(dra_result nic mlx5-0-port1)]"
dra_claim default shared2 $U2 "[$(dra_result nic mlx5-1-port1)]"
out=$(dra_prepare v1.DRAPlugin default/shared1/$U1 default/shared2/$U2 default/missing/$U6)
check_eq "two claims prepared, one refused" \
	"$(jq -c "[.claims[\"$U1\"].error, .claims[\"$U2\"].error, (.claims[\"$U6\"].error | length > 0)]" <<<"$out")" \
	'["","",true]'
check "health: 2 claims prepared" wait_for hj_is .dra.prepared_claims 2
check "textfile: rdmanet_dra_prepared_claims 2, prepares 2 ok and 1 error" \
	wait_for eval 'metric_is rdmanet_dra_prepared_claims 2 &&
		metric_is "rdmanet_dra_claim_prepares_total{result=\"ok\"}" 2 &&
		metric_is "rdmanet_dra_claim_prepares_total{result=\"error\"}" 1'
out=$(dra_unprepare v1.DRAPlugin default/shared1/$U1)
check_eq "one unprepared" "$(jq -c "[.grpc_error, .claims[\"$U1\"].error]" <<<"$out")" '[null,""]'
check "health: 1 claim prepared" wait_for hj_is .dra.prepared_claims 1
check "textfile: rdmanet_dra_prepared_claims 1, 1 unprepare ok" \
	wait_for eval 'metric_is rdmanet_dra_prepared_claims 1 &&
		metric_is "rdmanet_dra_claim_unprepares_total{result=\"ok\"}" 1 &&
		metric_is "rdmanet_dra_claim_unprepares_total{result=\"error\"}" 0'

# --- the textfile's DRA families: clean, documented -----------------------------------
check "textfile with the DRA families: promtool check metrics clean" \
	sh -c "promtool check metrics < '$TF'"
families=$(awk '/^# TYPE rdmanet_dra_/ { print $3 }' "$TF" | sort | tr '\n' ' ')
check_eq "textfile: every DRA family" "$families" \
	"rdmanet_dra_claim_prepares_total rdmanet_dra_claim_unprepares_total rdmanet_dra_devices rdmanet_dra_prepared_claims rdmanet_dra_registered rdmanet_dra_slice_publishes_total rdmanet_dra_slices "
undocumented=$(for f in $families; do grep -q "\`$f\`" "$RN_SRC/deploy/metrics.md" || echo "$f"; done)
check_eq "... each in deploy/metrics.md's table" "$undocumented" ""
mkdir -p "$RN_TMP/ctl-export"
rn_ctl --config "$RN_TMP/config.json" export --textfile "$RN_TMP/ctl-export" >/dev/null 2>&1
check_eq "rdmanetctl export (no driver of its own): no DRA family" \
	"$(grep -c '^# TYPE rdmanet_dra_' "$RN_TMP/ctl-export/rdmanet.prom" 2>/dev/null)" 0

# --- a kubelet restart deletes the registration socket: not registered until it registers again
standin_stop	# the publication its registration triggers fails
rm -f "$DRA_KUBELET/plugins_registry/"*
check "kubelet restarted (registry wiped): not ready, not registered" \
	wait_for hj_is '[.dra.registered, .not_ready_because]' "[false,[\"$NOT_REG\"]]"
check "textfile: rdmanet_dra_registered 0 again" wait_for metric_is rdmanet_dra_registered 0
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "kubelet registers the driver again" "$(jq -r .error <<<"$reg")" null
check "registered again: ready" wait_for health --ready
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver other.example.com)
check "a kubelet that refuses the registration (NotifyRegistrationStatus false): not registered" \
	wait_for hj_is '[.dra.registered, .ready]' '[false,false]'
dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER" >/dev/null
check "... registered when it accepts it again: ready" wait_for health --ready
check "the republication it triggers fails (API server down): counted, its error said" \
	wait_for hj_is '.dra.slices | [.failures >= 1, (.last_error | length > 0), .slices]' '[true,true,1]'
check "... a failed publication does not make the node unready" eval 'health --ready >/dev/null'
check "textfile: rdmanet_dra_slice_publishes_total{result=\"error\"} counts it" \
	wait_for eval '[ "$(metric "rdmanet_dra_slice_publishes_total{result=\"error\"}")" -ge 1 ]'
check "... and the counters did not go back" \
	eval 'metric_is "rdmanet_dra_claim_prepares_total{result=\"ok\"}" 2'

# --- DRA turned off: no dra object, no DRA family, ready ----------------------------------
dra_config "$RN_TMP/config.json" '"enabled": false'
check "reload, enabled false: health's dra is null, ready" \
	wait_for hj_is '[.dra, .ready]' '[null,true]'
check "... the textfile has no DRA family" \
	wait_for eval '! grep -q "^# TYPE rdmanet_dra_" "$TF"'

# --- on again: a new driver thread, the process's counters go on ----------------------------
dra_config "$RN_TMP/config.json" "\"slices\": { \"kubeconfig\": \"$RN_TMP/kubeconfig\", \"resync_s\": 600 }"
check "reload, on again: not registered with the new thread's socket, not ready" \
	wait_for hj_is '[.dra.registered, .not_ready_because]' "[false,[\"$NOT_REG\"]]"
check_eq "... the claim still prepared (the state file)" "$(hj .dra.prepared_claims)" 1
check "... the textfile's counters did not restart: prepares 2 ok, 1 error" \
	wait_for eval 'metric_is "rdmanet_dra_claim_prepares_total{result=\"ok\"}" 2 &&
		metric_is "rdmanet_dra_claim_prepares_total{result=\"error\"}" 1'
tap_done
