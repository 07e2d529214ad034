# shellcheck shell=bash
# The DRA driver against the kubelet stand-in (kubelet_dra.py, a real gRPC
# peer written from kubelet's .proto files) and a scheduler stand-in (these
# functions: ResourceClaim objects with their allocation, written where
# the driver's directory claim source reads them, or created at the
# API-server stand-in). No real kubelet, API server or scheduler runs.
#
#   dra_config FILE [EXTRA_DRA_KEYS] [EXTRA_TOP_KEYS]  an agent config with
#                                      a "dra" section: claims from
#                                      DRA_CLAIMS, or, after dra_api_start,
#                                      from the API-server stand-in
#   dra_api_start DIR                  the API-server stand-in
#                                      (kubeapi/lib/standin.sh) in DIR, on
#                                      the loopback of the node's netns
#                                      (the agent's); sets DRA_KUBECONFIG
#   dra_claim_api NS NAME [RESULTS] [POD_UIDS]  the scheduler creates claim
#                                      NS/NAME at the stand-in (POST) and
#                                      writes its allocation through
#                                      /status as dra_claim does ("none":
#                                      not allocated); prints the UID the
#                                      server gave it
#   dra_claim NS NAME UID [RESULTS] [POD_UIDS]  the scheduler writes claim
#                                      NS/NAME; RESULTS a JSON array of
#                                      {request, driver, pool, device};
#                                      "none": no status.allocation;
#                                      POD_UIDS (space-separated): the pods
#                                      in status.reservedFor
#   dra_kubelet ARGS...               one kubelet_dra.py command (JSON out)
#   dra_prepare SERVICE NS/NAME/UID...   NodePrepareResources (JSON out)
#   dra_unprepare SERVICE NS/NAME/UID... NodeUnprepareResources
DRA_PY=/usr/bin/python3
DRA_DRIVER=rdma.rdmanet.io
DRA_POOL=node-a
DRA_KUBELET=$RN_TMP/kubelet
DRA_CLAIMS=$RN_TMP/claims
DRA_STATE=$RN_TMP/dra-state
DRA_CDI=$RN_TMP/cdi
DRA_HOLDS=$RN_TMP/cni
DRA_SOCK=$DRA_KUBELET/plugins/$DRA_DRIVER/dra.sock

dra_config() {
	local source="\"claims_dir\": \"$DRA_CLAIMS\""
	[ -n "${DRA_KUBECONFIG:-}" ] && source="\"kubeconfig\": \"$DRA_KUBECONFIG\""
	mkdir -p "$DRA_KUBELET/plugins_registry" "$DRA_CLAIMS"
	rn_agent_config "$1" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"cni\": { \"state_dir\": \"$DRA_HOLDS\" },
  \"dra\": { \"kubelet_dir\": \"$DRA_KUBELET\", $source,
            \"state_dir\": \"$DRA_STATE\", \"cdi_dir\": \"$DRA_CDI\",
            \"pool\": \"$DRA_POOL\"${2:+, $2} }${3:+,
  $3}"
}

# dra_result REQUEST DEVICE [DRIVER] [POOL]: one allocation result
dra_result() {
	jq -nc --arg r "$1" --arg d "$2" --arg drv "${3:-$DRA_DRIVER}" --arg p "${4:-$DRA_POOL}" \
		'{request: $r, driver: $drv, pool: $p, device: $d}'
}

# status.reservedFor for pod UIDs $1 (space-separated): what the scheduler
# writes when it reserves the claim for them
dra_reserved() {
	local u
	for u in $1; do
		jq -nc --arg u "$u" '{resource: "pods", name: ("pod-" + $u[0:8]), uid: $u}'
	done | jq -sc .
}

dra_claim() {
	local ns=$1 name=$2 uid=$3 results=${4:-[]} pods=${5:-} f
	mkdir -p "$DRA_CLAIMS/$ns"
	f=$DRA_CLAIMS/$ns/$name.json
	if [ "$results" = none ]; then
		jq -n --arg ns "$ns" --arg n "$name" --arg u "$uid" \
			'{apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim",
			  metadata: {namespace: $ns, name: $n, uid: $u},
			  spec: {devices: {requests: [{name: "nic", exactly: {deviceClassName: "rdma"}}]}},
			  status: {}}' >"$f.tmp"
	else
		jq -n --arg ns "$ns" --arg n "$name" --arg u "$uid" --argjson r "$results" \
			'{apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim",
			  metadata: {namespace: $ns, name: $n, uid: $u},
			  spec: {devices: {requests: [$r[] | {name: .request,
				exactly: {deviceClassName: "rdma"}}] | unique}},
			  status: {allocation: {devices: {results: $r}}}}' >"$f.tmp"
	fi
	if [ -n "$pods" ]; then
		jq --argjson p "$(dra_reserved "$pods")" '.status.reservedFor = $p' "$f.tmp" >"$f.tmp2" &&
			mv "$f.tmp2" "$f.tmp"
	fi
	mv "$f.tmp" "$f"
}

# dra_fixture_netdevs [vf]: the cx5_sriov fixture's netdevs live in the
# node netns, each a veth to the peer: the PF ens1f0np0 (mlx5_0 port 1,
# up) and, with "vf", VF 0's ens1f0v0
dra_fixture_netdevs() {
	ip -n "$RN_NODE" link add ens1f0np0 type veth peer name ens1f0peer netns "$RN_PEER"
	ip -n "$RN_NODE" link set ens1f0np0 up
	ip -n "$RN_PEER" link set ens1f0peer up
	[ "${1:-}" != vf ] ||
		ip -n "$RN_NODE" link add ens1f0v0 type veth peer name ens1f0v0peer netns "$RN_PEER"
}

dra_api_start() {
	. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
	rn_in_node ip link set lo up
	STANDIN_RUN="nsenter --net=/run/netns/$RN_NODE"
	mkdir -p "$1" && standin_start "$1" || return 1
	DRA_KUBECONFIG=$1/kubeconfig
	standin_kubeconfig "$1" "$DRA_KUBECONFIG"
}

# dra_kube METHOD PATH [BODY]: one request to the stand-in as the
# scheduler (kube_request: status line, then the answer)
dra_kube() { rn_in_node "$RN_BUILD/tools/kube_request" --kubeconfig "$DRA_KUBECONFIG" "$@"; }

dra_claim_api() {
	local ns=$1 name=$2 results=${3:-[]} pods=${4:-} f=$RN_TMP/claim-api.json
	local path=/apis/resource.k8s.io/v1/namespaces/$ns/resourceclaims claim
	# the requests the allocation names ("nic" when it names none)
	jq -n --arg n "$name" --argjson r "$([ "$results" = none ] && echo [] || echo "$results")" \
		'{apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim", metadata: {name: $n},
		  spec: {devices: {requests: ([$r[].request] + (if $r == [] then ["nic"] else [] end)
			| unique | map({name: ., exactly: {deviceClassName: "rdma"}}))}}}' >"$f"
	claim=$(dra_kube POST "$path" "$f" | sed -n 2p) || return 1
	if [ "$results" != none ]; then
		jq --argjson r "$results" --argjson p "$(dra_reserved "$pods")" \
			'.status = {allocation: {devices: {results: $r}}}
			 | if $p == [] then . else .status.reservedFor = $p end' <<<"$claim" >"$f"
		dra_kube PUT "$path/$name/status" "$f" >/dev/null || return 1
	fi
	jq -r .metadata.uid <<<"$claim"
}

dra_kubelet() {
	$DRA_PY "$RN_SRC/selftests/dra/kubelet_dra.py" --gen "$RN_BUILD/selftests/dra/stubs" "$@"
}

dra_prepare() {
	local svc=$1 args=() c
	shift
	for c in "$@"; do args+=(--claim "$c"); done
	dra_kubelet prepare --endpoint "$DRA_SOCK" --service "$svc" "${args[@]}"
}

dra_unprepare() {
	local svc=$1 args=() c
	shift
	for c in "$@"; do args+=(--claim "$c"); done
	dra_kubelet unprepare --endpoint "$DRA_SOCK" --service "$svc" "${args[@]}"
}

# the CDI spec of a claim
dra_spec() { echo "$DRA_CDI/rdmanet.io-claim_$1.json"; }
