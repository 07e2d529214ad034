#!/bin/bash
# What deploy/ ships is valid for a real API server: every overlay under
# deploy/overlays/ rendered by kubectl's kustomize (what `kubectl apply -k`
# sends) and every example under deploy/examples/, each object against the
# Kubernetes OpenAPI definitions (npm kubernetes-models, installed from
# the committed lock file with `npm ci`), plus the rules a schema cannot
# say (selftests/deploy/rules.js). Each rule is then proved to fire: the
# real manifests broken one way per rule (mutations.js) must fail with
# that rule's name.
. "$RN_SRC/selftests/lib/tap.sh"
SRC=$RN_SRC/selftests/deploy
WORK=$RN_BUILD/deploy-checks
mkdir -p "$WORK"
cp "$SRC"/package.json "$SRC"/package-lock.json "$SRC"/*.js "$SRC"/*.mjs "$WORK"/
command -v node >/dev/null && command -v npm >/dev/null ||
	{ tap_fail "node and npm (make deps installs Debian's nodejs and npm)"; tap_done; }
# node trusts its own CA list; the system's (with any CA the admin added)
# is what the machine's TLS trust is
if ! (cd "$WORK" && NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
	npm ci --no-audit --no-fund --prefer-offline >npm.log 2>&1); then
	tail -5 "$WORK/npm.log" | sed 's/^/# /'
	tap_fail "npm ci of kubernetes-models from selftests/deploy/package-lock.json"
	tap_done
fi
echo "# kubernetes-models $(cd "$WORK" && node -p 'require("kubernetes-models/package.json").version'), node $(node --version)"
CHECK=(node "$WORK/check.js")
command -v kubectl >/dev/null || { tap_fail "kubectl (make deps installs Debian's kubernetes-client)"; tap_done; }
mkdir -p "$WORK/rendered"
rm -f "$WORK/rendered"/*.yaml
for o in "$RN_SRC"/deploy/overlays/*/; do
	name=$(basename "$o")
	# kubectl >= 1.21 notes that "bases" and "patchesStrategicMerge" are
	# deprecated (kept: kubectl < 1.21 knows no other way)
	kubectl kustomize "$o" >"$WORK/rendered/$name.yaml" 2>"$WORK/rendered/$name.err"
	check_eq "kubectl kustomize deploy/overlays/$name renders" "$? $(grep -vE "'(bases|patchesStrategicMerge)' is deprecated" "$WORK/rendered/$name.err")" "0 "
	check_eq "overlay $name: exactly the agent (Namespace, ConfigMap, DaemonSet)" \
		"$(grep -E '^kind: ' "$WORK/rendered/$name.yaml" | sort | xargs)" \
		"kind: ConfigMap kind: DaemonSet kind: Namespace"
	# the image the manifests name is this build's version, never latest
	check_eq "overlay $name: the image is rdmanet/rdmanet:$(make -s -C "$RN_SRC" print-version)" \
		"$(grep -E '^ +image: ' "$WORK/rendered/$name.yaml" | sort -u | awk '{print $2}' | xargs)" \
		"rdmanet/rdmanet:$(make -s -C "$RN_SRC" print-version)"
done
kubectl kustomize "$RN_SRC/deploy/uninstall" >"$WORK/rendered-uninstall.yaml" 2>/dev/null
check_eq "kubectl kustomize deploy/uninstall renders" "$?" 0
check_eq "deploy/uninstall: the image is rdmanet/rdmanet:$(make -s -C "$RN_SRC" print-version)" \
	"$(grep -E '^ +image: ' "$WORK/rendered-uninstall.yaml" | sort -u | awk '{print $2}' | xargs)" \
	"rdmanet/rdmanet:$(make -s -C "$RN_SRC" print-version)"
# rdmanet's etcd for cluster IPAM (deploy/etcd, applied on its own)
kubectl kustomize "$RN_SRC/deploy/etcd" >"$WORK/rendered-etcd.yaml" 2>"$WORK/rendered-etcd.err"
check_eq "kubectl kustomize deploy/etcd renders" "$? $(cat "$WORK/rendered-etcd.err")" "0 "
check_eq "deploy/etcd: the etcd and nothing else (Services, StatefulSet, PDB)" \
	"$(grep -E '^kind: ' "$WORK/rendered-etcd.yaml" | sort | xargs)" \
	"kind: PodDisruptionBudget kind: Service kind: Service kind: StatefulSet"
# the DRA driver's permissions (deploy/dra, applied beside an overlay)
kubectl kustomize "$RN_SRC/deploy/dra" >"$WORK/rendered-dra.yaml" 2>"$WORK/rendered-dra.err"
check_eq "kubectl kustomize deploy/dra renders" "$? $(cat "$WORK/rendered-dra.err")" "0 "
flat=$(tr -s ' \n' ' ' <"$WORK/rendered-dra.yaml")
check "deploy/dra: exactly the ResourceSlice verbs the driver uses (get list create update delete)" \
	grep -qF -- "- apiGroups: - resource.k8s.io resources: - resourceslices verbs: - get - list - create - update - delete ---" <<<"$flat"
check "deploy/dra: get on resourceclaims only (the claims kubelet names, read from the API server)" \
	grep -qF -- "- apiGroups: - resource.k8s.io resources: - resourceclaims verbs: - get -" <<<"$flat"
check "deploy/dra: patch on resourceclaims/status only (the claims' networkData, server-side apply)" \
	grep -qF -- "- apiGroups: - resource.k8s.io resources: - resourceclaims/status verbs: - patch -" <<<"$flat"
check "deploy/dra: bound to the service account the agent's pods run as, in its namespace" \
	grep -qF -- "subjects: - kind: ServiceAccount name: default namespace: $(awk '/^  name: / { print $2; exit }' "$RN_SRC/deploy/base/namespace.yaml")" <<<"$flat"
MANIFESTS=("$WORK"/rendered/*.yaml "$WORK/rendered-uninstall.yaml" "$RN_SRC"/deploy/examples/*.yaml "$WORK/rendered-etcd.yaml" "$WORK/rendered-dra.yaml")
MANIFESTS=($(ls "${MANIFESTS[@]}" 2>/dev/null))

out=$("${CHECK[@]}" "${MANIFESTS[@]}" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check_eq "deploy/: every overlay and example, schema and rules clean" "$rc" 0
for f in "${MANIFESTS[@]}"; do
	# each file alone too (but a pod's networks may live in another file)
	o=$("${CHECK[@]}" "$f" 2>&1 | grep -v ': network-exists:' | grep -c ': [a-z-]*: ')
	check_eq "$(basename "$f"): valid alone" "$o" 0
done
# the DRA objects (deploy/dra's DeviceClasses, the dra-* examples) against
# Kubernetes 1.34's definitions and against what the driver publishes on
# the ConnectX-5 SR-IOV fixture (those ResourceSlices checked too)
"$RN_BUILD/tools/dra_slices" --sysfs "$RN_SRC/selftests/fixtures/sysfs/cx5_sriov/sys" --node node-a \
	--print >"$WORK/dra-slices.json"
DRA_CHECK=(node "$WORK/dra_check.mjs" "$WORK/dra-slices.json")
DRA_FILES=("$WORK/rendered-dra.yaml" "$RN_SRC"/deploy/examples/dra-*.yaml)
out=$("${DRA_CHECK[@]}" "${DRA_FILES[@]}" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check_eq "DRA: DeviceClasses, claim templates and pods valid for 1.34, naming only what the driver publishes; its ResourceSlices valid" \
	"$rc" 0
check_eq "  ... the checker saw the classes, the templates and the slices" \
	"$(cat "$WORK/rendered-dra.yaml" "$RN_SRC"/deploy/examples/dra-*.yaml | grep -cE '^kind: (DeviceClass|ResourceClaimTemplate)$') $(jq length "$WORK/dra-slices.json")" \
	"5 1"
# each rule fires: the shipped files broken one way per rule
dra_broken() {	# RULE SED-EXPR: the files through SED-EXPR fail with RULE
	local f out
	mkdir -p "$WORK/dra-broken"
	rm -f "$WORK/dra-broken"/*
	for f in "${DRA_FILES[@]}"; do sed -e "$2" "$f" >"$WORK/dra-broken/$(basename "$f")"; done
	out=$("${DRA_CHECK[@]}" "$WORK"/dra-broken/*.yaml 2>&1)
	check "DRA rule $1 fires ($2)" grep -q ": $1: " <<<"$out"
}
dra_broken schema 's/deviceClassName: rdma-vf.rdmanet.io/deviceClassNam: rdma-vf.rdmanet.io/'
dra_broken dra-attribute 's/\.linkLayer ==/.linklayer ==/'
dra_broken dra-value 's/== "vf"/== "VF"/'
dra_broken dra-class 's/deviceClassName: rdma-vf.rdmanet.io/deviceClassName: rdma-vf.example.com/'
dra_broken dra-match 's|matchAttribute: resource.kubernetes.io/pcieRoot|matchAttribute: resource.kubernetes.io/pciRoot|'
dra_broken dra-capacity 's/requests: { pods: "1" }/requests: { vfs: "1" }/'
dra_broken dra-config 's/kind: NetworkConfig/kind: NetworkConf/'
dra_broken dra-config 's/dscp: 26/dscp: 64/'
dra_broken dra-config 's/requests: \["nic"\]/requests: ["nics"]/'

check "the DaemonSet is not privileged" \
	bash -c '! grep -q "privileged: true" "$0"' "$RN_SRC/deploy/base/rdmanetd-daemonset.yaml"

# the node configs the manifests carry, through rdmanetd's own parser
mkdir -p "$WORK/node-configs"
while read -r cfg; do
	out=$("$RN_BUILD/bin/rdmanetd" --check-config --cluster --config "$cfg" 2>&1)
	rc=$?
	if [ $rc != 0 ] && echo "$out" | grep -q 'unknown key "device_plugin"'; then
		# the device_plugin section is parsed by the device plugin's code
		# (user/lib/devplugin); a build without it cannot judge the file
		tap_skip "$(basename "$cfg"): rdmanetd accepts it" "this build has no device_plugin section"
	else
		echo "# $out"
		check_eq "$(basename "$cfg"): rdmanetd accepts it" "$rc" 0
	fi
done < <("${CHECK[@]}" --extract-node-configs "$WORK/node-configs" "${MANIFESTS[@]}")
echo '{ "qos": { "roce_dscp": 99 } }' >"$WORK/node-configs/broken.json"
out=$("$RN_BUILD/bin/rdmanetd" --check-config --config "$WORK/node-configs/broken.json" 2>&1)
check_eq "a broken node config is refused by --check-config, naming the key" \
	"$(echo "$out" | grep -c 'qos.roce_dscp')" 1

# the etcd the rails-8 overlay's agents lean on: 3 members, TLS for
# clients and peers, a PDB, one member per node, requests, a headless
# Service whose member names are the agents' endpoints, and the agents'
# client certificate on the host (etcd_check.js); each rule proved to fire
ETCD_CHECK=(node "$WORK/etcd_check.js")
out=$("${ETCD_CHECK[@]}" "$WORK/rendered-etcd.yaml" "$WORK/rendered/rails-8.yaml" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check_eq "deploy/etcd and the rails-8 overlay: 3 members, TLS, PDB, anti-affinity, requests, endpoints = member names, client cert on the host" "$rc" 0
while read -r name rule; do
	out=$("${ETCD_CHECK[@]}" --mutate "$name" "$WORK/rendered-etcd.yaml" "$WORK/rendered/rails-8.yaml" 2>&1)
	rc=$?
	if [ "$rc" = 1 ] && echo "$out" | grep -q "^$rule: "; then
		tap_ok "etcd broken ($name) is rejected by $rule: $(echo "$out" | grep -m1 "^$rule: " | sed "s/^$rule: //" | cut -c1-120)"
	else
		echo "$out" | sed 's/^/# /'
		tap_fail "etcd broken ($name) is rejected by $rule (exit $rc)"
	fi
done < <("${ETCD_CHECK[@]}" --list-mutations)

while read -r name rule; do
	out=$("${CHECK[@]}" --mutate "$name" "${MANIFESTS[@]}" 2>&1)
	rc=$?
	hits=$(echo "$out" | grep -c ": $rule: ")
	if [ "$rc" = 1 ] && [ "$hits" -ge 1 ]; then
		tap_ok "broken ($name) is rejected by $rule: $(echo "$out" | grep -m1 ": $rule: " | sed 's/.*: '"$rule"': //')"
	else
		echo "$out" | sed 's/^/# /'
		tap_fail "broken ($name) is rejected by $rule (exit $rc, $hits hit(s))"
	fi
done < <("${CHECK[@]}" --list-mutations)
tap_done
