#!/bin/bash
# rdmanetd's DRA driver reading the claims kubelet names from the API
# server (GET resource.k8s.io/v1 .../namespaces/NS/resourceclaims/NAME), as
# on a real cluster: the agent has a kubeconfig to the API-server stand-in
# (apiserver_standin.py, validating ResourceClaims as the real server
# does), the scheduler stand-in creates and allocates the claims there,
# kubelet's calls come from the kubelet stand-in, on the ConnectX-5
# fixture cx5_sriov. No real kubelet, API server or scheduler runs.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
trap 'standin_stop; rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
API=$RN_TMP/api
dra_api_start "$API" || { tap_fail "the API-server stand-in starts ($(tail -n 2 "$API/standin.err"))"; tap_done; }
# slices not published: the stand-in's log and its fail-once answers are
# the claim source's alone
dra_config "$RN_TMP/config.json" '"slices": { "publish": false }'

check "agent starts with claims from the API server" rn_agent_start "$RN_TMP/config.json"
# wait_for COMMAND...: until it succeeds (20 s at most; the driver logs
# its start line after its thread runs, so after the agent is up)
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.1; done; return 1; }
check "... and says where claims come from" \
	wait_for grep -q "claims from the API server ($DRA_KUBECONFIG)" "$RN_TMP/agent.log"
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "registered with the kubelet stand-in" "$(jq -r .error <<<"$reg")" null

CLAIMS=/apis/resource.k8s.io/v1/namespaces
gets() {	# gets NS NAME: the stand-in's log of GETs of that claim, "user status" each
	jq -r --arg p "$CLAIMS/$1/resourceclaims/$2" 'select(.method == "GET" and .path == $p)
		| "\(.user) \(.status)"' "$API/requests.log"
}
# nothing_of UID [VF]: no CDI spec, no prepared.json entry, no VF hold
nothing_of() {
	[ ! -e "$(dra_spec "$1")" ] &&
		! jq -e --arg u "$1" '.claims | has($u)' "$DRA_STATE/prepared.json" >/dev/null 2>&1 &&
		{ [ -z "${2:-}" ] || [ ! -e "$DRA_HOLDS/sriov/$2.json" ]; }
}
err_of() { jq -r --arg u "$2" '.claims[$u].error' <<<"$1"; }

# --- a shared claim and a VF claim, from the API server ---------------------------
U1=$(dra_claim_api default shared1 "[$(dra_result nic mlx5-0-port1)]")
U2=$(dra_claim_api team-a vf1 "[$(dra_result nic vf-0000-3b-00-2)]" "aaaaaaaa-1111-4111-8111-111111111111")
check "the scheduler created both claims at the stand-in (UIDs the server gave)" \
	test -n "$U1" -a -n "$U2" -a "$U1" != "$U2"
out=$(dra_prepare v1.DRAPlugin default/shared1/$U1 team-a/vf1/$U2)
check_eq "both prepared: no gRPC error, every claim answered, no per-claim error" \
	"$(jq -c '[.grpc_error, .missing, [.claims[].error]]' <<<"$out")" '[null,[],["",""]]'
check_eq "shared claim: its device and CDI ID" \
	"$(jq -c "[.claims[\"$U1\"].devices[0] | .device, .cdi[0]]" <<<"$out")" \
	"[\"mlx5-0-port1\",\"rdmanet.io/claim=$U1-mlx5-0-port1\"]"
check "shared claim: its CDI spec" test -f "$(dra_spec "$U1")"
check_eq "VF claim: its device, held for the claim (as exclusive mode holds it)" \
	"$(jq -c "[.claims[\"$U2\"].devices[0].device]" <<<"$out") $(jq -r .claim_uid "$DRA_HOLDS/sriov/0000:3b:00.2.json" 2>&1)" \
	"[\"vf-0000-3b-00-2\"] $U2"
check_eq "state: both recorded, the VF claim with the pod of its reservedFor" \
	"$(jq -c --arg a "$U1" --arg b "$U2" '[(.claims | keys | sort == ([$a, $b] | sort)), .claims[$b].pods]' "$DRA_STATE/prepared.json")" \
	'[true,["aaaaaaaa-1111-4111-8111-111111111111"]]'
check_eq "the stand-in's log: the driver's GETs, with its identity (the kubeconfig's token)" \
	"$(gets default shared1) / $(gets team-a vf1)" "token:token-on 200 / token:token-on 200"
out=$(dra_unprepare v1.DRAPlugin default/shared1/$U1 team-a/vf1/$U2)
check_eq "both unprepared" "$(jq -c '[.grpc_error, [.claims[].error]]' <<<"$out")" '[null,["",""]]'
check "... nothing left of either: no spec, no record, no VF hold" \
	eval 'nothing_of "$U1" && nothing_of "$U2" 0000:3b:00.2'

# --- bad input: a clear error for each, nothing left --------------------------------
# not at the API server (404)
U3=$(cat /proc/sys/kernel/random/uuid)
out=$(dra_prepare v1.DRAPlugin default/missing/$U3)
check_eq "a claim not at the API server: answered, no gRPC error" \
	"$(jq -c '[.grpc_error, .missing]' <<<"$out")" '[null,[]]'
check_eq "... its error says so" "$(err_of "$out" "$U3")" \
	"claim default/missing: not found at the API server"
check "... nothing of it left" nothing_of "$U3"
# replaced: deleted and created again, kubelet still asks for the old UID
OLD=$(dra_claim_api default replaced "[$(dra_result nic vf-0000-3b-00-3)]")
dra_kube DELETE "$CLAIMS/default/resourceclaims/replaced" >/dev/null
NEW=$(dra_claim_api default replaced "[$(dra_result nic vf-0000-3b-00-3)]")
out=$(dra_prepare v1.DRAPlugin default/replaced/$OLD)
check "a replaced claim (the API server's UID differs from kubelet's): refused, naming both UIDs" \
	grep -q "kubelet asks for UID $OLD, the claim now is UID $NEW" <<<"$(err_of "$out" "$OLD")"
check "... nothing left: no spec, no record, the VF not held" nothing_of "$OLD" 0000:3b:00.3
# no allocation
U4=$(dra_claim_api default unallocated none)
out=$(dra_prepare v1.DRAPlugin default/unallocated/$U4)
check "a claim without allocation: refused as not allocated" \
	grep -q "claim default/unallocated: not allocated" <<<"$(err_of "$out" "$U4")"
check "... nothing left" nothing_of "$U4"

# 403: the service account may not get the claim
U5=$(dra_claim_api default vf2 "[$(dra_result nic vf-0000-3b-00-4)]")
echo "GET 403 Forbidden" >"$API/fail-once"
out=$(dra_prepare v1.DRAPlugin default/vf2/$U5)
check "403 from the API server: the error names the RBAC verb missing (get on resourceclaims)" \
	grep -q "may not \"get\" resourceclaims.resource.k8s.io in namespace default" <<<"$(err_of "$out" "$U5")"
check "... nothing left: no spec, no record, the VF not held" nothing_of "$U5" 0000:3b:00.4
# 401: the token not accepted (rotated away at the server)
echo other-token >"$API/tokens"
out=$(dra_prepare v1.DRAPlugin default/vf2/$U5)
check "401 (the token not accepted): the error says the credentials are refused" \
	grep -q "does not accept the driver's credentials.*401 Unauthorized" <<<"$(err_of "$out" "$U5")"
check "... nothing left" nothing_of "$U5" 0000:3b:00.4
echo token-one >"$API/tokens"
out=$(dra_prepare v1.DRAPlugin default/vf2/$U5)
check_eq "the token accepted again: the next call prepares the claim" \
	"$(jq -c "[.claims[\"$U5\"].error, .claims[\"$U5\"].devices[0].device]" <<<"$out")" '["","vf-0000-3b-00-4"]'
check_eq "the stand-in's log: that claim's GETs answered 403, 401, then 200" \
	"$(gets default vf2 | awk '{print $2}' | tr '\n' ' ')" "403 401 200 "

# the API server down, then up again
standin_stop
U6=$(cat /proc/sys/kernel/random/uuid)
out=$(dra_prepare v1.DRAPlugin default/later/$U6)
check_eq "API server down: the claim answered, no gRPC error" \
	"$(jq -c '[.grpc_error, .missing]' <<<"$out")" '[null,[]]'
check "... its error: the API server cannot be reached, kubelet tries again" \
	grep -q "claim default/later: the API server https://127.0.0.1:$STANDIN_PORT cannot be reached (.*); kubelet tries again" \
	<<<"$(err_of "$out" "$U6")"
check "... nothing left" nothing_of "$U6"
check "the stand-in up again (same port and certificates)" standin_restart "$API"
U6=$(dra_claim_api default later "[$(dra_result nic mlx5-1-port1)]")
out=$(dra_prepare v1.DRAPlugin default/later/$U6)
check_eq "... the next call succeeds (the client reconnects)" \
	"$(jq -c "[.grpc_error, .claims[\"$U6\"].error, .claims[\"$U6\"].devices[0].device]" <<<"$out")" \
	'[null,"","mlx5-1-port1"]'

# an API server that accepts connections and never answers: the first
# claim's GET times out (10 s), the call's other claims are not asked
# (else a call of 5 claims would outlast kubelet's 45 s)
standin_stop
# (nsenter execs python: $! is the listener itself)
nsenter --net=/run/netns/"$RN_NODE" python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); time.sleep(120)' "$STANDIN_PORT" &
HOLE=$!
for _ in $(seq 50); do
	rn_in_node ss -Hltn "sport = :$STANDIN_PORT" | grep -q . && break
	sleep 0.1
done
out=$(dra_prepare v1.DRAPlugin default/s1/$(cat /proc/sys/kernel/random/uuid) \
	default/s2/$(cat /proc/sys/kernel/random/uuid) default/s3/$(cat /proc/sys/kernel/random/uuid))
check "API server silent: the first claim's GET timed out, kubelet tries again" \
	grep -q "the API server .* cannot be reached (.*); kubelet tries again" \
	<<<"$(jq -r '[.claims[].error] | map(select(test("claim default/s[123]: the API")))[0]' <<<"$out")"
check_eq "... the call's other claims not asked (each would time out too)" \
	"$(jq -r '[.claims[].error | select(test("not asked: the API server .* did not answer just now"))] | length' <<<"$out")" 2
kill "$HOLE" 2>/dev/null; wait "$HOLE" 2>/dev/null
check "the stand-in up again" standin_restart "$API"

out=$(dra_unprepare v1.DRAPlugin default/vf2/$U5 default/later/$U6)
check_eq "unprepared: nothing left at all (no spec, no hold, no record)" \
	"$(jq -c '[.claims[].error]' <<<"$out") $(ls "$DRA_CDI" | wc -l) $(ls "$DRA_HOLDS/sriov/"*.json 2>/dev/null | wc -l) $(jq -c .claims "$DRA_STATE/prepared.json")" \
	'["",""] 0 0 {}'
check "the agent logged no crash and still serves" eval 'rn_ctl stats -j >/dev/null'
tap_done
