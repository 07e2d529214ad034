#!/bin/bash
# rdmanetd's DRA driver, kubelet side, against the kubelet stand-in (a real
# gRPC peer from kubelet's .proto files) on the ConnectX-5 fixture
# cx5_sriov (mlx5_0 the PF ens1f0np0, with 12 VFs; mlx5_1 the second
# port's PF). The scheduler stand-in writes the claims' allocations. No
# real kubelet, API server or scheduler runs.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/devplugin/lib.sh"
. "$RN_SRC/selftests/dra/lib.sh"
trap 'rn_topo_down' EXIT

dp_require_python_grpc
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
dp_fixture cx5_sriov
dra_config "$RN_TMP/config.json"

check "agent attaches with a dra section" rn_agent_start "$RN_TMP/config.json"

# --- registration ----------------------------------------------------------
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "registration: GetInfo passes kubelet's checks" "$(jq -r .error <<<"$reg")" null
check_eq "registration: socket <driver>-reg.sock in plugins_registry" \
	"$(jq -r .socket <<<"$reg")" "$DRA_DRIVER-reg.sock"
check_eq "registration: type DRAPlugin, the driver's name" \
	"$(jq -r '[.type, .name] | join(" ")' <<<"$reg")" "DRAPlugin $DRA_DRIVER"
check_eq "registration: v1.DRAPlugin then v1beta1.DRAPlugin" \
	"$(jq -c .versions <<<"$reg")" '["v1.DRAPlugin","v1beta1.DRAPlugin"]'
check_eq "registration: the endpoint is the DRAPlugin socket under plugins/<driver>" \
	"$(jq -r .endpoint <<<"$reg")" "$DRA_SOCK"
check "registration: NotifyRegistrationStatus logged by the driver" \
	grep -q "DRA driver $DRA_DRIVER: registered with kubelet" "$RN_TMP/agent.log"

# --- a shared claim on an HCA port (v1) ----------------------------------------
U1=11111111-1111-4111-8111-111111111111
dra_claim default shared1 $U1 "[$(dra_result nic mlx5-0-port1)]"
out=$(dra_prepare v1.DRAPlugin default/shared1/$U1)
check_eq "shared claim (v1): answered without a gRPC error, none missing" \
	"$(jq -c '[.grpc_error, .missing]' <<<"$out")" '[null,[]]'
check_eq "shared claim: no per-claim error" "$(jq -r ".claims[\"$U1\"].error" <<<"$out")" ""
check_eq "shared claim: the device, its pool and request, one CDI ID" \
	"$(jq -c ".claims[\"$U1\"].devices" <<<"$out")" \
	"[{\"cdi\":[\"rdmanet.io/claim=$U1-mlx5-0-port1\"],\"device\":\"mlx5-0-port1\",\"pool\":\"$DRA_POOL\",\"requests\":[\"nic\"]}]"
spec=$(dra_spec $U1)
check "shared claim: its CDI spec written" test -f "$spec"
check_eq "shared claim: CDI kind and device name" \
	"$(jq -c '[.kind, .devices[].name]' "$spec" 2>/dev/null)" "[\"rdmanet.io/claim\",\"$U1-mlx5-0-port1\"]"
check_eq "shared claim: the HCA's uverbs, port 1's umad/issm, rdma_cm" \
	"$(jq -c '[.devices[0].containerEdits.deviceNodes[].path] | sort' "$spec" 2>/dev/null)" \
	'["/dev/infiniband/issm0","/dev/infiniband/rdma_cm","/dev/infiniband/umad0","/dev/infiniband/uverbs0"]'
env1=$(jq -c '.containerEdits.env | sort' "$spec" 2>/dev/null)
check_eq "shared claim: variables name the device, port, netdev and RoCE v2 GID index; NCCL's" \
	"$env1" '["NCCL_IB_GID_INDEX=3","NCCL_IB_HCA==mlx5_0:1","RDMANET_NIC_GID_INDEX=3","RDMANET_NIC_NETDEV=ens1f0np0","RDMANET_NIC_PORT=1","RDMANET_NIC_RDMA_DEVICE=mlx5_0","UCX_NET_DEVICES=mlx5_0:1"]'

# --- idempotent -------------------------------------------------------------------
again=$(dra_prepare v1.DRAPlugin default/shared1/$U1)
check_eq "the same claim prepared twice: the same answer" \
	"$(jq -c ".claims[\"$U1\"]" <<<"$again")" "$(jq -c ".claims[\"$U1\"]" <<<"$out")"

# --- two claims sharing one HCA, in one v1beta1 call --------------------------------
U2=22222222-2222-4222-8222-222222222222
U3=33333333-3333-4333-8333-333333333333
dra_claim team-a shared2 $U2 "[$(dra_result rdma mlx5-0-port1)]"
dra_claim team-b shared3 $U3 "[$(dra_result rdma mlx5-0-port1)]"
out=$(dra_prepare v1beta1.DRAPlugin team-a/shared2/$U2 team-b/shared3/$U3)
check_eq "two claims on one HCA (v1beta1): both answered, no error" \
	"$(jq -c '[.grpc_error, .missing, [.claims[].error]]' <<<"$out")" '[null,[],["",""]]'
check_eq "two claims on one HCA: the same device, each its own CDI ID" \
	"$(jq -c '[.claims[].devices[0] | [.device, .cdi[0]]] | sort' <<<"$out")" \
	"[[\"mlx5-0-port1\",\"rdmanet.io/claim=$U2-mlx5-0-port1\"],[\"mlx5-0-port1\",\"rdmanet.io/claim=$U3-mlx5-0-port1\"]]"
check "two claims on one HCA: a spec each" test -f "$(dra_spec $U2)" -a -f "$(dra_spec $U3)"

# --- one device for two requests of a claim -----------------------------------------
UA=abababab-abab-4bab-8bab-abababababab
dra_claim default tworeq $UA "[$(dra_result a mlx5-1-port1), $(dra_result b mlx5-1-port1)]"
out=$(dra_prepare v1.DRAPlugin default/tworeq/$UA)
check_eq "one device for two requests: answered for each request, one CDI ID" \
	"$(jq -c ".claims[\"$UA\"].devices | map([.requests[0], .cdi[0]])" <<<"$out")" \
	"[[\"a\",\"rdmanet.io/claim=$UA-mlx5-1-port1\"],[\"b\",\"rdmanet.io/claim=$UA-mlx5-1-port1\"]]"
check_eq "... one CDI device in the spec (CDI names are unique), both requests' variables" \
	"$(jq -c '[(.devices | length), ([.containerEdits.env[] | select(test("RDMA_DEVICE"))] | sort)]' "$(dra_spec $UA)" 2>/dev/null)" \
	'[1,["RDMANET_A_RDMA_DEVICE=mlx5_1","RDMANET_B_RDMA_DEVICE=mlx5_1"]]'
out=$(dra_unprepare v1.DRAPlugin default/tworeq/$UA)

# --- an exclusive VF ---------------------------------------------------------------
U4=44444444-4444-4444-8444-444444444444
dra_claim default vf1 $U4 "[$(dra_result nic vf-0000-3b-00-2)]"
out=$(dra_prepare v1.DRAPlugin default/vf1/$U4)
check_eq "VF claim: prepared" "$(jq -c "[.grpc_error, .claims[\"$U4\"].error, .claims[\"$U4\"].devices[0].device]" <<<"$out")" \
	'[null,"","vf-0000-3b-00-2"]'
hold=$DRA_HOLDS/sriov/0000:3b:00.2.json
check_eq "VF claim: the VF held as exclusive mode holds it, for this claim" \
	"$(jq -c '[.claim_uid, .pod_namespace, .pod_name, .netns]' "$hold" 2>/dev/null)" \
	"[\"$U4\",\"default\",\"vf1\",\"\"]"
check_eq "VF claim: the VF's RDMA device nodes (mlx5_2) and its PCI address in the env" \
	"$(jq -c '[(.devices[0].containerEdits.deviceNodes[].path | select(test("uverbs"))),
	            (.containerEdits.env[] | select(startswith("RDMANET_NIC_PCI") or startswith("RDMANET_NIC_RDMA_DEVICE")))]' \
	   "$(dra_spec $U4)" 2>/dev/null)" \
	'["/dev/infiniband/uverbs2","RDMANET_NIC_RDMA_DEVICE=mlx5_2","RDMANET_NIC_PCI=0000:3b:00.2"]'
U5=55555555-5555-4555-8555-555555555555
dra_claim default vf2 $U5 "[$(dra_result nic vf-0000-3b-00-2)]"
out=$(dra_prepare v1.DRAPlugin default/vf2/$U5)
check "a second claim on the held VF: refused, naming the holder" \
	grep -q "VF 0000:3b:00.2 is held for claim $U4" <<<"$(jq -r ".claims[\"$U5\"].error" <<<"$out")"
check "... and nothing of it left: no spec" test ! -e "$(dra_spec $U5)"

# --- bad claims: each answered with its own error, the good one prepared ------------
U6=66666666-6666-4666-8666-666666666666
U7=77777777-7777-4777-8777-777777777777
U8=88888888-8888-4888-8888-888888888888
U9=99999999-9999-4999-8999-999999999999
dra_claim default unallocated $U7 none
dra_claim default replaced $U8 "[$(dra_result nic mlx5-1-port1)]"
dra_claim default good $U9 "[$(dra_result nic mlx5-1-port1)]"
out=$(dra_prepare v1.DRAPlugin default/missing/$U6 default/unallocated/$U7 \
	default/replaced/aaaaaaaa-0000-4000-8000-000000000000 default/good/$U9)
check_eq "bad claims: no gRPC error, every claim answered" \
	"$(jq -c '[.grpc_error, .missing, (.claims | length)]' <<<"$out")" '[null,[],4]'
check "a claim missing from the source: not found" \
	grep -q "claim default/missing not found" <<<"$(jq -r ".claims[\"$U6\"].error" <<<"$out")"
check "a claim with no allocation: not allocated" \
	grep -q "not allocated" <<<"$(jq -r ".claims[\"$U7\"].error" <<<"$out")"
check "a replaced claim (UID differs): refused, naming both UIDs" \
	grep -q "UID aaaaaaaa-0000-4000-8000-000000000000.*UID $U8" \
	<<<"$(jq -r '.claims["aaaaaaaa-0000-4000-8000-000000000000"].error' <<<"$out")"
check_eq "... and the good claim beside them prepared" \
	"$(jq -c "[.claims[\"$U9\"].error, .claims[\"$U9\"].devices[0].device]" <<<"$out")" '["","mlx5-1-port1"]'
dra_claim default foreign $U5 "[$(dra_result nic mlx5-0-port1 other.example.com)]"
out=$(dra_prepare v1.DRAPlugin default/foreign/$U5)
check "a claim with no device of this driver: refused" \
	grep -q "no device of driver $DRA_DRIVER" <<<"$(jq -r ".claims[\"$U5\"].error" <<<"$out")"
dra_claim default nodev $U5 "[$(dra_result nic mlx5-9-port1)]"
out=$(dra_prepare v1.DRAPlugin default/nodev/$U5)
check "a device this node does not have: refused" \
	grep -q "mlx5-9-port1 of request nic: no such device" <<<"$(jq -r ".claims[\"$U5\"].error" <<<"$out")"
check_eq "refusals leave no spec" "$(ls "$DRA_CDI" | sort | tr '\n' ' ')" \
	"rdmanet.io-claim_$U1.json rdmanet.io-claim_$U2.json rdmanet.io-claim_$U3.json rdmanet.io-claim_$U4.json rdmanet.io-claim_$U9.json "

# --- agent restart between prepare and unprepare -------------------------------------
rn_agent_stop
check "agent stopped: its sockets removed" test ! -e "$DRA_SOCK"
check "agent restarts" rn_agent_start "$RN_TMP/config.json"
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "restarted agent: registered again" "$(jq -r .error <<<"$reg")" null
cp "$(dra_spec $U4)" "$RN_TMP/spec-before.json"
rm "$(dra_spec $U4)"	# /var/run/cdi is a tmpfs: a reboot loses the specs
out=$(dra_prepare v1.DRAPlugin default/vf1/$U4)
check_eq "restarted agent: a prepared claim answers as before" \
	"$(jq -c "[.claims[\"$U4\"].error, .claims[\"$U4\"].devices[0].cdi[0]]" <<<"$out")" \
	"[\"\",\"rdmanet.io/claim=$U4-vf-0000-3b-00-2\"]"
check "... its lost CDI spec written again, the same" cmp -s "$(dra_spec $U4)" "$RN_TMP/spec-before.json"
out=$(dra_unprepare v1.DRAPlugin default/vf1/$U4 default/shared1/$U1)
check_eq "restarted agent: unprepare answers every claim, no error" \
	"$(jq -c '[.grpc_error, .missing, [.claims[].error]]' <<<"$out")" '[null,[],["",""]]'
check "unprepared VF claim: its hold released" test ! -e "$hold"
check "unprepared claims: their specs removed" test ! -e "$(dra_spec $U4)" -a ! -e "$(dra_spec $U1)"
out=$(dra_unprepare v1beta1.DRAPlugin default/vf1/$U4)
check_eq "unprepare again (v1beta1): done, no error" \
	"$(jq -c "[.grpc_error, .claims[\"$U4\"].error]" <<<"$out")" '[null,""]'
dra_claim default vf2 $U5 "[$(dra_result nic vf-0000-3b-00-2)]"
out=$(dra_prepare v1.DRAPlugin default/vf2/$U5)
check_eq "the released VF: another claim gets it" \
	"$(jq -r ".claims[\"$U5\"].error" <<<"$out")" ""
check_eq "state file: the claims still prepared" \
	"$(jq -c '.claims | keys' "$DRA_STATE/prepared.json")" "[\"$U2\",\"$U3\",\"$U5\",\"$U9\"]"

# --- kill -9: the sockets stay behind, a new agent serves over them --------------------
kill -9 "$RN_AGENT_PID"
wait "$RN_AGENT_PID" 2>/dev/null
check "agent killed (-9): its sockets left behind" test -S "$DRA_SOCK"
check "agent starts again over them" rn_agent_start "$RN_TMP/config.json"
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "after kill -9: registered again" "$(jq -r .error <<<"$reg")" null
out=$(dra_prepare v1.DRAPlugin default/good/$U9)
check_eq "after kill -9: a prepared claim answers from the state file" \
	"$(jq -c "[.claims[\"$U9\"].error, .claims[\"$U9\"].devices[0].device]" <<<"$out")" '["","mlx5-1-port1"]'

# --- kubelet restart: it cleans plugins_registry and finds the driver again -------------
rm -f "$DRA_KUBELET/plugins_registry/"*
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver "$DRA_DRIVER")
check_eq "kubelet restart: the registration socket is served again, registered" \
	"$(jq -r .error <<<"$reg")" null
check_eq "... registered four times in all (start, agent restart, kill -9, kubelet restart)" \
	"$(grep -c "DRA driver $DRA_DRIVER: registered with kubelet" "$RN_TMP/agent.log")" 4
out=$(dra_unprepare v1.DRAPlugin team-a/shared2/$U2 team-b/shared3/$U3 default/good/$U9 default/vf2/$U5)
check_eq "after the kubelet restart: the claims unprepared" \
	"$(jq -c '[.grpc_error, [.claims[].error]]' <<<"$out")" '[null,["","","",""]]'
check_eq "nothing left: no spec, no hold, no claim recorded" \
	"$(ls "$DRA_CDI" | wc -l) $(ls "$DRA_HOLDS/sriov/"*.json 2>/dev/null | wc -l) $(jq -c '.claims' "$DRA_STATE/prepared.json")" \
	"0 0 {}"

# --- config reload: the section turned off, then on again with another driver name ------
# wait_for COMMAND...: until it succeeds (20 s at most)
wait_for() { for _ in $(seq 200); do "$@" && return 0; sleep 0.1; done; return 1; }
dra_config "$RN_TMP/config.json" '"enabled": false'
check "reload, enabled false: the DRA sockets go" \
	wait_for eval '[ ! -e "$DRA_SOCK" ] && [ ! -e "$DRA_KUBELET/plugins_registry/$DRA_DRIVER-reg.sock" ]'
check "... the agent says so (it logs after the sockets are gone)" wait_for grep -q "DRA driver stopped" "$RN_TMP/agent.log"
dra_config "$RN_TMP/config.json" '"driver": "roce.example.com"'
reg=$(dra_kubelet register --registry "$DRA_KUBELET/plugins_registry" --driver roce.example.com)
check_eq "reload, another driver name: registered under it, its own socket" \
	"$(jq -r '[.error, .name, .endpoint] | tostring' <<<"$reg")" \
	"[null,\"roce.example.com\",\"$DRA_KUBELET/plugins/roce.example.com/dra.sock\"]"
check "the data path kept running" eval 'rn_ctl stats -j >/dev/null'
tap_done
