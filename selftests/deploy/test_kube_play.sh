#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The DaemonSet runs as written on a real container engine: `make image`
# builds the image with podman, then the hca-shared overlay's pod template,
# rendered by kubectl kustomize, is played with `podman kube play` in a
# netns node (a veth master), beside a fake kubelet:
#  - the init container installs the CNI plugin into the host's CNI dir;
#  - rdmanetd, with the manifest's capabilities, seccomp and mounts,
#    attaches, publishes its config to the host, writes the textfile,
#    registers its device plugin (plugin watcher) on a ConnectX-5 fixture;
#  - a pod attached by the host-installed plugin (run as kubelet runs it,
#    on the host) is counted by the agent in its container;
#  - a VF hold naming a live pod's netns survives the agent's sweeps (the
#    pods' netns reach the container through the manifest's /run/netns mount);
#  - its DRA driver (a "dra" section in the ConfigMap, nothing else added)
#    registers through plugins_registry, serves on its socket in
#    plugins/<driver>, prepares a claim it GETs from the API-server
#    stand-in in-cluster, with its CDI spec in the host's /var/run/cdi, and
#    unprepares it (kubelet_dra.py as the kubelet), and
#    publishes the node's ResourceSlices in-cluster (the service account
#    kubelet would mount) to an API-server stand-in that validates them;
#  - the probes' commands pass; with the agent stopped (SIGSTOP) the
#    liveness command fails;
#  - SIGTERM (podman pod stop with the manifest's grace) leaves the data path
#    attached; the image of the next version (another version and BPF code)
#    takes over: counters go on without a gap, its programs are attached;
#  - deploy/uninstall leaves nothing of rdmanet on the node.
# What podman cannot do as Kubernetes does is changed and said here, and
# only that (selftests/deploy/kube_pod.js): the pod template played as a
# Pod, restartPolicy OnFailure (podman reruns init containers under Always),
# host paths the node owns under a per-run directory (never this machine's
# /opt/cni/bin or /etc), a hostPath this kernel lacks (configfs) dropped,
# the test's node config in the ConfigMap, the sysfs fixture mounted in,
# the service account token and KUBERNETES_SERVICE_* kubelet would give.
# podman maps only livenessProbe to its healthcheck and runs none by itself
# here (no systemd): the test runs the healthcheck and the readiness
# command as kubelet would.
. "$RN_SRC/selftests/lib/tap.sh"
. "$RN_SRC/selftests/lib/netns.sh"
. "$RN_SRC/selftests/kubeapi/lib/standin.sh"
V=$(make -s -C "$RN_SRC" print-version)
IMG=rdmanet/rdmanet:$V
IMG_NEXT=rdmanet/rdmanet:$V-next-$RN_PFX
POD=rdmanetd-$RN_PFX
UPOD=rdmanet-uninstall-$RN_PFX
C=$POD-rdmanetd
KP=$RN_TMP/kp
ROOT=$RN_TMP/root		# the node's own paths (/opt/cni/bin, /etc/rdmanet...)
WORK=$RN_BUILD/deploy-checks
PODMAN=(podman --runtime runc)
DP_PY=/usr/bin/python3
KUBELET_PID=

made=()
pod_rm() {	# pod_rm POD: the pod and the volumes podman keeps after it
	"${PODMAN[@]}" pod rm -f -t 0 "$1" >/dev/null 2>&1
	"${PODMAN[@]}" volume ls -q | grep "^$1-" | xargs -r "${PODMAN[@]}" volume rm -f >/dev/null 2>&1
}
cleanup() {
	pod_rm "$POD"
	standin_stop
	pod_rm "$UPOD"
	"${PODMAN[@]}" rmi -f "$IMG_NEXT" >/dev/null 2>&1
	[ -n "$KUBELET_PID" ] && pkill -P "$KUBELET_PID" 2>/dev/null; kill "$KUBELET_PID" 2>/dev/null
	local d
	for d in "${made[@]}"; do rmdir "$d" 2>/dev/null; done
	rn_topo_down
}
trap cleanup EXIT
command -v podman >/dev/null && command -v runc >/dev/null ||
	{ tap_fail "podman and runc (make deps)"; tap_done; }
mkdir -p "$KP" "$ROOT" "$WORK"

# --- the image (make image: podman build, then each binary run in it) -----------
log=$RN_TMP/image.log
if ! make -s -C "$RN_SRC" image IMAGE="$IMG" >"$log" 2>&1; then
	tail -20 "$log" | sed 's/^/# /'
	tap_fail "make image"
	tap_done
fi
grep '^image: ' "$log" | sed 's/^/# /'
tap_ok "make image: $IMG built, every binary runs in it"

# node's YAML package (selftests/deploy's lock file)
if [ ! -d "$WORK/node_modules/yaml" ]; then
	cp "$RN_SRC"/selftests/deploy/package*.json "$WORK"/
	(cd "$WORK" && NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt \
		npm ci --no-audit --no-fund --prefer-offline >npm.log 2>&1) ||
		{ tap_fail "npm ci (selftests/deploy)"; tap_done; }
fi
# podman needs the limits said (this machine's defaults are refused)
export CONTAINERS_CONF=$KP/containers.conf
cat >"$CONTAINERS_CONF" <<EOF2
[containers]
default_ulimits = ["nofile=$(ulimit -n):$(ulimit -Hn)", "nproc=4096:4096"]
EOF2

# --- the node ----------------------------------------------------------------
rn_topo_up || { tap_fail "create network namespaces (root, iproute2)"; tap_done; }
NS=/run/netns/$RN_NODE
cp -a "$RN_SRC/selftests/fixtures/sysfs/cx5_sriov" "$KP/fixture"
# a pod that holds VF 5 (0000:3b:00.7) of the fixture's PF: live netns
ip netns add "$RN_PFX-vfpod"
echo "$RN_PFX-vfpod" >>"$RN_TMP/pods.list"
VFNS=/run/netns/$RN_PFX-vfpod
read -r dev ino < <(stat -L -c '%d %i' "$VFNS")
HOLD=$ROOT/var/lib/rdmanet/cni/sriov/0000:3b:00.7.json
mkdir -p "${HOLD%/*}"
cat >"$HOLD" <<JSON
{ "pci": "0000:3b:00.7", "pf": "ens1f0np0", "vf": 5, "network": "rail1", "container_id": "c0ffee5",
  "ifname": "net1", "netns": "$VFNS", "netns_id": { "dev": $dev, "ino": $ino },
  "pod_namespace": "default", "pod_name": "rdma-pod", "since": 1764000000, "complete": true,
  "rdma_moved": true,
  "original": { "netdev": "ens1f0v5", "mtu": 1500, "mac": "02:00:00:00:00:05",
                "rdma_dev": "mlx5_7", "admin": null } }
JSON
cp "$HOLD" "$KP/hold.before"

# the API server (a stand-in that validates what it is sent) on the node's
# loopback, and the service account token kubelet would mount: the agent
# finds it in-cluster, as in a cluster, and publishes its ResourceSlices
nsenter --net="$NS" ip link set lo up
mkdir -p "$KP/api" "$KP/sa"
STANDIN_RUN="nsenter --net=$NS"
if standin_start "$KP/api"; then
	cp "$KP/api/cluster-ca.pem" "$KP/sa/ca.crt"
	printf token-one >"$KP/sa/token"
	printf rdmanet-system >"$KP/sa/namespace"
	standin_kubeconfig "$KP/api" "$KP/kubeconfig"
	export KUBE_SA_DIR=$KP/sa KUBE_SERVICE_HOST=127.0.0.1 KUBE_SERVICE_PORT=$STANDIN_PORT
else
	tap_fail "the API-server stand-in starts ($(tail -n 2 "$KP/api/standin.err" 2>/dev/null))"
fi

# the overlay's config, for this node: its veth master, a pool on its
# subnet, its own pin dir, the fixture as sysfs, ticks every 2 s
jq --arg pin "$RN_PIN" --arg node "$RN_PFX" '
	.node = $node | .masters = [{ ifname: "roce0", policy: "monitor" }]
	| .pools = [{ name: "rail1-v4", subnet: "10.77.0.0/24", ips: ["10.77.0.10-10.77.0.50"],
		      gateway: "10.77.0.100", masters: ["roce0"], nodes: [$node] }]
	| .bpf = { pin_dir: $pin } | .textfile.interval_s = 2
	| .rdma.sysfs_root = "/fixture/sys"
	| .dra = { driver: "rdma.rdmanet.io" }
	| .sriov = [{ pf: "ens1f0np0", numVfs: 12, isRdma: true }]' \
	"$RN_SRC/deploy/overlays/hca-shared/config.json" >"$KP/config.json"
cp "$RN_SRC/selftests/deploy/kube_pod.js" "$WORK/"	# beside its node_modules
play_files() {	# play_files IMAGE: the pod and ConfigMap for IMAGE
	rm -f "$KP/pod.yaml" "$KP/configmap.yaml"
	kubectl kustomize "$RN_SRC/deploy/overlays/hca-shared" >"$KP/rendered.yaml" 2>/dev/null &&
	node "$WORK/kube_pod.js" "$KP/rendered.yaml" "$KP" "$ROOT" "$1" "$KP/config.json" "$POD" \
		"$KP/fixture:/fixture" 2>"$KP/kube_pod.err"
	local rc=$?
	sed 's/^/# /' "$KP/kube_pod.err"
	return $rc
}
play() {
	nsenter --net="$NS" "${PODMAN[@]}" kube play --configmap "$KP/configmap.yaml" "$KP/pod.yaml" \
		>"$KP/play.log" 2>&1 || { sed 's/^/# play: /' "$KP/play.log"; return 1; }
}
agent_pid() { "${PODMAN[@]}" inspect --format '{{.State.Pid}}' "$C"; }
# A command in the agent's container, as kubelet's exec probes run it:
# podman exec. runc exec enters a container through its mount namespace,
# and in a chroot (the fresh root CI runs make test in) runc starts
# containers by chroot rather than pivot_root, so exec lands at the
# namespace's root, outside the container. There (EXEC_OK=0) the same
# command runs by nsenter into the agent's namespaces and root, as runc
# exec would, and podman's own healthcheck (an exec) is not run.
EXEC_OK=1
in_agent() {
	if [ "$EXEC_OK" = 1 ]; then
		"${PODMAN[@]}" exec "$C" "$@"
	else
		nsenter -t "$(agent_pid)" -m -u -i -p -r -w "$@"
	fi
}
health() { in_agent /usr/local/bin/rdmanetctl health --health-file /run/rdmanet/health.json "$@"; }
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do [ $SECONDS -ge $end ] && return 1; sleep 0.5; done
}

# the node's paths at their places for the host's own programs (kubelet,
# and the CNI plugin kubelet runs), in a mount namespace of their own:
# nothing of this machine is touched (mount points made here are removed)
made=()
for d in /etc/rdmanet /var/lib/rdmanet /opt/cni/bin /var/lib/kubelet; do
	[ -d "$d" ] || { mkdir -p "$d" && made+=("$d"); }
done
as_host() {
	local binds="" d
	for d in etc/rdmanet var/lib/rdmanet opt/cni/bin var/lib/kubelet; do
		binds="$binds mount --bind '$ROOT/$d' /$d &&"
	done
	unshare -m --propagation private sh -c "$binds exec \"\$@\"" sh "$@"
}
# the fake kubelet, plugin-watcher mode (the manifest mounts plugins_registry)
mkdir -p "$ROOT/var/lib/kubelet/device-plugins" "$ROOT/var/lib/kubelet/plugins_registry" \
	"$ROOT/etc/rdmanet" "$ROOT/opt/cni/bin"
as_host $DP_PY "$RN_SRC/selftests/devplugin/fake_kubelet.py" --kubelet-dir /var/lib/kubelet \
	--watcher --log "$KP/kubelet.log" >"$KP/kubelet.out" 2>&1 &
KUBELET_PID=$!

check "the overlay's pod template, rendered and made a Pod" play_files "$IMG"
check "podman kube play" play
check "the agent's container runs" wait_for 30 in_agent true
if ! "${PODMAN[@]}" exec "$C" test -x /usr/local/bin/rdmanetctl 2>/dev/null; then
	EXEC_OK=0
	check "podman exec lands outside the container (a chroot): its commands run by nsenter" \
		in_agent test -x /usr/local/bin/rdmanetctl
fi
healthcheck() {	# WHAT STATUS: podman's healthcheck (the manifest's livenessProbe) exits STATUS
	if [ "$EXEC_OK" = 1 ]; then
		check_eq "$1" "$("${PODMAN[@]}" healthcheck run "$C" >/dev/null 2>&1; echo $?)" "$2"
	else
		tap_skip "$1" "podman exec cannot enter the container here (a chroot); the probe's command is checked by nsenter"
	fi
}
agent_log() { "${PODMAN[@]}" logs "$C" 2>&1; }

# --- what the init container and the agent did on the host ---------------------
check "the init container installed the plugin in the host's CNI dir" \
	test -x "$ROOT/opt/cni/bin/rdmanet" -a -x "$ROOT/opt/cni/bin/rdmanet-etcd"
out=$(env -u CNI_COMMAND "$ROOT/opt/cni/bin/rdmanet" 2>&1)
check "  ... the image's plugin, version $V" grep -q "^CNI rdmanet plugin $V " <<<"$out"
# kubelet registers the DRA driver as it finds its socket in plugins_registry
# (kubelet_dra.py here, as the kubelet the agent's readiness waits for): the
# registration socket, then the DRAPlugin socket in the driver's own
# directory under plugins/, both through the manifest's mounts
DRA=(as_host "$DP_PY" "$RN_SRC/selftests/dra/kubelet_dra.py" --gen "$RN_BUILD/selftests/dra/stubs")
DRA_EP=/var/lib/kubelet/plugins/rdma.rdmanet.io/dra.sock
reg=$("${DRA[@]}" register --registry /var/lib/kubelet/plugins_registry \
	--driver rdma.rdmanet.io --socket 'rdma.rdmanet.io-reg.sock' 2>"$KP/dra.err")
check_eq "DRA: registered through plugins_registry, its socket in plugins/rdma.rdmanet.io" \
	"$(jq -r '"\(.error) \(.endpoint) \(.service)"' <<<"$reg")" "null $DRA_EP v1.DRAPlugin"
check "ready: the master attached, the device plugin and the DRA driver registered (the readiness command)" \
	wait_for 60 health --ready
health --ready -j | jq -c '{masters, device_plugin, ready}' | sed 's/^/# health: /'
healthcheck "the liveness probe (podman healthcheck run) passes" 0
check_eq "the config published to the host is the ConfigMap's" \
	"$(jq -S . "$ROOT/etc/rdmanet/config.json" 2>&1)" "$(jq -S . "$KP/config.json")"
PROM=$ROOT/var/lib/node_exporter/textfile_collector/rdmanet.prom
check "the textfile is written to the host" wait_for 10 test -s "$PROM"
check "  ... and names this build" grep -q "^rdmanet_build_info{version=\"$V\"," "$PROM"
klog_has() {	# klog_has JQ_CONDITION: a line of the fake kubelet's log matches
	[ "$(jq -s "map(select($1)) | length" "$KP/kubelet.log" 2>/dev/null)" -gt 0 ] 2>/dev/null
}
check "the device plugin registered with the (fake) kubelet through plugins_registry" \
	wait_for 20 klog_has '.event == "getinfo" and .error == null and .resource == "spidernet.io/hca_shared_devices"'
check "  ... and lists the fixture's HCAs" \
	wait_for 20 klog_has '.event == "list" and (.devices | length) > 0'

# --- the DRA driver in its container, through the manifest's mounts only ---------
# (registered above) kubelet's calls made by kubelet_dra.py on the host's
# paths (as_host); the claim created at the API-server stand-in with its
# allocation (as the scheduler does), which the driver GETs in-cluster; the
# CDI spec in /var/run/cdi
kube() { nsenter --net="$NS" "$RN_BUILD/tools/kube_request" --kubeconfig "$KP/kubeconfig" "$@"; }
CLAIMS=/apis/resource.k8s.io/v1/namespaces/default/resourceclaims
jq -n '{apiVersion: "resource.k8s.io/v1", kind: "ResourceClaim", metadata: {name: "trainer-0-nic"},
	spec: {devices: {requests: [{name: "nic", exactly: {deviceClassName: "rdma"}}]}}}' >"$KP/claim.json"
claim=$(kube POST "$CLAIMS" "$KP/claim.json" 2>>"$KP/dra.err" | sed -n 2p)
U=$(jq -r .metadata.uid <<<"$claim" 2>/dev/null)
jq --arg pool "$RN_PFX" '.status = {allocation: {devices: {results: [{request: "nic",
	driver: "rdma.rdmanet.io", pool: $pool, device: "mlx5-0-port1"}]}}}' <<<"$claim" >"$KP/claim.json"
allocate() { kube PUT "$CLAIMS/trainer-0-nic/status" "$KP/claim.json" >/dev/null 2>>"$KP/dra.err"; }
check "DRA: the claim created at the API-server stand-in, allocated (the scheduler's part)" allocate
out=$("${DRA[@]}" prepare --endpoint "$DRA_EP" --service v1.DRAPlugin \
	--claim "default/trainer-0-nic/$U" 2>>"$KP/dra.err")
check_eq "DRA: NodePrepareResources answers the claim's CDI device" \
	"$(jq -r "[.grpc_error, .claims[\"$U\"].error, .claims[\"$U\"].devices[0].cdi[0]] | @tsv" <<<"$out")" \
	"$(printf '\t\trdmanet.io/claim=%s-mlx5-0-port1' "$U")"
SPEC=$ROOT/var/run/cdi/rdmanet.io-claim_$U.json
check_eq "  ... its CDI spec on the host's /var/run/cdi: the HCA's uverbs, port 1's umad/issm, rdma_cm" \
	"$(jq -r '[.devices[0].containerEdits.deviceNodes[].path] | sort | join(" ")' "$SPEC" 2>&1)" \
	"/dev/infiniband/issm0 /dev/infiniband/rdma_cm /dev/infiniband/umad0 /dev/infiniband/uverbs0"
out=$("${DRA[@]}" unprepare --endpoint "$DRA_EP" --service v1.DRAPlugin \
	--claim "default/trainer-0-nic/$U" 2>>"$KP/dra.err")
check_eq "DRA: NodeUnprepareResources, the spec gone" \
	"$(jq -c "[.grpc_error, .claims[\"$U\"].error]" <<<"$out"):$(test -e "$SPEC" || echo gone)" \
	'[null,""]:gone'
sed 's/^/# dra: /' "$KP/dra.err" | head -5
got_claim() { jq -se --arg p "$CLAIMS/trainer-0-nic" \
	'any(.method == "GET" and .path == $p and .status == 200)' "$KP/api/requests.log" >/dev/null; }
check "  ... the driver read the claim from the API server in-cluster (its GET in the stand-in's log)" got_claim
slices() { nsenter --net="$NS" "$RN_BUILD/tools/kube_request" --kubeconfig "$KP/kubeconfig" \
	GET /apis/resource.k8s.io/v1/resourceslices 2>/dev/null | sed -n 2p; }
published() { [ "$(slices | jq -r --arg p "$RN_PFX" '[.items[].spec.pool.name] == [$p]')" = true ]; }
check "DRA: the node's ResourceSlices published in-cluster (the mounted service account, KUBERNETES_SERVICE_*; the stand-in validated them)" \
	wait_for 30 published
check_eq "  ... with every device of the fixture" "$(slices | jq '[.items[].spec.devices | length] | add')" \
	"$("$RN_BUILD/tools/dra_slices" --sysfs "$KP/fixture/sys" --node x --print | jq '[.[].spec.devices | length] | add')"

# --- a pod attached by the host's plugin, counted by the agent in its container ---
cni() {	# cni COMMAND CONTAINER_ID NETNS POD_NAME: as kubelet runs the plugin
	jq -n '{cniVersion: "1.1.0", name: "rail1", type: "rdmanet", mode: "macvlan",
		master: "roce0", ippools: { ipv4: ["rail1-v4"] }}' >"$KP/nad.json"
	CNI_COMMAND=$1 CNI_CONTAINERID=$2 CNI_NETNS=$3 CNI_IFNAME=net1 CNI_PATH=/opt/cni/bin \
	CNI_ARGS="K8S_POD_NAMESPACE=default;K8S_POD_NAME=$4" \
		nsenter --net="$NS" bash -c "$(declare -f as_host); ROOT='$ROOT' as_host /opt/cni/bin/rdmanet" \
		<"$KP/nad.json"
}
ip netns add "$RN_PFX-a"
echo "$RN_PFX-a" >>"$RN_TMP/pods.list"
res=$(cni ADD kp-a "/run/netns/$RN_PFX-a" trainer-0 2>"$KP/cni.err")
check "CNI ADD through the host-installed plugin" bash -c "jq -e .ips[0].address >/dev/null" <<<"$res"
IP_A=$(jq -r '.ips[0].address' <<<"$res" | cut -d/ -f1)
GEN=$RN_BUILD/tools/rn_udpgen
count() { in_agent /usr/local/bin/rdmanetctl stats -j |
	  jq '[.pods[] | select(.pod == "trainer-0") | .tx.roce.packets] | add // 0'; }
rn_in a "$GEN" --dst 10.77.0.100 --count 100 --size 200 >/dev/null
check_eq "the agent in its container counts the pod's RoCE packets" "$(count)" 100

# --- the VF hold of a live pod survives the sweeps ---------------------------------
# each tick sweeps, then writes the textfile: four new textfiles, three sweeps
ticks=0 last=$(stat -c %.9Y "$PROM")
for _ in $(seq 300); do
	m=$(stat -c %.9Y "$PROM")
	[ "$m" != "$last" ] && ticks=$((ticks + 1)) && last=$m
	[ $ticks -ge 4 ] && break
	sleep 0.1
done
check "the agent swept at least three times since" test $ticks -ge 4
check_eq "the live pod's VF hold is kept byte for byte" "$(cmp "$KP/hold.before" "$HOLD" && echo same)" same
check_eq "  ... and no VF was restored" "$(agent_log | grep -c 'sriov sweep: VF\|sriov sweep: error')" 0

# --- liveness: a stopped agent fails the probe ------------------------------------
PID=$("${PODMAN[@]}" inspect --format '{{.State.Pid}}' "$C")
kill -STOP "$PID"
check "agent stopped (SIGSTOP): the liveness command fails after its 30 s" \
	wait_for 60 eval '! health'
healthcheck "  ... and podman's healthcheck says unhealthy" 1
kill -CONT "$PID"
check "SIGCONT: alive again" wait_for 20 health

# --- SIGTERM, then the next version's image takes over -------------------------------
progs() { nsenter --net="$NS" bpftool -j net show dev roce0 |
	  jq -r '[.[0].tc[]? | .prog_id // .id] | .[]' | sort | while read -r id; do
		bpftool -j prog show id "$id" | jq -r '"\(.name):\(.tag)"'; done | sort | xargs; }
old=$(progs)
grace=$(awk '/terminationGracePeriodSeconds/ { print $2 }' "$KP/pod.yaml")
"${PODMAN[@]}" pod stop -t "$grace" "$POD" >/dev/null 2>&1
check "SIGTERM: the agent says the data path stays" grep -q "programs stay attached" <(agent_log)
check_eq "  ... and it does" "$(progs)" "$old"
rn_in a "$GEN" --dst 10.77.0.100 --count 50 --size 200 >/dev/null
check_eq "packets sent while no agent runs are counted" \
	"$(rn_ctl stats -j | jq '[.pods[] | select(.pod == "trainer-0") | .tx.roce.packets] | add')" 150
pod_rm "$POD"
# the next version: the image with the agent of build/variant (the same
# sources with other BPF code, version V+variant), as a rebuilt image of the
# next release would differ (make image of a second version would rebuild
# everything for the same proof)
V_NEXT=$("$RN_BUILD/variant/bin/rdmanetd" --version | awk '{ print $2 }')
mkdir -p "$KP/next"
cp "$RN_BUILD/variant/bin/rdmanetd" "$KP/next/"
printf 'FROM %s\nCOPY rdmanetd /usr/local/sbin/rdmanetd\n' "$IMG" >"$KP/next/Containerfile"
if "${PODMAN[@]}" build --quiet --pull=never --label org.opencontainers.image.version="$V_NEXT" \
	-t "$IMG_NEXT" -f "$KP/next/Containerfile" "$KP/next" >"$KP/next/build.log" 2>&1; then
	tap_ok "the next version's image ($IMG_NEXT: agent $V_NEXT, other BPF code)"
	check "the next version played" eval 'play_files "$IMG_NEXT" && play'
	"${DRA[@]}" register --registry /var/lib/kubelet/plugins_registry --driver rdma.rdmanet.io \
		--socket 'rdma.rdmanet.io-reg.sock' >/dev/null 2>>"$KP/dra.err"	# kubelet, again
	check "  ... ready, and says its version" \
		wait_for 60 eval '[ "$(health --ready -j | jq -r .version)" = "$V_NEXT" ]'
	new=$(progs)
	check "  ... its programs attached (other tags)" test -n "$new" -a "$new" != "$old"
	agent_log | grep -E 'upgraded|attached|master ' | sed 's/^/# next: /'
	rn_in a "$GEN" --dst 10.77.0.100 --count 25 --size 200 >/dev/null
	check_eq "  ... counters carried on: 100 + 50 + 25" "$(count)" 175
else
	sed 's/^/# /' "$KP/next/build.log"
	tap_fail "the next version's image"
fi
cni DEL kp-a "/run/netns/$RN_PFX-a" trainer-0 >/dev/null 2>&1
pod_rm "$POD"

# --- uninstall: nothing of rdmanet left on the node ---------------------------------
kubectl kustomize "$RN_SRC/deploy/uninstall" >"$KP/uninstall.yaml" 2>/dev/null
node "$WORK/kube_pod.js" "$KP/uninstall.yaml" \
	"$KP" "$ROOT" "$IMG_NEXT" "$KP/config.json" "$UPOD" 2>&1 | sed 's/^/# /'
check "deploy/uninstall played" play
ulog() { "${PODMAN[@]}" logs "$UPOD-uninstall" 2>&1; }
check "  ... done: it says nothing is left" wait_for 60 eval 'ulog | grep -q "^rdmanet: nothing left on "'
"${PODMAN[@]}" logs "$UPOD-uninstall" 2>&1 | sed 's/^/# uninstall: /'
check_eq "no program on the master" "$(progs)" ""
check_eq "no pins" "$(ls -A "$RN_PIN" 2>/dev/null)" ""
check_eq "nothing of rdmanet under the node's paths" \
	"$(cd "$ROOT" && find . \( -name '*rdmanet*' -o -path './var/lib/rdmanet*' -o -path './etc/rdmanet*' \) | sort | xargs)" ""
tap_done
