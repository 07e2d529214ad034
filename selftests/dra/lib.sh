# shellcheck shell=bash
# The DRA driver against the kubelet stand-in (kubelet_dra.py, a real gRPC
# peer written from kubelet's .proto files) and a scheduler stand-in (these
# functions: ResourceClaim objects with their allocation, written where
# the driver's directory claim source reads them). No real kubelet, API
# server or scheduler runs.
#
#   dra_config FILE [EXTRA_DRA_KEYS] [EXTRA_TOP_KEYS]  an agent config with
#                                      a "dra" section
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
	mkdir -p "$DRA_KUBELET/plugins_registry" "$DRA_CLAIMS"
	rn_agent_config "$1" monitor "" "\"rdma\": { \"sysfs_root\": \"$RN_TMP/host/sys\" },
  \"cni\": { \"state_dir\": \"$DRA_HOLDS\" },
  \"dra\": { \"kubelet_dir\": \"$DRA_KUBELET\", \"claims_dir\": \"$DRA_CLAIMS\",
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
