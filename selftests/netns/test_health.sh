#!/bin/bash
# The agent's health as the DaemonSet's probes read it (rdmanetctl health,
# exec probes on the file rdmanetd --health-file rewrites): alive and ready
# with its master attached; alive but not ready while a configured master
# is missing, ready again once it exists; not alive while the main loop is
# stopped (SIGSTOP, what a hung loop looks like), alive again after
# SIGCONT; a refused config does not fail the probe; no file, no health.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
trap rn_topo_down EXIT
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
H=$RN_TMP/health.json
health() { rn_in_node "$RN_BUILD/bin/rdmanetctl" health --health-file "$H" "$@" 2>&1; }
wait_for() {	# wait_for SECONDS CMD...: until CMD succeeds
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do [ $SECONDS -ge $end ] && return 1; sleep 0.2; done
}

out=$(health)
check_eq "no health file: not alive, and says why" "$?:$(grep -c 'No such file' <<<"$out")" "1:1"

rn_agent_config "$RN_TMP/config.json" monitor
# interval_s 30: the main loop's tick is long, the health beat is not
jq '.textfile.interval_s = 30' "$RN_TMP/config.json" >"$RN_TMP/c" && mv "$RN_TMP/c" "$RN_TMP/config.json"
check "agent attaches" rn_agent_start "$RN_TMP/config.json" --health-file "$H"
check "the health file appears" wait_for 10 test -s "$H"
out=$(health --ready)
check_eq "alive and ready with its master attached ($out)" "$?" 0
check_eq "-j: the version and the masters" \
	"$(health -j | jq -c '[.version, .masters.wanted, .masters.attached, .ready]')" \
	"[\"$(make -s -C "$RN_SRC" print-version)\",1,1,true]"
m1=$(stat -c %Y.%y "$H")
check "rewritten within the beat (5 s) though the tick is 30 s" \
	wait_for 8 bash -c '[ "$(stat -c %Y.%y "$0")" != "$1" ]' "$H" "$m1"

# a second master that does not exist yet: alive, not ready, with the reason
jq '.masters += [{ "ifname": "roce1", "policy": "monitor" }]' "$RN_TMP/config.json" >"$RN_TMP/c" &&
	mv "$RN_TMP/c" "$RN_TMP/config.json"
check "an edit wanting a missing master makes it not ready" \
	wait_for 20 bash -c '! "$0" health --health-file "$1" --ready' "$RN_BUILD/bin/rdmanetctl" "$H"
out=$(health --ready)
check "  ... and says which: $out" grep -q '1 of 2 masters attached' <<<"$out"
check "  ... while alive" health
rn_in_node ip link add roce1 type veth peer name roce1p
rn_in_node ip link set roce1 up
check "the master appears: ready at the next tick" wait_for 45 health --ready

# a config the agent refuses: it keeps the last good one, the probe passes
echo '{ "qos": { "roce_dscp": 99 } }' >"$RN_TMP/config.json"
sleep 2
check "a refused config edit does not fail the probe" health --ready

# a stuck main loop: not alive once the file is older than --max-age
kill -STOP "$RN_AGENT_PID"
check "main loop stopped: not alive past --max-age 3" \
	wait_for 15 bash -c '! "$0" health --health-file "$1" --max-age 3' "$RN_BUILD/bin/rdmanetctl" "$H"
out=$(health --max-age 3)
check "  ... and says the main loop last beat: $out" grep -q 'main loop last beat' <<<"$out"
kill -CONT "$RN_AGENT_PID"
check "SIGCONT: alive again" wait_for 10 health --max-age 3
out=$(health --max-age nope)
check_eq "a bad --max-age is one clear usage error (exit 2)" "$?:$(wc -l <<<"$out")" "2:1"
tap_done
